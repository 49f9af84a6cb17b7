"""``ctx.ui``: what an extension may ask of the front end, and the no-UI fallback.

Each mode binds its own :class:`ExtensionUI` at runtime (RPC: ``extension_ui_request`` messages;
print/json: :class:`NoUI`). Dialogs are async; ``notify``/``set_*`` are fire-and-forget.
"""

from __future__ import annotations

import sys
from typing import Protocol, runtime_checkable


@runtime_checkable
class ExtensionUI(Protocol):
    """The front end's side of ``ctx.ui`` (pi's ExtensionUIContext, the portable part)."""

    has_ui: bool

    def notify(self, text: str, level: str = "info") -> None: ...

    async def confirm(self, title: str, message: str = "") -> bool: ...

    async def select(self, title: str, options: list[str]) -> str | None: ...

    async def input(self, title: str, placeholder: str | None = None) -> str | None: ...

    def set_status(self, key: str, text: str | None) -> None: ...

    def set_widget(self, key: str, lines: list[str] | None) -> None: ...

    def set_editor_text(self, text: str) -> None: ...


class NoUI:
    """print/json modes: ``has_ui`` False, ``confirm`` → False, ``select``/``input`` → None,
    ``notify`` → one line on stderr; status, widgets and editor text are dropped."""

    has_ui = False

    def notify(self, text: str, level: str = "info") -> None:
        prefix = "" if level == "info" else f"{level.capitalize()}: "
        sys.stderr.write(f"{prefix}{text}\n")
        sys.stderr.flush()

    async def confirm(self, title: str, message: str = "") -> bool:
        return False

    async def select(self, title: str, options: list[str]) -> str | None:
        return None

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        return None

    def set_editor_text(self, text: str) -> None:
        return None
