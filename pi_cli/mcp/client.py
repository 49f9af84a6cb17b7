"""One connection to one MCP server: handshake, tool listing, tool calls and notifications.

:meth:`McpClient.connect` starts the transport, runs ``initialize``/``notifications/initialized``
and lists the tools (following ``nextCursor`` pages). ``notifications/tools/list_changed`` lists
them again and calls ``on_tools_changed``; ``notifications/message`` goes to the MCP log. Every
request is bounded by the server's ``timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli import __version__
from pi_cli.mcp.config import ServerConfig
from pi_cli.mcp.errors import McpError
from pi_cli.mcp.log import McpLog
from pi_cli.mcp.transport.rpc import RpcPeer
from pi_cli.mcp.transport.stdio import StdioTransport
from pi_cli.mcp.values import McpValueError, resolve_map
from pi_cli.sandbox.protocol import ToolSandbox

if TYPE_CHECKING:  # httpx is imported only for a server that speaks HTTP (~90 ms of start-up)
    from pi_cli.mcp.transport.http import HttpTransport

PROTOCOL_VERSION = "2025-06-18"
SUPPORTED_VERSIONS = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
_MAX_PAGES = 100


class McpClient:
    """A live connection. ``tools`` holds the server's tool definitions (``name``, ``inputSchema`` …)."""

    def __init__(
        self,
        config: ServerConfig,
        cwd: Path,
        log: McpLog,
        on_tools_changed: Callable[[McpClient], None] | None = None,
        on_closed: Callable[[McpClient, McpError], None] | None = None,
        sandbox: ToolSandbox | None = None,
    ) -> None:
        self.config = config
        self._sandbox = sandbox  # stdio servers start inside it unless their entry opts out
        self.name = config.name
        self._cwd = cwd
        # The session's folder is the client's one root (pi offers it): servers such as
        # server-filesystem then scope themselves to the project.
        self._roots = [{"uri": Path(cwd).resolve().as_uri()}]
        self._log = log
        self._on_tools_changed = on_tools_changed
        self._on_closed = on_closed
        self.tools: list[dict[str, Any]] = []
        self.instructions: str | None = None
        self.server_info: dict[str, Any] = {}
        self.has_resources = False  # the server declared the ``resources`` capability
        self.closed_error: McpError | None = None
        self._transport: StdioTransport | HttpTransport | None = None
        self._peer: RpcPeer | None = None
        self._refresh: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        """Start, handshake and list tools; raises :class:`McpError` (naming the server) on failure."""
        config = self.config
        peer = self._peer = RpcPeer(config.name, self._send, self._notification, self._roots)
        try:
            if config.command is not None:
                cwd = _server_cwd(config.cwd, self._cwd)
                sandbox = self._sandbox if config.sandbox else None
                self._transport = StdioTransport(
                    config.name,
                    config.command,
                    list(config.args),
                    resolve_map(config.env, config.name, "env"),
                    cwd,
                    self._log,
                    peer.receive,
                    self._closed,
                    sandbox.confinement() if sandbox is not None else None,
                )
            else:
                from pi_cli.mcp.transport.http import HttpTransport

                assert config.url is not None
                headers = resolve_map(config.headers, config.name, "headers")
                self._transport = HttpTransport(config.name, config.url, headers, self._log, peer.receive, self._closed)
        except McpValueError as exc:
            raise McpError(str(exc)) from None
        await self._transport.start()
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {"roots": {}},
            "clientInfo": {"name": "pi", "version": __version__},
        }
        result = await peer.request("initialize", params, config.timeout)
        version = result.get("protocolVersion")
        if version not in SUPPORTED_VERSIONS:
            raise McpError(f'MCP server "{self.name}": unsupported protocol version {version!r}')
        if not isinstance(self._transport, StdioTransport):
            self._transport.protocol_version = str(version)
        info = result.get("serverInfo")
        self.server_info = info if isinstance(info, dict) else {}
        instructions = result.get("instructions")
        self.instructions = instructions if isinstance(instructions, str) else None
        capabilities = result.get("capabilities")
        self.has_resources = isinstance(capabilities, dict) and "resources" in capabilities
        await peer.notify("notifications/initialized")
        self._log.write(self.name, "info", f"connected ({self.server_info.get('name', '?')}, protocol {version})")
        self.tools = await self.list_tools()
        if not isinstance(self._transport, StdioTransport):
            await self._transport.open_notification_stream()

    async def _send(self, message: dict[str, Any]) -> None:
        assert self._transport is not None
        await self._transport.send(message)

    def _closed(self, error: McpError) -> None:
        if self.closed_error is not None:
            return
        self.closed_error = error
        if self._peer is not None:
            self._peer.fail_all(error)
        if self._on_closed is not None:
            self._on_closed(self, error)

    async def request(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        """One request to the server (``resources/list`` …) with the server's timeout; its result."""
        assert self._peer is not None
        result: dict[str, Any] = await self._peer.request(method, params, self.config.timeout)
        return result

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool, all pages; entries without a string ``name`` are skipped."""
        assert self._peer is not None
        tools: list[dict[str, Any]] = []
        cursor: Any = None
        for _ in range(_MAX_PAGES):
            result = await self._peer.request("tools/list", {"cursor": cursor} if cursor else None, self.config.timeout)
            page = result.get("tools")
            if isinstance(page, list):
                tools.extend(t for t in page if isinstance(t, dict) and isinstance(t.get("name"), str))
            cursor = result.get("nextCursor")
            if not cursor:
                break
        return tools

    async def call_tool(
        self, tool: str, arguments: dict[str, Any], on_progress: Callable[[dict[str, Any]], None] | None = None
    ) -> dict[str, Any]:
        """The raw ``CallToolResult`` of ``tools/call``; ``on_progress`` gets the server's progress
        notifications for the call (their params)."""
        if self._peer is None:
            raise McpError(f'MCP server "{self.name}" is not connected')
        params = {"name": tool, "arguments": arguments}
        return await self._peer.request("tools/call", params, self.config.timeout, on_progress)

    def _notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/message":
            data = params.get("data")
            text = data if isinstance(data, str) else repr(data)
            logger = params.get("logger")
            self._log.write(
                self.name, str(params.get("level", "info")), text, logger if isinstance(logger, str) else None
            )
        elif method == "notifications/tools/list_changed" and (self._refresh is None or self._refresh.done()):
            self._refresh = asyncio.ensure_future(self._relist())

    async def _relist(self) -> None:
        try:
            self.tools = await self.list_tools()
        except McpError as exc:
            self._log.write(self.name, "warning", f"re-listing tools failed: {exc}")
            return
        if self._on_tools_changed is not None:
            self._on_tools_changed(self)

    async def close(self) -> None:
        if self._refresh is not None:
            self._refresh.cancel()
        if self._transport is not None:
            with contextlib.suppress(Exception):
                await self._transport.close()


def _server_cwd(value: str | None, session_cwd: Path) -> Path:
    """``cwd`` of a stdio server: relative to the session directory, ``~/`` is the home directory."""
    if not value:
        return session_cwd
    path = Path(os.path.expanduser(value) if value.startswith("~/") else value)
    return path if path.is_absolute() else session_cwd / path
