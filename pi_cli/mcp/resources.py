"""MCP resources as pi 1.6.0 offers them: ``list_mcp_resources``, ``list_mcp_resource_templates``
and ``read_mcp_resource`` (the names Codex and opencode use), one set for every connected server
that declares the ``resources`` capability.

Listings are JSON: ``{server?, resources: [{server, ...resource}], nextCursor?, errors?}``. With a
``server`` one page is listed and ``cursor`` continues it; without, every page of every server
(sorted by name), a failing server named under ``errors``. MCP App resources (``ui://`` URIs,
``profile=mcp-app`` types) are left out, and ``_meta``/``icons`` of each item. A read resource
reaches the model as text (a ``text/*`` blob decoded; other blobs saved to a temp file and named),
several contents each after a ``<uri>:`` line. Each result carries the payload as
``structuredContent`` and ``details`` ``{server, tool}``. The tools are declared with the widest
exposure of the servers they reach (``direct`` if one is direct, else ``deferred``).
"""

from __future__ import annotations

import json
import re
from typing import Any, Protocol

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.mcp.errors import McpError
from pi_cli.mcp.tools import McpTool, ToolHost

LIST_MCP_RESOURCES_TOOL = "list_mcp_resources"
LIST_MCP_RESOURCE_TEMPLATES_TOOL = "list_mcp_resource_templates"
READ_MCP_RESOURCE_TOOL = "read_mcp_resource"

_SERVER_FILTER = {"type": "string", "description": "MCP server name. Omit to list every server with resources."}
_CURSOR = {
    "type": "string",
    "description": "Opaque cursor from a previous call with the same server; omit for the first page.",
}
LIST_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"server": _SERVER_FILTER, "cursor": _CURSOR},
    "additionalProperties": False,
}
READ_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "server": {
            "type": "string",
            "description": "MCP server name exactly as configured. Must match the 'server' field returned by "
            "list_mcp_resources.",
        },
        "uri": {
            "type": "string",
            "description": "Resource URI to read. Must be one of the URIs returned by list_mcp_resources.",
        },
    },
    "required": ["server", "uri"],
    "additionalProperties": False,
}
DESCRIPTIONS = {
    LIST_MCP_RESOURCES_TOOL: "Lists resources provided by MCP servers. Resources allow servers to share data "
    "that provides context to language models, such as files, database schemas, or application-specific "
    "information. Prefer resources over web search when possible.",
    LIST_MCP_RESOURCE_TEMPLATES_TOOL: "Lists resource templates provided by MCP servers. Parameterized resource "
    "templates allow servers to share data that takes parameters and provides context to language models, such "
    "as files, database schemas, or application-specific information. Prefer resource templates over web search "
    "when possible.",
    READ_MCP_RESOURCE_TOOL: "Read a specific resource from an MCP server given the server name and resource URI.",
}
# tool → (MCP method, the listing's key)
_LISTINGS = {
    LIST_MCP_RESOURCES_TOOL: ("resources/list", "resources"),
    LIST_MCP_RESOURCE_TEMPLATES_TOOL: ("resources/templates/list", "resourceTemplates"),
}
_MCP_APP = re.compile(r';\s*profile\s*=\s*"?mcp-app"?', re.IGNORECASE)
_MAX_PAGES = 100


class ResourceHost(ToolHost, Protocol):
    """What the resource tools need of the manager besides :class:`ToolHost`."""

    def resource_servers(self) -> list[str]: ...

    async def resource_request(self, server: str, method: str, params: dict[str, Any] | None) -> dict[str, Any]: ...


def _argument(args: dict[str, Any], key: str) -> str | None:
    """pi's ``stringArgument``: absent or null is None, a non-string is refused, blank is None."""
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise McpError(f"{key} must be a string")
    return value.strip() or None


def _visible(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    uri = str(item.get("uri") or item.get("uriTemplate") or "")
    return not uri.startswith("ui://") and not _MCP_APP.search(str(item.get("mimeType") or ""))


def _listed(server: str, item: dict[str, Any]) -> dict[str, Any]:
    return {"server": server, **{k: v for k, v in item.items() if k not in ("_meta", "icons")}}


class ResourceTool(McpTool):
    """One of the three resource tools; it reaches the servers :meth:`ResourceHost.resource_servers` names."""

    def __init__(self, manager: ResourceHost, name: str) -> None:
        self._manager = manager
        self._resources = manager
        self.server = ""  # not one server's tool
        self.tool = self.name = self.label = name
        self.description = DESCRIPTIONS[name]
        self.parameters = READ_PARAMETERS if name == READ_MCP_RESOURCE_TOOL else LIST_PARAMETERS
        self.annotations = {"readOnlyHint": True}

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        result: AgentToolResult = await self._manager.dispatch(self._execute(dict(args or {})), signal)
        return result

    def _find(self, name: str) -> str:
        servers = self._resources.resource_servers()
        if name in servers:
            return name
        available = ", ".join(servers)
        raise McpError(
            f'MCP server "{name}" has no resources' + (f". Servers with resources: {available}" if available else "")
        )

    async def _execute(self, args: dict[str, Any]) -> AgentToolResult:
        if self.name == READ_MCP_RESOURCE_TOOL:
            return await self._read(args)
        method, key = _LISTINGS[self.name]
        server = _argument(args, "server")
        cursor = _argument(args, "cursor")
        payload: dict[str, Any]
        if server:
            name = self._find(server)
            page = await self._resources.resource_request(name, method, {"cursor": cursor} if cursor else None)
            items = [_listed(name, i) for i in page.get(key) or [] if _visible(i)]
            payload = {"server": name, key: items}
            if page.get("nextCursor") is not None:
                payload["nextCursor"] = page["nextCursor"]
        else:
            if cursor:
                raise McpError("cursor can only be used when a server is specified")
            items, errors = [], []
            for name in sorted(self._resources.resource_servers()):
                try:
                    items.extend(_listed(name, i) for i in await self._all(name, method, key) if _visible(i))
                except Exception as exc:  # one failing server does not hide the others
                    errors.append({"server": name, "error": str(exc)})
            payload = {key: items, **({"errors": errors} if errors else {})}
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        return AgentToolResult(
            content=[{"type": "text", "text": text}],
            details={"server": server or "", "tool": self.name},
            structured_content=payload,
        )

    async def _all(self, server: str, method: str, key: str) -> list[Any]:
        items: list[Any] = []
        cursor: Any = None
        for _ in range(_MAX_PAGES):
            page = await self._resources.resource_request(server, method, {"cursor": cursor} if cursor else None)
            items.extend(page.get(key) or [])
            cursor = page.get("nextCursor")
            if not cursor:
                break
        return items

    async def _read(self, args: dict[str, Any]) -> AgentToolResult:
        from pi_cli.mcp.results import resource_blocks

        server, uri = _argument(args, "server"), _argument(args, "uri")
        if not server:
            raise McpError("server must be provided")
        if not uri:
            raise McpError("uri must be provided")
        name = self._find(server)
        result = await self._resources.resource_request(name, "resources/read", {"uri": uri})
        contents = [c for c in result.get("contents") or [] if isinstance(c, dict)]
        content = resource_blocks(name, contents) or [{"type": "text", "text": f"Resource {uri} is empty."}]
        return AgentToolResult(
            content=content,
            details={"server": name, "tool": READ_MCP_RESOURCE_TOOL},
            structured_content={
                "server": name,
                "uri": uri,
                "contents": [{k: v for k, v in c.items() if k != "_meta"} for c in contents],
            },
        )


def resource_tools(manager: ResourceHost) -> list[ResourceTool]:
    """The three tools, in pi's order."""
    return [
        ResourceTool(manager, n)
        for n in (LIST_MCP_RESOURCES_TOOL, LIST_MCP_RESOURCE_TEMPLATES_TOOL, READ_MCP_RESOURCE_TOOL)
    ]
