"""A filterable list in a modal: the model picker, thinking levels, settings values.

Type to filter, Up/Down to move, Enter to choose, Escape or Ctrl-C to cancel (as pi). Dismisses with the chosen
item's key (or None).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from pi_cli.modes.interactive.screens.sheet import BottomSheet, list_keys


@dataclass(frozen=True, slots=True)
class PickItem:
    key: str
    label: str
    detail: str = ""
    current: bool = False


class PickerScreen(BottomSheet[str | None]):
    """Choose one of ``items``."""

    BINDINGS: ClassVar[list[BindingType]] = list_keys("Choose")

    DEFAULT_CSS = """
    PickerScreen > Vertical { max-height: 80%; }
    PickerScreen #picker-title { color: $text-muted; height: 1; }
    PickerScreen #picker-note { height: auto; max-height: 14; }
    PickerScreen OptionList { border: none; height: auto; max-height: 20; background: $surface; }
    """

    def __init__(
        self, title: str, items: list[PickItem], query: str = "", highlight: str | None = None, note: str = ""
    ) -> None:
        """``highlight``: key of the row to start on (default: the current item, else the first);
        ``note``: lines shown under the title, what the choice is about (e.g. the files a rewind
        restores), drawn as plain text."""
        super().__init__()
        self.title_text = title
        self.note = note
        self.items = items
        self.initial_query = query
        self.highlight = highlight
        self.shown: list[PickItem] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="picker-title")
            if self.note:
                yield Static(self.note, id="picker-note", markup=False)
            yield Input(value=self.initial_query, placeholder="type to filter", id="picker-filter")
            yield OptionList(id="picker-list")

    def on_mount(self) -> None:
        self._fill(self.initial_query)
        self.query_one(Input).focus()

    def _fill(self, query: str) -> None:
        words = query.lower().split()
        self.shown = [
            item for item in self.items if all(w in f"{item.key} {item.label} {item.detail}".lower() for w in words)
        ]
        options = self.query_one(OptionList)
        options.clear_options()
        width = max((len(i.label) for i in self.shown), default=0) + 2
        options.add_options(
            [Option(f"{'✓' if item.current else ' '} {item.label.ljust(width)}{item.detail}") for item in self.shown]
        )
        if self.shown:
            current = next((n for n, item in enumerate(self.shown) if item.key == self.highlight), None)
            if current is None:
                current = next((n for n, item in enumerate(self.shown) if item.current), 0)
            options.highlighted = current

    @on(Input.Changed, "#picker-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = ((options.highlighted or 0) + step) % options.option_count

    def action_choose(self) -> None:
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None or index >= len(self.shown):
            self.dismiss(None)
            return
        self.dismiss(self.shown[index].key)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_index < len(self.shown):
            self.dismiss(self.shown[event.option_index].key)

    def action_cancel(self) -> None:
        self.dismiss(None)
