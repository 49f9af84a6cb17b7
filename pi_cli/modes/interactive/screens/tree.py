"""The ``/tree`` navigator: every entry of the session file as an indented tree.

Rows read like pi's: ``• user: hello``, ``• assistant: …``, ``• [bash]: echo x``,
``• [compaction: 12k tokens]``. ``›`` marks the selection and ``(i/n)`` counts rows. A linear run
of entries stays in one column; the branches below a branch point hang off ``├─``/``└─``
connectors, oldest first. Entries off the current path are dimmed. Bookkeeping entries
(model and thinking-level changes, labels, custom state, session names) are left out.
Up/Down/PageUp/PageDown/Home/End move, typing searches, Enter dismisses with the entry id, Escape
with None. The screen only picks; what selecting means is ``session_commands``' business.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from pi_cli.modes.interactive.screens.sheet import BottomSheet, list_keys
from pi_cli.modes.tree_rows import TreeRow, flatten, initial_index

__all__ = ["TreeRow", "TreeScreen", "flatten", "initial_index"]

PAGE = 15


class TreeScreen(BottomSheet[str | None]):
    """Choose an entry of the session tree; dismisses with its id or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *list_keys("Select"),
        Binding("pageup", "move(-15)", show=False, priority=True),
        Binding("pagedown", "move(15)", show=False, priority=True),
        Binding("home", "jump(0)", show=False, priority=True),
        Binding("end", "jump(-1)", show=False, priority=True),
    ]

    DEFAULT_CSS = """
    TreeScreen > Vertical { max-height: 90%; }
    TreeScreen #tree-title, TreeScreen #tree-hint { color: $text-muted; height: 1; }
    TreeScreen #tree-body { height: auto; }
    """

    def __init__(self, rows: list[TreeRow], selected: int = 0, leaf_id: str | None = None) -> None:
        super().__init__()
        self.rows = rows
        self.leaf_id = leaf_id
        self.shown: list[TreeRow] = list(rows)
        self.index = min(selected, max(0, len(rows) - 1))

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Session Tree", id="tree-title")
            yield Input(placeholder="type to search", id="tree-search")
            yield Static(id="tree-body")
            yield Static("↑↓ move · enter select · esc cancel", id="tree-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._render_rows()

    @property
    def current(self) -> TreeRow | None:
        return self.shown[self.index] if 0 <= self.index < len(self.shown) else None

    def _render_rows(self) -> None:
        body = Text()
        if not self.shown:
            body.append("  (no entries)", style="dim")
        start = max(0, min(self.index - PAGE // 2, len(self.shown) - PAGE))
        for n in range(start, min(len(self.shown), start + PAGE)):
            row = self.shown[n]
            marker = "› " if n == self.index else "  "
            style = "bold" if n == self.index else ("" if row.on_path else "dim")
            suffix = (f" [{row.label}]" if row.label else "") + ("  ← current" if row.entry_id == self.leaf_id else "")
            width = max(40, self.size.width - 4) if self.size.width else 200
            line = f"{marker}{row.prefix}• {row.text}"[: width - len(suffix)]
            body.append(line + suffix + "\n", style=style)
        body.append(f"({self.index + 1 if self.shown else 0}/{len(self.shown)})", style="dim")
        self.query_one("#tree-body", Static).update(body)

    @on(Input.Changed, "#tree-search")
    def _search(self, event: Input.Changed) -> None:
        keep = self.current
        words = event.value.lower().split()
        self.shown = [row for row in self.rows if all(w in row.text.lower() for w in words)]
        self.index = self.shown.index(keep) if keep in self.shown else max(0, len(self.shown) - 1)
        self._render_rows()

    def action_move(self, step: int) -> None:
        if self.shown:
            self.index = max(0, min(len(self.shown) - 1, self.index + step))
            self._render_rows()

    def action_jump(self, where: int) -> None:
        if self.shown:
            self.index = where % len(self.shown)
            self._render_rows()

    def action_choose(self) -> None:
        row = self.current
        self.dismiss(row.entry_id if row is not None else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class SummarizingScreen(BottomSheet[None]):
    """Shown while the abandoned branch is summarised; Escape calls ``on_cancel`` (pi's loader:
    ``Summarizing branch... (escape to cancel)``). The caller dismisses it when the work ends."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,ctrl+c", "cancel", "Cancel", priority=True)]

    DEFAULT_CSS = """
    SummarizingScreen > Static { width: 100%; height: 1; background: $surface; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, on_cancel: Callable[[], None]) -> None:
        super().__init__()
        self.on_cancel = on_cancel

    def compose(self) -> ComposeResult:
        yield Static("Summarizing branch... (escape to cancel)")

    def action_cancel(self) -> None:
        self.on_cancel()


class InstructionsScreen(BottomSheet[str | None]):
    """One line of text (``Custom summarization instructions``): Enter dismisses with it, Escape with None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,ctrl+c", "cancel", "Cancel", priority=True)]

    DEFAULT_CSS = """
    InstructionsScreen #instructions-title { color: $text-muted; height: 1; }
    """

    def __init__(self, title: str) -> None:
        super().__init__()
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="instructions-title")
            yield Input(placeholder="enter to confirm, esc to go back", id="instructions")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#instructions")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
