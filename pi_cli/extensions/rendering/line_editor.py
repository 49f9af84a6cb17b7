"""A one-line text field for custom components (the part of pi-tui's ``Editor`` that dialogs such
as pi's ``question`` example use): typed characters insert, Backspace/Delete, Left/Right,
Home/End (Ctrl-A/Ctrl-E), Ctrl-U/Ctrl-K edit, Enter calls ``on_submit(text)``. It draws one line
with the cursor cell in reverse video, scrolled so the cursor stays visible."""

from __future__ import annotations

from collections.abc import Callable

from pi_cli.extensions.rendering.keys import matches_key
from pi_cli.extensions.rendering.text import visible_width


class LineEditor:
    """Owned by a component: it forwards ``handle_input`` and draws ``render(width)`` itself."""

    def __init__(self, on_submit: Callable[[str], None] | None = None, text: str = "") -> None:
        self.on_submit = on_submit
        self.text = text
        self.cursor = len(text)

    def set_text(self, text: str) -> None:
        self.text, self.cursor = text, len(text)

    def get_text(self) -> str:
        return self.text

    def handle_input(self, data: str) -> None:
        text, at = self.text, self.cursor
        if matches_key(data, "enter"):
            if self.on_submit is not None:
                self.on_submit(text)
        elif matches_key(data, "backspace"):
            if at > 0:
                self.text, self.cursor = text[: at - 1] + text[at:], at - 1
        elif matches_key(data, "delete") or matches_key(data, "ctrl+d"):
            self.text = text[:at] + text[at + 1 :]
        elif matches_key(data, "left") or matches_key(data, "ctrl+b"):
            self.cursor = max(0, at - 1)
        elif matches_key(data, "right") or matches_key(data, "ctrl+f"):
            self.cursor = min(len(text), at + 1)
        elif matches_key(data, "home") or matches_key(data, "ctrl+a"):
            self.cursor = 0
        elif matches_key(data, "end") or matches_key(data, "ctrl+e"):
            self.cursor = len(text)
        elif matches_key(data, "ctrl+u"):
            self.text, self.cursor = text[at:], 0
        elif matches_key(data, "ctrl+k"):
            self.text = text[:at]
        elif data and data.isprintable():  # a typed character, or a paste of several
            self.text, self.cursor = text[:at] + data + text[at:], at + len(data)

    def render(self, width: int) -> list[str]:
        width = max(2, width)
        shown = self.text + " "  # the cell the cursor sits on at the end
        start = 0
        while visible_width(shown[start : self.cursor + 1]) > width:  # keep the cursor in view
            start += 1
        visible = shown[start:]
        while visible_width(visible) > width:
            visible = visible[:-1]
        at = self.cursor - start
        return [f"{visible[:at]}\x1b[7m{visible[at : at + 1]}\x1b[27m{visible[at + 1 :]}"]

    def invalidate(self) -> None:
        return None
