"""Dialogs over RPC: pi's ``extension_ui_request`` / ``extension_ui_response`` sub-protocol.

``select`` and ``input`` write a request (``{"type":"extension_ui_request","id",...}``) and wait
for the client's ``extension_ui_response`` with the same id: ``value`` answers, ``cancelled: true``
(or a missing value) is None. pi-acp turns a ``select`` into ACP's ``session/request_permission``.
Other commands keep being served while a dialog waits (each line runs in its own task), so
``steer`` queues and ``abort`` cancels the wait. A dialog given pi's ``timeout`` (milliseconds)
sends it in the request and, as pi, gives its default (None / False) when no answer came in time;
a late answer is then ignored.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any


class RpcDialogs:
    """Pending dialogs by id; ``resolve`` is fed every ``extension_ui_response`` line."""

    def __init__(self, send: Callable[[dict[str, Any]], None]) -> None:
        self._send = send
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def _ask(self, request: dict[str, Any], timeout: int | None = None) -> dict[str, Any]:
        """Send ``request`` and wait for its answer; ``{"cancelled": True}`` when ``timeout`` ms pass."""
        request_id = str(uuid.uuid4())
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        if timeout:
            request = {**request, "timeout": timeout}
        try:
            self._send({"type": "extension_ui_request", "id": request_id, **request})
            if not timeout:
                return await future
            try:
                return await asyncio.wait_for(future, timeout / 1000)
            except TimeoutError:
                return {"cancelled": True}
        finally:
            self._pending.pop(request_id, None)

    async def select(self, title: str, options: list[str], *, timeout: int | None = None) -> str | None:
        answer = await self._ask({"method": "select", "title": title, "options": options}, timeout)
        value = answer.get("value")
        return value if isinstance(value, str) and not answer.get("cancelled") else None

    async def input(self, title: str, placeholder: str | None = None, *, timeout: int | None = None) -> str | None:
        request: dict[str, Any] = {"method": "input", "title": title}
        if placeholder:
            request["placeholder"] = placeholder
        answer = await self._ask(request, timeout)
        value = answer.get("value")
        return value if isinstance(value, str) and not answer.get("cancelled") else None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        """pi's ``editor`` dialog: multi-line text, ``prefill`` as its start; None when cancelled."""
        request: dict[str, Any] = {"method": "editor", "title": title}
        if prefill is not None:
            request["prefill"] = prefill
        answer = await self._ask(request)
        value = answer.get("value")
        return value if isinstance(value, str) and not answer.get("cancelled") else None

    async def confirm(self, title: str, message: str = "", *, timeout: int | None = None) -> bool:
        answer = await self._ask({"method": "confirm", "title": title, "message": message}, timeout)
        return answer.get("confirmed") is True and not answer.get("cancelled")

    def resolve(self, response: dict[str, Any]) -> bool:
        """Answer the dialog ``response["id"]`` names; False when none waits for it (ignored)."""
        future = self._pending.get(str(response.get("id")))
        if future is None or future.done():
            return False
        future.set_result(response)
        return True
