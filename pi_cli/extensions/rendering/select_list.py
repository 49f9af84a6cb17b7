"""A scrolling pick list for custom components (pi-tui's ``SelectList``, the part examples use).

Items are dicts ``{value, label?, description?}``. Up/Down move (wrapping round), Page Up/Down jump
a page, Enter calls ``on_select(item)``, Escape or Ctrl-C ``on_cancel()``; ``on_selection_change``
hears each move. ``set_filter(prefix)`` keeps the items whose value starts with it. It draws at
most ``max_visible`` rows (the selected one marked ``→`` in the theme's accent, descriptions
muted in a second column when there is room) and a ``(n/total)`` line when some are hidden.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_cli.extensions.rendering.keys import Keybindings
from pi_cli.extensions.rendering.text import truncate_to_width, visible_width
from pi_cli.extensions.rendering.theme import ExtensionTheme

_KEYS = Keybindings()
_LABEL_COLUMN = 32  # cells for the label before the description starts


class SelectList:
    """Owned by a component: it forwards ``handle_input`` and draws ``render(width)`` itself."""

    def __init__(
        self,
        items: list[dict[str, Any]],
        max_visible: int = 5,
        theme: ExtensionTheme | None = None,
        on_select: Callable[[dict[str, Any]], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
    ) -> None:
        self.items = list(items)
        self.filtered = self.items
        self.max_visible = max(1, max_visible)
        self.theme = theme or ExtensionTheme({})
        self.selected_index = 0
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.on_selection_change: Callable[[dict[str, Any]], None] | None = None

    def set_filter(self, prefix: str) -> None:
        self.filtered = [i for i in self.items if str(i.get("value", "")).lower().startswith(prefix.lower())]
        self.selected_index = 0

    def set_selected_index(self, index: int) -> None:
        self.selected_index = max(0, min(index, len(self.filtered) - 1))

    def selected(self) -> dict[str, Any] | None:
        return self.filtered[self.selected_index] if self.filtered else None

    def _move(self, index: int) -> None:
        if self.filtered and index != self.selected_index:
            self.selected_index = index
            if self.on_selection_change is not None:
                self.on_selection_change(self.filtered[index])

    def handle_input(self, data: str) -> None:
        count = len(self.filtered)
        if _KEYS.matches(data, "tui.select.up") and count:
            self._move(count - 1 if self.selected_index == 0 else self.selected_index - 1)
        elif _KEYS.matches(data, "tui.select.down") and count:
            self._move(0 if self.selected_index == count - 1 else self.selected_index + 1)
        elif _KEYS.matches(data, "tui.select.pageUp") and count:
            self._move(max(0, self.selected_index - self.max_visible))
        elif _KEYS.matches(data, "tui.select.pageDown") and count:
            self._move(min(count - 1, self.selected_index + self.max_visible))
        elif _KEYS.matches(data, "tui.select.confirm"):
            item = self.selected()
            if item is not None and self.on_select is not None:
                self.on_select(item)
        elif _KEYS.matches(data, "tui.select.cancel") and self.on_cancel is not None:
            self.on_cancel()

    def render(self, width: int) -> list[str]:
        th = self.theme
        if not self.filtered:
            return [th.fg("warning", "  No matching items")]
        count = len(self.filtered)
        start = max(0, min(self.selected_index - self.max_visible // 2, count - self.max_visible))
        end = min(count, start + self.max_visible)
        lines = [self._row(self.filtered[i], i == self.selected_index, width) for i in range(start, end)]
        if start > 0 or end < count:
            lines.append(th.fg("dim", truncate_to_width(f"  ({self.selected_index + 1}/{count})", width)))
        return lines

    def _row(self, item: dict[str, Any], selected: bool, width: int) -> str:
        th = self.theme
        prefix = "→ " if selected else "  "
        label = str(item.get("label") or item.get("value", ""))
        description = " ".join(str(item.get("description") or "").split())
        column = min(_LABEL_COLUMN, max(1, width - 6))
        if description and width > 40 and width - column - 4 > 10:
            shown = truncate_to_width(label, column - 2)
            gap = " " * max(1, column - visible_width(shown))
            tail = truncate_to_width(description, width - len(prefix) - visible_width(shown) - len(gap) - 2, "")
            if selected:
                return th.fg("accent", prefix + shown + gap + tail)
            return prefix + shown + th.fg("muted", gap + tail)
        shown = truncate_to_width(label, max(1, width - len(prefix) - 2))
        return th.fg("accent", prefix + shown) if selected else prefix + shown

    def invalidate(self) -> None:
        return None
