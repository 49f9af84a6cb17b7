"""The tool approval dialog and the "message to the model" line, as modals above the editor.

:class:`ApprovalScreen` shows the question (the command or the diff, ``+`` lines green and ``-``
lines red) and the answers; Up/Down and Enter or the digits 1–9 choose; Escape declines (None);
Ctrl-C declines *and* aborts the run, as Ctrl-C does everywhere else while the agent works.
Typing goes to a steering line under the answers: Enter queues that text as steering (as the
editor would while the agent works) and the question stays open.
:class:`MessageScreen` asks for one line of text (Enter sends, Escape cancels).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, OptionList, Static

from pi_cli.modes.display import question_line_styles
from pi_cli.modes.interactive.screens.sheet import BottomSheet


def styled_question(title: str) -> Text:
    """The question with diff lines coloured (``+n`` added, ``-n`` removed) and the first line bold."""
    text = Text()
    for line, style in question_line_styles(title, "bold", command_style="bold"):
        text.append(line + "\n", style=style)
    text.rstrip()
    return text


class SteerInput(Input):
    """The steering line; while it is empty, digits are answers (the screen's bindings), not text."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character is not None and character.isdigit() and not self.value:
            return False
        return super().check_consume_key(key, character)


class ApprovalScreen(BottomSheet[str | None]):
    """Choose one of ``options``; dismisses with the label, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "decline", "Deny", priority=True),
        Binding("ctrl+c", "abort", "Abort", priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("enter", "enter", show=False, priority=True),
        *(Binding(str(n), f"pick({n - 1})", show=False, priority=True) for n in range(1, 10)),
    ]
    DEFAULT_CSS = """
    ApprovalScreen > Vertical { max-height: 90%; border-top: hkey $warning; }
    ApprovalScreen VerticalScroll { height: auto; max-height: 24; }
    ApprovalScreen OptionList { border: none; height: auto; background: $surface; }
    ApprovalScreen #approval-hint { color: $text-muted; height: 1; }
    """

    def __init__(
        self,
        title: str,
        options: list[str],
        on_abort: Callable[[], None] | None = None,
        on_steer: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        self.question = title
        self.options = options
        self.on_abort = on_abort
        self.on_steer = on_steer

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll():
                yield Static(styled_question(self.question), id="approval-question")
            yield OptionList(*(f"{n}. {label}" for n, label in enumerate(self.options, 1)), id="approval-options")
            yield SteerInput(placeholder="type to steer (queued while this waits)", id="approval-steer")
            yield Static("1-9 / ↑↓ enter choose · esc deny · ctrl+c abort the run", id="approval-hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        self.query_one(Input).focus()

    def _steer_text(self) -> str:
        return self.query_one("#approval-steer", Input).value

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pick":  # once steering text is being typed, digits are text
            return not self._steer_text()
        return True

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        options.highlighted = ((options.highlighted or 0) + step) % len(self.options)

    def action_enter(self) -> None:
        steer = self._steer_text().strip()
        if steer:
            self.query_one("#approval-steer", Input).value = ""
            if self.on_steer is not None:
                self.on_steer(steer)
            return
        self.action_pick(self.query_one(OptionList).highlighted or 0)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_pick(event.option_index)

    def action_pick(self, index: int) -> None:
        if 0 <= index < len(self.options):
            self.dismiss(self.options[index])

    def action_decline(self) -> None:
        self.dismiss(None)

    def action_abort(self) -> None:
        self.dismiss(None)
        if self.on_abort is not None:
            self.on_abort()


class MessageScreen(BottomSheet[str | None]):
    """One line of text; dismisses with it (Enter) or None (Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", priority=True)]
    DEFAULT_CSS = """
    MessageScreen > Vertical { border-top: hkey $warning; }
    """

    def __init__(self, title: str, placeholder: str | None = None) -> None:
        super().__init__()
        self.prompt_title = title
        self.placeholder = placeholder or ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.prompt_title)
            yield Input(placeholder=self.placeholder, id="message-input")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
