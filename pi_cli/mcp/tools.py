"""MCP tools as pi tools: ``mcp__<server>__<tool>`` adapters and the ``tool_search`` tool.

An :class:`McpTool` forwards its call to the manager, which (re)connects the server when needed;
results go through :func:`pi_cli.mcp.results.map_call_result`, errors name the server. Both tools
are plain :class:`~pi_cli.agent.types.AgentTool` objects, so they go through the session's tool
registry like any other (``tool_call``/``tool_result`` handlers and the approval gate apply).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, Protocol

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.mcp.config import ServerConfig, mcp_namespace
from pi_cli.tools.base import PlainTool


class ServerView(Protocol):
    """One configured server as the tools see it."""

    @property
    def config(self) -> ServerConfig: ...


class ToolHost(Protocol):
    """What the tools need of the MCP manager (:class:`pi_cli.mcp.manager.McpManager`): where to
    run a call, the call itself, the configured servers, and search-and-load for ``tool_search``."""

    @property
    def runner(self) -> Any: ...

    @property
    def servers(self) -> Mapping[str, ServerView]: ...

    async def dispatch(self, coro: Coroutine[Any, Any, Any], signal: AbortSignal | None = None) -> Any: ...

    async def call(
        self,
        server: str,
        tool: str,
        args: dict[str, Any],
        signal: AbortSignal | None,
        on_progress: Callable[[str], None] | None = None,
    ) -> AgentToolResult: ...

    async def search_and_load(self, query: str, limit: int) -> list[McpTool]: ...


TOOL_SEARCH_NAME = "tool_search"
DEFAULT_SEARCH_LIMIT = 8
TOOL_SEARCH_DESCRIPTION = (
    "Search the tools that are not declared to you yet (such as the tools of MCP servers) and load the "
    "matches: they are available from your next call. For MCP tool discovery, always use tool_search."
)


def tool_names(server: str, tools: list[str]) -> dict[str, str]:
    """pi names of one server's tools; names that collide after sanitising all get a hash suffix."""
    base = {tool: f"mcp__{mcp_namespace(server)}__{mcp_namespace(tool)}" for tool in tools}
    counts: dict[str, int] = {}
    for name in base.values():
        counts[name] = counts.get(name, 0) + 1
    return {
        tool: name if counts[name] == 1 else f"{name}_{hashlib.sha256(tool.encode()).hexdigest()[:6]}"
        for tool, name in base.items()
    }


def _schema(raw: Any) -> dict[str, Any]:
    """The tool's ``inputSchema``, always an object schema (a server may omit or botch it)."""
    if isinstance(raw, dict) and raw.get("type") == "object":
        return raw
    return {"type": "object", "properties": {}}


class McpTool(PlainTool):
    """One server tool. ``annotations`` carries the server's hints (``readOnlyHint`` …) for gates."""

    def __init__(self, manager: ToolHost, server: str, name: str, definition: dict[str, Any]) -> None:
        self._manager = manager
        self.server = server
        self.tool = str(definition["name"])
        self.name = name
        self.label = f"{server}: {definition.get('title') or self.tool}"
        description = definition.get("description")
        self.description = description if isinstance(description, str) and description else f"MCP tool {self.tool}"
        self.parameters = _schema(definition.get("inputSchema"))
        annotations = definition.get("annotations")
        self.annotations: dict[str, Any] = annotations if isinstance(annotations, dict) else {}

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        manager = self._manager
        # Across loops the runner cancels on abort; an AbortSignal only works on its own loop.
        inner_signal = signal if manager.runner is None else None
        on_progress = None
        if on_update is not None:
            # Progress arrives on the servers' loop (another thread in a session): hop back to ours,
            # where the agent turns the update into a tool_execution_update, as pi shows it.
            loop = asyncio.get_running_loop()

            def on_progress(text: str) -> None:
                details = {"server": self.server, "tool": self.tool}  # pi's update details
                update = AgentToolResult(content=[{"type": "text", "text": text}], details=details)
                loop.call_soon_threadsafe(on_update, update)

        result: AgentToolResult = await manager.dispatch(
            manager.call(self.server, self.tool, args, inner_signal, on_progress), signal
        )
        return result

    def __repr__(self) -> str:
        return f"<McpTool {self.name}>"


class ToolSearchTool(PlainTool):
    """``tool_search``: ranks the deferred MCP tools and loads the matches for the rest of the session.

    The result's ``details.loaded`` lists the loaded names (pi's shape); the session finds them there
    again on resume, so loaded tools stay declared on that branch.
    """

    name = TOOL_SEARCH_NAME
    label = TOOL_SEARCH_NAME
    parameters: dict[str, Any] = {  # noqa: RUF012 - read-only schema
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search query for deferred tools."},
            "limit": {
                "type": "number",
                "description": f"Maximum number of tools to return. Defaults to {DEFAULT_SEARCH_LIMIT}.",
            },
        },
        "required": ["query"],
    }

    def __init__(self, manager: ToolHost) -> None:
        self._manager = manager

    @property
    def description(self) -> str:
        """The fixed text plus the configured servers whose tools it can load.

        Only configured names and descriptions are listed (not what servers say once connected), so
        the text, and with it the provider's prompt cache, does not change as servers connect.
        """
        lines = [
            f"- {s.config.name}" + (f": {s.config.description}" if s.config.description else "")
            for s in self._manager.servers.values()
            if s.config.enabled and (s.config.exposure == "deferred" or "deferred" in s.config.tool_exposure.values())
        ]
        if not lines:
            return TOOL_SEARCH_DESCRIPTION
        return TOOL_SEARCH_DESCRIPTION + "\n\nMCP servers with tools to load:\n" + "\n".join(lines)

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        query = str(args.get("query", ""))
        if not query.strip():
            raise ValueError("query must not be empty")
        limit = args.get("limit", DEFAULT_SEARCH_LIMIT)
        if isinstance(limit, float) and limit.is_integer():
            limit = int(limit)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
            raise ValueError("limit must be a positive integer")
        found: list[McpTool] = await self._manager.dispatch(self._manager.search_and_load(query, limit), signal)
        if not found:
            text = "No matching tools found."
        else:
            lines = [f"- {tool.name}: {(tool.description.strip().splitlines() or [''])[0]}" for tool in found]
            plural = "" if len(found) == 1 else "s"
            text = f"Loaded {len(found)} tool{plural}. They are available from your next call:\n" + "\n".join(lines)
        names = [tool.name for tool in found]
        return AgentToolResult(
            content=[{"type": "text", "text": text}], details={"loaded": names}, added_tool_names=names or None
        )
