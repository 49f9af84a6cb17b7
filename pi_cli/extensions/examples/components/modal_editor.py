"""A vim-like modal prompt editor (a port of pi's ``modal-editor`` example).

``pi -e example:modal_editor``: the TUI's editor becomes a :class:`CustomEditor` with two modes.
Insert mode types as usual; Escape switches to normal mode, where ``h`` ``j`` ``k`` ``l`` move,
``0`` and ``$`` go to the line's start and end, ``x`` deletes, ``i`` and ``a`` go back to insert
mode, and a second Escape reaches the app (interrupt, double-Escape for ``/tree``). Ctrl-C and
Ctrl-D work in both modes. The mode shows at the right of the lower rule.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions.rendering import matches_key, truncate_to_width, visible_width
from pi_cli.extensions.rendering.custom_editor import CustomEditor

# normal-mode key → the data it stands for (None: a mode switch)
NORMAL_KEYS: dict[str, str | None] = {
    "h": "\x1b[D", "j": "\x1b[B", "k": "\x1b[A", "l": "\x1b[C",
    "0": "\x01", "$": "\x05", "x": "\x1b[3~", "i": None, "a": None,
}  # fmt: skip


class ModalEditor(CustomEditor):
    def __init__(self, tui: Any, theme: Any, keybindings: Any = None) -> None:
        super().__init__(tui, theme, keybindings)
        self.mode = "insert"

    def handle_input(self, data: str) -> None:
        if matches_key(data, "escape"):
            if self.mode == "insert":
                self.mode = "normal"
            else:
                super().handle_input(data)  # the app's Escape
            return
        if self.mode == "insert":
            super().handle_input(data)
            return
        if data in NORMAL_KEYS:
            if data in ("i", "a"):
                self.mode = "insert"
                if data == "a":
                    super().handle_input("\x1b[C")
            else:
                super().handle_input(NORMAL_KEYS[data] or "")
            return
        if len(data) == 1 and data.isprintable():
            return  # normal mode types nothing
        super().handle_input(data)

    def render(self, width: int) -> list[str]:
        lines = super().render(width)
        label = " NORMAL " if self.mode == "normal" else " INSERT "
        if lines and visible_width(lines[-1]) >= len(label):
            lines[-1] = truncate_to_width(lines[-1], width - len(label), "") + label
        return lines


def register(pi: Any) -> None:
    pi.on("session_start", lambda event, ctx: ctx.ui.set_editor_component(ModalEditor))
