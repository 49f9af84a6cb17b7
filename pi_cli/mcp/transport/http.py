"""The streamable HTTP transport (MCP 2025-03-26 and later) on the shared httpx client.

Each message is POSTed with ``Accept: application/json, text/event-stream``. The answer is either
one JSON body or an SSE stream whose events carry messages; a stream is read in its own task so a
long tool call never holds up other requests. The ``Mcp-Session-Id`` the server returns on
initialize is sent back on every later request, with ``MCP-Protocol-Version``. After initialize a
GET stream carries server-initiated notifications when the server offers one (405 means it does
not). Closing sends DELETE for the session. The legacy SSE transport is not supported.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from pi_cli.ai.transport.http_client import get_client
from pi_cli.ai.transport.sse import SSEDecoder
from pi_cli.mcp.errors import McpClosed, McpError
from pi_cli.mcp.log import McpLog

_TIMEOUT = httpx.Timeout(None, connect=10.0, write=30.0, pool=10.0)
RETRY_DELAYS_S = (0.25, 1.0)


@dataclass(eq=False)
class HttpTransport:
    """One streamable-HTTP endpoint; same interface as :class:`~pi_cli.mcp.transport.stdio.StdioTransport`."""

    server: str
    url: str
    headers: dict[str, str]  # the configured ones, sent with every request
    log: McpLog
    on_message: Callable[[Any], None]
    on_close: Callable[[McpError], None]
    session_id: str | None = field(default=None, init=False)  # Mcp-Session-Id, once the server gives one
    protocol_version: str | None = field(default=None, init=False)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set, init=False)
    _closed: bool = field(default=False, init=False)

    async def start(self) -> None:
        """Nothing to open before the first POST."""

    def _request_headers(self) -> dict[str, str]:
        headers = {
            **self.headers,
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    async def send(self, message: dict[str, Any]) -> None:
        if self._closed:
            raise McpClosed(f'MCP server "{self.server}" is closed')
        # Network errors and transient statuses are retried twice, except for tool calls: the
        # server may already have carried one out.
        attempts = 1 if message.get("method") == "tools/call" else 1 + len(RETRY_DELAYS_S)
        for attempt in range(attempts):
            response = await self._post(message, last=attempt == attempts - 1)
            if response is not None:
                break
            await asyncio.sleep(RETRY_DELAYS_S[attempt])
        assert response is not None
        await self._deliver(response)

    async def _post(self, message: dict[str, Any], last: bool) -> httpx.Response | None:
        """The response, or None when it failed in a way worth retrying (and this is not the last try)."""
        client = get_client(self.url)
        body = json.dumps(message, ensure_ascii=False).encode()
        request = client.build_request(
            "POST", self.url, content=body, headers=self._request_headers(), timeout=_TIMEOUT
        )
        try:
            response = await client.send(request, stream=True)
        except httpx.HTTPError as exc:
            if not last:
                return None
            raise McpError(f'MCP server "{self.server}": cannot reach {self.url} ({exc.__class__.__name__})') from None
        if message.get("method") == "initialize":
            self.session_id = response.headers.get("mcp-session-id") or None
        status = response.status_code
        if status >= 400:
            await response.aclose()
            if not last and (status in (408, 429) or status >= 500):
                return None
            if status == 404 and self.session_id and message.get("method") != "initialize":
                # the server forgot the session: the connection counts as dropped, the next call reconnects
                self._closed = True
                self.on_close(McpClosed(f'MCP server "{self.server}": {_status_text(status, self.session_id)}'))
            raise McpError(f'MCP server "{self.server}": {_status_text(status, self.session_id)}')
        return response

    async def _deliver(self, response: httpx.Response) -> None:
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if response.status_code == 202 or kind not in ("application/json", "text/event-stream"):
            await response.aclose()
            return
        if kind == "application/json":
            try:
                data = json.loads(await response.aread())
            except ValueError:
                self.log.write(self.server, "warning", "a response body was not JSON")
                return
            finally:
                await response.aclose()
            for item in data if isinstance(data, list) else [data]:
                self.on_message(item)
            return
        self._spawn(self._read_events(response))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _read_events(self, response: httpx.Response) -> None:
        decoder = SSEDecoder()
        try:
            async for chunk in response.aiter_bytes():
                for event in decoder.feed(chunk):
                    self._event(event.data)
            for event in decoder.close():
                self._event(event.data)
        except httpx.HTTPError as exc:
            self.log.write(self.server, "warning", f"event stream broke ({exc.__class__.__name__})")
        finally:
            await response.aclose()

    def _event(self, data: str) -> None:
        if not data.strip():
            return
        try:
            message = json.loads(data)
        except ValueError:
            self.log.write(self.server, "warning", f"not JSON-RPC in an event: {data[:200]}")
            return
        self.on_message(message)

    async def open_notification_stream(self) -> None:
        """The GET stream for server-initiated messages, when the server offers one."""
        client = get_client(self.url)
        headers = {k: v for k, v in self._request_headers().items() if k != "Content-Type"}
        headers["Accept"] = "text/event-stream"
        request = client.build_request("GET", self.url, headers=headers, timeout=_TIMEOUT)
        try:
            response = await client.send(request, stream=True)
        except httpx.HTTPError:
            return
        if response.status_code != 200 or "text/event-stream" not in response.headers.get("content-type", ""):
            await response.aclose()
            return
        self._spawn(self._read_events(response))

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        if self.session_id:
            with contextlib.suppress(Exception):
                client = get_client(self.url)
                await client.delete(self.url, headers=self._request_headers(), timeout=httpx.Timeout(2.0))
        self.on_close(McpClosed(f'MCP server "{self.server}" was stopped'))


def _status_text(status: int, session_id: str | None) -> str:
    if status == 401:
        return "HTTP 401: the server needs sign-in (OAuth is not supported yet; set an Authorization header)"
    if status == 404 and session_id:
        return "HTTP 404: the server ended the session"
    return f"HTTP {status}"
