"""Custom messages (an extension's ``send_message(display=True)``) and custom entries (its
``append_entry``, shown only when a renderer is registered for their ``customType``).

Drawn by the extension's renderer when it has one (pi's ``registerMessageRenderer`` /
``registerEntryRenderer``: lines with ANSI styles, expanded with Ctrl-O as tool cards are), else a
custom message shows pi's default: its ``[customType]`` label and its text.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from pi_cli.extensions.rendering import CustomRenderer
from pi_cli.modes.interactive.widgets.tool_card import styled_lines
from pi_cli.tools.sanitize import strip_control_sequences as clean


def custom_text(value: dict[str, Any]) -> str:
    """The text of a custom message's content (a string or text blocks)."""
    content = value.get("content")
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text")


class CustomView(Static):
    """One custom message or entry; ``renderer`` None draws the default."""

    DEFAULT_CSS = """
    CustomView { background: $secondary 12%; padding: 0 1; margin: 1 0 0 0; height: auto; }
    CustomView.-own { background: transparent; padding: 0; }
    """

    def __init__(self, value: dict[str, Any], renderer: CustomRenderer | None, expanded: bool = False) -> None:
        super().__init__("", classes="-own" if renderer is not None else "")
        self.value = value
        self.renderer = renderer
        self._expanded = expanded
        self.update(self._build())

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self._expanded:
            self._expanded = expanded
            self.update(self._build())

    def _build(self) -> Text:
        width = self.size.width if self.size.width > 0 else 100
        lines = self.renderer.draw(self.value, self._expanded, width) if self.renderer is not None else None
        if lines is not None:
            return styled_lines(lines)
        if self.renderer is not None:  # its renderer failed: pi's default frame comes back
            self.set_class(False, "-own")
        label = Text(f"[{clean(str(self.value.get('customType', 'custom')))}] ", style="bold")
        body = custom_text(self.value) if self.value.get("role") == "custom" else str(self.value.get("data", ""))
        return label + Text(clean(body))
