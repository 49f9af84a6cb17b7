"""JSON-RPC 2.0 over any transport: request ids, pending answers, timeouts and incoming dispatch.

A transport calls :meth:`RpcPeer.receive` with each parsed message and :meth:`RpcPeer.fail_all`
when it closes; the peer sends through the ``send`` coroutine it was given. Requests from the
server are answered here: ``ping`` with ``{}``, ``roots/list`` with the roots the client offers
(the session's working directory, as pi offers it), anything else with "method not found", so a
server never waits on us.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from pi_cli.mcp.errors import McpError, McpTimeout

Send = Callable[[dict[str, Any]], Awaitable[None]]
OnNotification = Callable[[str, dict[str, Any]], None]
OnProgress = Callable[[dict[str, Any]], None]  # the params of one notifications/progress


class RpcPeer:
    """The client side of one JSON-RPC connection to the server named ``server``."""

    def __init__(
        self, server: str, send: Send, on_notification: OnNotification, roots: list[dict[str, str]] | None = None
    ) -> None:
        self.server = server
        self.roots = list(roots or [])  # ``roots/list`` answer: [{"uri": "file:///…"}]
        self._send = send
        self._on_notification = on_notification
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._progress: dict[int, asyncio.Event] = {}
        self._on_progress: dict[int, OnProgress] = {}
        self._closed: McpError | None = None
        self._answers: set[asyncio.Future[None]] = set()

    async def request(
        self, method: str, params: dict[str, Any] | None, timeout: float, on_progress: OnProgress | None = None
    ) -> dict[str, Any]:
        """Send ``method`` and wait for its result; raises :class:`McpError` naming the server.

        The timeout restarts whenever the server reports progress for this request, and
        ``on_progress`` gets each such notification's params. On timeout or cancellation the
        server is told with ``notifications/cancelled``.
        """
        if self._closed is not None:
            raise self._closed
        self._next_id += 1
        rid = self._next_id
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        progress = self._progress[rid] = asyncio.Event()
        if on_progress is not None:
            self._on_progress[rid] = on_progress
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        body = dict(params or {})
        if method == "tools/call":
            body["_meta"] = {**body.get("_meta", {}), "progressToken": rid}
        if body:
            message["params"] = body
        try:
            await self._send(message)
            while True:
                progress.clear()
                waiter: asyncio.Future[Any] = asyncio.ensure_future(progress.wait())
                done, _ = await asyncio.wait({future, waiter}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                if future in done:
                    return _result(future.result(), self.server, method)
                if not done:
                    await self._cancel(rid, "timed out")
                    raise McpTimeout(f'MCP server "{self.server}": {method} timed out after {timeout:g} s')
        except asyncio.CancelledError:
            await self._cancel(rid, "cancelled by the user")
            raise
        finally:
            self._pending.pop(rid, None)
            self._progress.pop(rid, None)
            self._on_progress.pop(rid, None)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params:
            message["params"] = params
        await self._send(message)

    async def _cancel(self, rid: int, reason: str) -> None:
        if self._closed is None:
            with contextlib.suppress(Exception):
                await self.notify("notifications/cancelled", {"requestId": rid, "reason": reason})

    def receive(self, message: Any) -> None:
        """Handle one message from the server (a response, a notification or a request)."""
        if not isinstance(message, dict):
            return
        method = message.get("method")
        if isinstance(method, str):
            raw = message.get("params")
            params: dict[str, Any] = raw if isinstance(raw, dict) else {}
            if "id" in message:
                task = asyncio.ensure_future(self._answer(message["id"], method))
                self._answers.add(task)
                task.add_done_callback(self._answers.discard)
            elif method == "notifications/progress":
                token = params.get("progressToken")
                if isinstance(token, int) and token in self._progress:
                    self._progress[token].set()
                    listener = self._on_progress.get(token)
                    if listener is not None:
                        with contextlib.suppress(Exception):  # a listener's bug must not break the connection
                            listener(params)
            else:
                self._on_notification(method, params)
            return
        rid = message.get("id")
        future = self._pending.get(rid) if isinstance(rid, int) else None
        if future is not None and not future.done():
            future.set_result(message)

    async def _answer(self, rid: Any, method: str) -> None:
        if method == "ping":
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "result": {}}
        elif method == "roots/list":
            reply = {"jsonrpc": "2.0", "id": rid, "result": {"roots": self.roots}}
        else:
            reply = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}}
        with contextlib.suppress(Exception):
            await self._send(reply)

    def fail_all(self, error: McpError) -> None:
        """The connection is gone: every pending and future request fails with ``error``."""
        self._closed = error
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)

    @property
    def closed(self) -> McpError | None:
        return self._closed


def _result(message: dict[str, Any], server: str, method: str) -> dict[str, Any]:
    error = message.get("error")
    if error is not None:
        text = error.get("message") if isinstance(error, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        raise McpError(f'MCP server "{server}": {method} failed: {text or "unknown error"} ({code})')
    result = message.get("result")
    if not isinstance(result, dict):
        raise McpError(f'MCP server "{server}": {method} returned no result object')
    return result
