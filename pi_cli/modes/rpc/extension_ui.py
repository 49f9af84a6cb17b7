"""``ctx.ui`` over RPC: pi's ``extension_ui_request`` sub-protocol (docs/rpc-extension-ui.md).

Dialogs (``select``, ``confirm``, ``input``) wait for the client's ``extension_ui_response`` through
:class:`RpcDialogs`; ``notify``, ``setStatus``, ``setWidget`` and ``set_editor_text`` are
fire-and-forget requests with a fresh id and no answer expected, as are ``setTitle`` and
``paste_to_editor`` (sent as ``set_editor_text``); ``editor`` is a dialog (``{title, prefill}``
answered with ``value``); ``custom`` answers None at once, as pi's RPC mode.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from pi_cli.modes.rpc.dialogs import RpcDialogs


class RpcExtensionUI:
    """The RPC front end's :class:`pi_cli.extensions.ExtensionUI` (``has_ui`` True, as pi's)."""

    has_ui = True

    def __init__(self, dialogs: RpcDialogs, send: Callable[[dict[str, Any]], None]) -> None:
        self._dialogs = dialogs
        self._send = send

    def _fire(self, method: str, **fields: Any) -> None:
        request = {"type": "extension_ui_request", "id": str(uuid.uuid4()), "method": method}
        request.update({key: value for key, value in fields.items() if value is not None})
        self._send(request)

    def notify(self, text: str, level: str | None = None) -> None:
        # No level given → no ``notifyType`` key (pi sends ``type`` as given, undefined included).
        self._fire("notify", message=text, notifyType=level)

    async def confirm(self, title: str, message: str = "", *, timeout: int | None = None) -> bool:
        return await self._dialogs.confirm(title, message, timeout=timeout)

    async def select(self, title: str, options: list[str], *, timeout: int | None = None) -> str | None:
        return await self._dialogs.select(title, options, timeout=timeout)

    async def input(self, title: str, placeholder: str | None = None, *, timeout: int | None = None) -> str | None:
        return await self._dialogs.input(title, placeholder, timeout=timeout)

    def set_status(self, key: str, text: str | None) -> None:
        self._fire("setStatus", statusKey=key, statusText=text)

    def set_widget(self, key: str, lines: list[str] | None, placement: str | None = None) -> None:
        # pi sends ``options?.placement``: no placement given → no ``widgetPlacement`` key.
        self._fire("setWidget", widgetKey=key, widgetLines=lines, widgetPlacement=placement)

    def set_editor_text(self, text: str) -> None:
        self._fire("set_editor_text", text=text)

    def paste_to_editor(self, text: str) -> None:
        self.set_editor_text(text)  # pi's RPC mode has no paste: it sets the editor text

    def get_editor_text(self) -> str:
        return ""  # a synchronous call cannot wait for the client (pi answers "" too)

    def set_title(self, title: str) -> None:
        self._fire("setTitle", title=title)

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        return await self._dialogs.editor(title, prefill)

    async def custom(self, factory: Any, options: Any) -> Any:
        return None  # pi's RPC mode has no custom components: undefined, the factory never runs
