"""The session's MCP servers: background connections, their state and their tools.

:meth:`McpManager.start` schedules one connection task per enabled server and returns at once, so a
slow or dead server never delays the prompt or another server. ``on_change`` is called whenever a
server's state or tool list changes; the session then recomputes its active tools
(:meth:`active_tools`). A call to a server whose connection dropped reconnects it first.

Exposure decides what the model sees: ``direct`` tools are always declared; ``deferred`` ones only
after ``tool_search`` loaded them (:attr:`loaded`, restored from the transcript on resume);
``hidden`` ones never. ``tool_search`` itself is declared while a non-hidden deferred tool may exist.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pi_cli.agent.types import AgentToolResult
from pi_cli.ai.abort import AbortSignal
from pi_cli.mcp import config_edit
from pi_cli.mcp.client import McpClient
from pi_cli.mcp.config import Exposure, McpConfig, ServerConfig
from pi_cli.mcp.errors import McpError
from pi_cli.mcp.log import McpLog
from pi_cli.mcp.probe import project_config_path
from pi_cli.mcp.resources import resource_tools
from pi_cli.mcp.results import map_call_result, progress_text
from pi_cli.mcp.search import SearchDoc, rank
from pi_cli.mcp.tools import TOOL_SEARCH_NAME, McpTool, ToolSearchTool, tool_names
from pi_cli.sandbox.protocol import ToolSandbox

# "disconnected": it was connected and dropped; its tools stay declared and the next call reconnects.
Runner = Callable[[Coroutine[Any, Any, Any], AbortSignal | None], Awaitable[Any]]
Status = Literal["disabled", "connecting", "connected", "disconnected", "failed"]


@dataclass(slots=True)
class ServerState:
    """What ``/mcp`` and ``pi mcp list`` show about one server."""

    config: ServerConfig
    status: Status = "connecting"
    error: str | None = None
    client: McpClient | None = None
    tools: dict[str, McpTool] = field(default_factory=dict)  # pi name -> tool
    task: asyncio.Task[None] | None = None

    def exposure_of(self, tool: McpTool) -> Exposure:
        return self.config.exposure_of(tool.tool)


class McpManager:
    """All configured servers of one session (or one ``pi mcp list`` run)."""

    def __init__(
        self,
        config: McpConfig,
        cwd: Path,
        log: McpLog,
        on_change: Callable[[], None] | None = None,
        *,
        runner: Runner | None = None,
        selection: list[str] | None = None,
        sandbox: ToolSandbox | None = None,
    ) -> None:
        self.errors = list(config.errors)
        self.sandbox = sandbox  # the session's: stdio servers start inside it
        self.cwd = cwd
        self.log = log
        self.on_change = on_change
        self.servers: dict[str, ServerState] = {
            name: ServerState(cfg, "connecting" if cfg.enabled else "disabled") for name, cfg in config.servers.items()
        }
        self.loaded: set[str] = set()
        self.selection = selection  # the --tools entries, when given
        # Given when the servers live on another event loop (see pi_cli.mcp.runtime): tools and
        # /mcp actions hand their coroutine to it instead of awaiting it here.
        self.runner = runner
        self._search_tool = ToolSearchTool(self)
        self._resource_tools = resource_tools(self)
        self._closing = False

    async def dispatch(self, coro: Coroutine[Any, Any, Any], signal: AbortSignal | None = None) -> Any:
        """Run ``coro`` where the servers live (here, or on the runtime's loop)."""
        if self.runner is None:
            return await coro
        return await self.runner(coro, signal)

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Connect every enabled server in the background (needs a running event loop)."""
        for state in self.servers.values():
            if state.config.enabled and state.task is None:
                state.task = asyncio.ensure_future(self._connect(state))

    async def _connect(self, state: ServerState) -> None:
        state.status, state.error = "connecting", None
        name = state.config.name
        client = McpClient(state.config, self.cwd, self.log, self._tools_changed, self._client_closed, self.sandbox)
        state.client = client
        try:
            await client.connect()
        except McpError as exc:
            await client.close()
            state.status, state.error, state.client = "failed", str(exc), None
            self.log.write(name, "error", str(exc))
        except Exception as exc:  # a bug or an OS error must not kill the session
            await client.close()
            state.status, state.error, state.client = "failed", f'MCP server "{name}": {exc}', None
            self.log.write(name, "error", f"{exc.__class__.__name__}: {exc}")
        else:
            state.status = "connected"
            self._index_tools(state)
        self._changed()

    def _index_tools(self, state: ServerState) -> None:
        client = state.client
        definitions = client.tools if client is not None else []
        names = tool_names(state.config.name, [str(d["name"]) for d in definitions])
        state.tools = {
            names[str(d["name"])]: McpTool(self, state.config.name, names[str(d["name"])], d) for d in definitions
        }

    def _tools_changed(self, client: McpClient) -> None:
        state = self.servers.get(client.name)
        if state is not None and state.client is client:
            self._index_tools(state)
            self._changed()

    def _client_closed(self, client: McpClient, error: McpError) -> None:
        state = self.servers.get(client.name)
        if state is None or state.client is not client or self._closing or state.status != "connected":
            return
        state.status, state.error, state.client = "disconnected", str(error), None
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None and not self._closing:
            self.on_change()

    async def wait_ready(self, names: Iterable[str] | None = None, timeout: float | None = None) -> None:
        """Wait until the named servers (default: all) finished connecting or failing."""
        tasks = [s.task for n, s in self.servers.items() if s.task is not None and (names is None or n in names)]
        pending = [t for t in tasks if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)

    async def close(self) -> None:
        """Stop every server (stdio: close stdin, SIGTERM, SIGKILL to the process group)."""
        self._closing = True
        for state in self.servers.values():
            if state.task is not None and not state.task.done():
                state.task.cancel()
        clients = [s.client for s in self.servers.values() if s.client is not None]
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
        for state in self.servers.values():
            if state.task is not None:
                with contextlib.suppress(BaseException):
                    await state.task
            state.client = None

    # --- tools ----------------------------------------------------------------------------

    def all_tools(self) -> list[tuple[McpTool, Exposure]]:
        """Every tool of every connected (or dropped, to be reconnected) server with its effective exposure."""
        live = ("connected", "disconnected")
        tools = [
            (t, self._selected(t, s.exposure_of(t)))
            for s in self.servers.values()
            if s.status in live
            for t in s.tools.values()
        ]
        exposures = {self.servers[name].config.exposure for name in self.resource_servers()}
        if exposures:  # pi: the resource tools take the widest exposure of the servers they reach
            widest: Exposure = "direct" if "direct" in exposures else "deferred"
            tools.extend((t, self._selected(t, widest)) for t in self._resource_tools)
        return tools

    def resource_servers(self) -> list[str]:
        """Connected, enabled servers that declare resources and are not hidden: those the resource
        tools reach."""
        return [
            name
            for name, s in self.servers.items()
            if s.status == "connected" and s.client is not None and s.client.has_resources
            and s.config.enabled and s.config.exposure != "hidden"
        ]  # fmt: skip

    async def resource_request(self, server: str, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        """A resources request to ``server`` (one of :meth:`resource_servers`)."""
        state = self.servers[server]
        if state.client is None:
            raise McpError(state.error or f'MCP server "{server}" is not connected')
        return await state.client.request(method, params)

    def _selected(self, tool: McpTool, exposure: Exposure) -> Exposure:
        """pi's ``--tools`` rule: once an entry starts with ``mcp__``, unmatched MCP tools are gone; an
        MCP tool no entry names is never declared directly (only ``tool_search`` can load it)."""
        if self.selection is None or exposure == "hidden":
            return exposure
        patterns = [p for p in self.selection if p.startswith("mcp__")]
        named = any(fnmatch.fnmatchcase(tool.name, p) for p in patterns)
        if patterns and not named:
            return "hidden"
        return "deferred" if exposure == "direct" and not named else exposure

    def active_tools(self) -> list[Any]:
        """What the model is given: direct tools, loaded deferred tools, and ``tool_search`` if useful."""
        tools: list[Any] = []
        for tool, exposure in self.all_tools():
            if exposure == "direct" or (exposure == "deferred" and tool.name in self.loaded):
                tools.append(tool)
        if self.wants_tool_search():
            tools.append(self._search_tool)
        return tools

    def wants_tool_search(self) -> bool:
        """True while an enabled server may offer deferred tools (configured default or per tool).

        With ``--tools``, only when it lists ``tool_search``."""
        if self.selection is not None:
            return TOOL_SEARCH_NAME in self.selection and any(s.config.enabled for s in self.servers.values())
        for state in self.servers.values():
            if not state.config.enabled or (state.status == "failed" and not state.tools):
                continue
            cfg = state.config
            if cfg.exposure == "deferred" or "deferred" in cfg.tool_exposure.values():
                return True
        return False

    async def search_and_load(self, query: str, limit: int) -> list[McpTool]:
        """``tool_search``: waits for every server to settle, ranks deferred tools not loaded yet."""
        await self.wait_ready(timeout=max((s.config.timeout for s in self.servers.values()), default=0))
        candidates = {
            t.name: t for t, exposure in self.all_tools() if exposure == "deferred" and t.name not in self.loaded
        }
        docs = [
            SearchDoc(t.name, _search_text(t), _server_text(self.servers[t.server]) if t.server in self.servers else "")
            for t in candidates.values()
        ]
        found = [candidates[name] for name in rank(query, docs, limit)]
        if found:
            self.loaded.update(t.name for t in found)
            self._changed()
        return found

    async def call(
        self,
        server: str,
        tool: str,
        args: dict[str, Any],
        signal: AbortSignal | None,
        on_progress: Callable[[str], None] | None = None,
    ) -> AgentToolResult:
        """Call ``tool`` on ``server``; a dropped server is reconnected first. Raises naming the server.
        ``on_progress`` gets pi's line for each progress notification ("Progress 1/4")."""
        state = self.servers.get(server)
        if state is None or not state.config.enabled:
            raise McpError(f'MCP server "{server}" is not enabled')
        if state.task is not None and not state.task.done():
            await asyncio.wait({state.task}, timeout=state.config.timeout)
        if state.status != "connected" or state.client is None:
            await self.reconnect(server)
        client = state.client
        if state.status != "connected" or client is None:
            raise McpError(state.error or f'MCP server "{server}" is not connected')
        listener = None if on_progress is None else (lambda params: on_progress(progress_text(params)))
        call = asyncio.ensure_future(client.call_tool(tool, args, listener))

        def cancel() -> None:
            call.cancel()

        remove = signal.add_callback(cancel) if signal is not None else None
        try:
            result = await call
        except asyncio.CancelledError:
            if signal is not None and signal.aborted:
                raise McpError("Operation aborted") from None
            raise
        finally:
            if remove is not None:
                remove()
        return map_call_result(server, tool, result, server in self.resource_servers())

    # --- changes from /mcp ------------------------------------------------------------------

    async def reconnect(self, name: str) -> None:
        state = self.servers[name]
        if state.client is not None:
            client, state.client = state.client, None
            await client.close()
        state.task = asyncio.ensure_future(self._connect(state))
        await asyncio.wait({state.task})

    async def set_enabled(self, name: str, enabled: bool, persist: bool = True) -> None:
        """Enable (and connect) or disable (and stop) ``name``; saved to the file that defines it."""
        state = self.servers[name]
        if persist:
            self._save(state, enabled=enabled)
        state.config = replace(state.config, enabled=enabled)
        if enabled:
            await self.reconnect(name)
            return
        if state.client is not None:
            client, state.client = state.client, None
            await client.close()
        state.status, state.error, state.tools = "disabled", None, {}
        self._changed()

    def set_exposure(self, name: str, exposure: Exposure, persist: bool = True) -> None:
        state = self.servers[name]
        if persist:
            self._save(state, exposure=exposure)
        state.config = replace(state.config, exposure=exposure)
        self._changed()

    def _save(self, state: ServerState, **change: Any) -> None:
        cfg = state.config
        override = cfg.scope == "project" and cfg.source == project_config_path(self.cwd) and cfg.raw is not None
        config_edit.update_server(cfg.source, cfg.name, create_override=override, **change)


def _search_text(tool: McpTool) -> str:
    parts = [tool.description]
    props = tool.parameters.get("properties")
    if isinstance(props, dict):
        for key, prop in props.items():
            parts.append(str(key))
            if isinstance(prop, dict) and isinstance(prop.get("description"), str):
                parts.append(prop["description"])
    return " ".join(parts)


def _server_text(state: ServerState) -> str:
    client = state.client
    first = (client.instructions or "").strip().splitlines()[:1] if client is not None else []
    return " ".join([state.config.name, state.config.description or "", *first])
