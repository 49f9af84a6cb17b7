"""Two small widgets for extensions: the status line under the footer and the widget area above
the editor.

Both repaint only themselves: a status or widget whose row count did not change is redrawn with
``layout=False`` (no screen relayout — extensions may update a status on every turn or token).
Lines never wrap (``text-wrap: nowrap``), so a widget's height is its line count.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static


class ExtensionStatusLine(Static):
    """pi's third footer line: every extension status, sorted by key; hidden when there are none."""

    DEFAULT_CSS = """
    ExtensionStatusLine {
        height: 1; padding: 0 1; color: $text-muted; display: none;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    ExtensionStatusLine.-shown { display: block; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.text = ""

    def show(self, text: str) -> None:
        if text == self.text:
            return
        was_shown = bool(self.text)
        self.text = text
        if text:
            # Fixed height: a new text needs a repaint, not a layout — unless the line appears.
            self.update(Text(text), layout=False)
        self.set_class(bool(text), "-shown")
        if bool(text) != was_shown:
            self.refresh(layout=True)


class ExtensionWidget(Static):
    """One extension's lines (``ctx.ui.set_widget(key, lines)``)."""

    DEFAULT_CSS = """
    ExtensionWidget { height: auto; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, key: str, lines: list[str]) -> None:
        super().__init__(Text("\n".join(lines)))
        self.key = key
        self.lines = lines

    def set_lines(self, lines: list[str]) -> None:
        if lines == self.lines:
            return
        same_height = len(lines) == len(self.lines)
        self.lines = lines
        self.update(Text("\n".join(lines)), layout=not same_height)


class ExtensionWidgetArea(Vertical):
    """The widgets above the editor, in the order their keys were first set."""

    DEFAULT_CSS = """
    ExtensionWidgetArea { height: auto; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.shown: dict[str, ExtensionWidget] = {}

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        """Show, replace (same place) or remove (``None``) the widget ``key``."""
        current = self.shown.get(key)
        if lines is None:
            if current is not None:
                del self.shown[key]
                current.remove()
            return
        if current is not None:
            current.set_lines(lines)
            return
        widget = ExtensionWidget(key, lines)
        self.shown[key] = widget
        self.mount(widget)
