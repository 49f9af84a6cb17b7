"""``ctx.ui.editor`` as a custom component: a multi-line text field under a title.

Enter submits the text; Shift+Enter, Alt+Enter or Ctrl-J start a new line; Escape or Ctrl-C
cancels (the dialog answers None). Arrows, Home/End (Ctrl-A/Ctrl-E), Backspace and Delete edit
as usual; a paste with newlines becomes several lines. Long lines are broken at the width; the
cursor cell is drawn in reverse video. The TUI and inline front ends show it through
``ctx.ui.custom``'s machinery, so it behaves the same in both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_cli.extensions.rendering.keys import matches_key
from pi_cli.extensions.rendering.text import truncate_to_width
from pi_cli.extensions.rendering.theme import ExtensionTheme

_NEWLINE_KEYS = ("shift+enter", "alt+enter", "ctrl+j")


class TextEditor:
    """The editing part: ``lines`` and the cursor (``row``, ``col``)."""

    def __init__(self, text: str = "") -> None:
        self.lines = text.split("\n")
        self.row = len(self.lines) - 1
        self.col = len(self.lines[-1])

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def insert(self, text: str) -> None:
        line = self.lines[self.row]
        head, tail = line[: self.col], line[self.col :]
        parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        new = [head + parts[0], *parts[1:]]
        self.col = len(new[-1])
        new[-1] += tail
        self.lines[self.row : self.row + 1] = new
        self.row += len(new) - 1

    def handle_input(self, data: str) -> None:
        line = self.lines[self.row]
        if any(matches_key(data, key) for key in _NEWLINE_KEYS):
            self.insert("\n")
        elif matches_key(data, "backspace"):
            if self.col > 0:
                self.lines[self.row] = line[: self.col - 1] + line[self.col :]
                self.col -= 1
            elif self.row > 0:
                self.col = len(self.lines[self.row - 1])
                self.lines[self.row - 1 : self.row + 1] = [self.lines[self.row - 1] + line]
                self.row -= 1
        elif matches_key(data, "delete"):
            if self.col < len(line):
                self.lines[self.row] = line[: self.col] + line[self.col + 1 :]
            elif self.row < len(self.lines) - 1:
                self.lines[self.row : self.row + 2] = [line + self.lines[self.row + 1]]
        elif matches_key(data, "left"):
            if self.col > 0:
                self.col -= 1
            elif self.row > 0:
                self.row, self.col = self.row - 1, len(self.lines[self.row - 1])
        elif matches_key(data, "right"):
            if self.col < len(line):
                self.col += 1
            elif self.row < len(self.lines) - 1:
                self.row, self.col = self.row + 1, 0
        elif matches_key(data, "up") or matches_key(data, "down"):
            self.row = max(0, min(len(self.lines) - 1, self.row + (-1 if matches_key(data, "up") else 1)))
            self.col = min(self.col, len(self.lines[self.row]))
        elif matches_key(data, "home") or matches_key(data, "ctrl+a"):
            self.col = 0
        elif matches_key(data, "end") or matches_key(data, "ctrl+e"):
            self.col = len(line)
        elif data and (data.isprintable() or "\n" in data or "\r" in data) and not data.startswith("\x1b"):
            self.insert(data)  # typed text or a paste

    def render(self, width: int) -> list[str]:
        width = max(2, width)
        rows: list[str] = []
        for index, line in enumerate(self.lines):
            shown = line + " " if index == self.row else line  # room for the cursor at the end
            chunks = [shown[i : i + width] for i in range(0, len(shown), width)] or [""]
            for n, chunk in enumerate(chunks):
                at = self.col - n * width
                if index == self.row and 0 <= at < len(chunk):
                    chunk = f"{chunk[:at]}\x1b[7m{chunk[at]}\x1b[27m{chunk[at + 1 :]}"
                rows.append(truncate_to_width(chunk, width, ""))
        return rows


class EditorDialog:
    """Title, the text between two rules, and the keys; ``done(text)`` or ``done(None)``."""

    def __init__(self, title: str, prefill: str | None, theme: ExtensionTheme, done: Callable[[Any], None]) -> None:
        self.title, self.theme, self.done = title, theme, done
        self.editor = TextEditor(prefill or "")

    def handle_input(self, data: str) -> None:
        if matches_key(data, "enter"):
            self.done(self.editor.text)
        elif matches_key(data, "escape") or matches_key(data, "ctrl+c"):
            self.done(None)
        else:
            self.editor.handle_input(data)

    def render(self, width: int) -> list[str]:
        th = self.theme
        rule = th.fg("borderMuted", "─" * width)
        hint = th.fg("dim", "enter submit • shift+enter newline • esc cancel")
        title = th.fg("accent", th.bold(self.title))
        return [truncate_to_width(title, width), rule, *self.editor.render(width), rule, truncate_to_width(hint, width)]
