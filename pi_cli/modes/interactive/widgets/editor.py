"""The prompt editor: a multi-line ``TextArea`` with pi's keys, history and completion.

Enter submits (priority binding, so the TextArea never inserts a newline for it), Alt+Enter
submits as a follow-up, Shift+Enter and Ctrl-J insert a newline. Up on the first line and Down on
the last line walk the history. While the completion menu is open, Up/Down move in it, Tab and
Enter accept, Escape closes it (the app's Escape binding asks ``close_menu`` first).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from pi_cli.modes.completion import (
    BuiltinProvider,
    Completion,
    ProviderStack,
    apply_completion,
    argument_completions,
    command_completions,
    no_arguments,
    path_completions,
)
from pi_cli.modes.interactive.keys import EDITOR_KEYS
from pi_cli.modes.interactive.restyle import CoalescedRepaint

HISTORY_LIMIT = 500


# Handled in ``_on_key``, in order with the typed characters. As app-level priority bindings they
# ran before earlier keys of the same burst reached the TextArea (tmux send-keys, fast typing
# while streaming), so Enter submitted an empty editor and was lost.
_IN_ORDER = ("submit", "follow_up", "newline")


class CompletionMenu(OptionList, CoalescedRepaint):
    """Candidates shown above the editor; the editor drives it, it never takes focus."""

    DEFAULT_CSS = """
    CompletionMenu {
        height: auto; max-height: 10; border: none; padding: 0 1;
        background: $panel; display: none;
    }
    CompletionMenu.-open { display: block; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = False
        self.items: list[Completion] = []

    def show(self, items: list[Completion]) -> None:
        self.items = items
        self.clear_options()
        if not items:
            self.remove_class("-open")
            return
        width = max(len(item.label) for item in items) + 2
        self.add_options([Option(f"{item.label.ljust(width)}{item.description}") for item in items])
        self.highlighted = 0
        self.add_class("-open")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def close(self) -> None:
        self.items = []
        self.remove_class("-open")

    def current(self) -> Completion | None:
        if not self.is_open or self.highlighted is None or self.highlighted >= len(self.items):
            return None
        return self.items[self.highlighted]


class PromptEditor(TextArea, CoalescedRepaint):
    """The input box."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(spec.keys, spec.action, spec.description, id=spec.id, show=False)
        for spec in EDITOR_KEYS
        if spec.action not in _IN_ORDER
    ]

    DEFAULT_CSS = """
    PromptEditor, PromptEditor:focus {
        height: auto; min-height: 1; max-height: 50vh;
        border: none; border-top: solid $primary; border-bottom: solid $primary;
        padding: 0 1; background: $background;
    }
    PromptEditor.-bash { border-top: solid $warning; border-bottom: solid $warning; }
    PromptEditor.-thinking-high { border-top: solid $accent; border-bottom: solid $accent; }
    """

    paste_filter: Callable[[str], bool] | None = None
    """Set by the app: sees each paste first and returns True when it took it (an image path)."""

    async def _on_paste(self, event: events.Paste) -> None:
        # Textual calls each class's handler down the MRO: preventing the default keeps
        # TextArea's from inserting a paste the filter took.
        if self.paste_filter is not None and self.paste_filter(event.text):
            event.prevent_default()
            event.stop()

    @dataclass
    class Submitted(Message):
        """The user sent ``text`` (``follow_up``: with Alt+Enter)."""

        editor: PromptEditor
        text: str
        follow_up: bool = False

    def __init__(self, *, cwd: Path, id: str | None = None) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
        )
        # pi's cursor does not blink; a blinking one repaints the editor twice a second, idle or not.
        self.cursor_blink = False
        self.cwd = cwd
        self.prompt_history: list[str] = []
        self._history_index: int | None = None
        self._draft = ""
        self._menu_text = ""  # the text the completion menu was computed for
        self.menu: CompletionMenu | None = None
        self.commands: Callable[[], list[tuple[str, str]]] = list
        # ``(command, prefix)`` → an extension command's own argument completions
        self.arguments: Callable[[str, str], list[dict[str, str]]] = no_arguments
        # extensions' autocomplete providers (a factory list, newest last); the stack is built on use
        self.provider_factories: Callable[[], list[Callable[[Any], Any]]] = list
        self._providers = ProviderStack(
            lambda: BuiltinProvider(self.commands, self.arguments, self.cwd), self._provider_failed
        )
        self._pending_suggestions: asyncio.Task[None] | None = None
        self.key_actions: dict[str, str] = {}
        self.set_keymap({})

    def set_keymap(self, keymap: dict[str, str]) -> None:
        """Keys for submit / follow-up / newline, after ``keybindings.json`` overrides."""
        self.key_actions = {}
        for spec in EDITOR_KEYS:
            if spec.action in _IN_ORDER:
                for key in keymap.get(spec.id, spec.keys).split(","):
                    self.key_actions[key.strip()] = spec.action

    async def _on_key(self, event: events.Key) -> None:
        action = self.key_actions.get(event.key)
        if action is None:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        if action == "submit":
            self.action_submit()
        elif action == "follow_up":
            self.action_follow_up()
        else:
            self.action_newline()

    # --- text helpers -------------------------------------------------------------------------

    def set_text(self, text: str) -> None:
        """Replace the content and put the cursor at the end."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    def _offset_at_cursor(self) -> int:
        row, column = self.cursor_location
        lines = self.text.split("\n")
        return sum(len(line) + 1 for line in lines[:row]) + column

    # --- history ------------------------------------------------------------------------------

    def remember(self, text: str) -> None:
        if text.strip() and (not self.prompt_history or self.prompt_history[-1] != text):
            self.prompt_history.append(text)
            del self.prompt_history[:-HISTORY_LIMIT]
        self._history_index = None

    def _history_step(self, step: int) -> bool:
        if not self.prompt_history:
            return False
        if self._history_index is None:
            if step > 0:
                return False
            self._draft = self.text
            index = len(self.prompt_history) - 1
        else:
            index = self._history_index + step
        if index >= len(self.prompt_history):
            self._history_index = None
            self.set_text(self._draft)
            return True
        if index < 0:
            return True
        self._history_index = index
        self.set_text(self.prompt_history[index])
        return True

    # --- completion ---------------------------------------------------------------------------

    def refresh_completions(self) -> None:
        if self.menu is None:
            return
        text = self.text
        self._menu_text = text
        provider = self._provider()
        if provider is not None:
            self._suggest(provider, text)
            return
        items = command_completions(text, self.commands()) or argument_completions(text, self.arguments)
        if not items:
            items = path_completions(text, self._offset_at_cursor(), self.cwd)
        self._show_items(items)

    def _show_items(self, items: list[Completion]) -> None:
        if self.menu is None:
            return
        if items:
            self.menu.show(items)
        else:
            self.menu.close()

    def _provider(self) -> Any:
        """The top of the extensions' provider stack (None without any: the built-in rules)."""
        return self._providers.top(self.provider_factories())

    def _provider_failed(self, exc: BaseException) -> None:
        self.notify(f"Autocomplete provider failed: {type(exc).__name__}: {exc}", severity="error")

    def _suggest(self, provider: Any, text: str) -> None:
        """Ask ``provider``; an async one answers later, shown only if the text is unchanged."""
        from pi_cli.modes.completion import is_pending, suggest, to_completions

        cursor = self._offset_at_cursor()
        if self._pending_suggestions is not None:
            self._pending_suggestions.cancel()
            self._pending_suggestions = None
        try:
            answer = suggest(provider, text, cursor)
        except Exception as exc:
            self._provider_failed(exc)
            return
        if not is_pending(answer):
            self._show_items(to_completions(answer, cursor))
            return

        async def later() -> None:
            try:
                done = await answer
            except Exception as exc:
                self._provider_failed(exc)
                return
            if self.text == text:
                self._show_items(to_completions(done, cursor))

        self._pending_suggestions = asyncio.get_running_loop().create_task(later())

    def close_menu(self) -> bool:
        """Close the completion menu; True if it was open."""
        if self.menu is not None and self.menu.is_open:
            self.menu.close()
            return True
        return False

    def _accept(self, completion: Completion) -> None:
        text, offset = apply_completion(self.text, completion)
        self.load_text(text)
        before = text[:offset]
        self.move_cursor((before.count("\n"), offset - (before.rfind("\n") + 1)))
        if completion.value.endswith("/"):
            self.refresh_completions()
        elif self.menu is not None:
            self.menu.close()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.set_class(self.text.startswith("!"), "-bash")
        if self.text and (self.text.startswith("/") or "@" in self.text or self.provider_factories()):
            self.refresh_completions()
        elif self.menu is not None and self.menu.is_open:
            self.menu.close()

    # --- actions ------------------------------------------------------------------------------

    def action_submit(self) -> None:
        if self.menu is not None and self.menu.is_open and self.text != self._menu_text:
            # Keys typed fast: the menu still lists what an earlier text completed to ("/" → /model),
            # and applying that to "/hotkeys" made "/model hotkeys". Complete the text as it is now.
            self.refresh_completions()
        current = self.menu.current() if self.menu is not None else None
        if current is not None:
            self._accept(current)
            if current.kind != "command" or self.text.strip() != current.value.strip():
                return
        self._send(follow_up=False)

    def action_follow_up(self) -> None:
        self.close_menu()
        self._send(follow_up=True)

    def _send(self, *, follow_up: bool) -> None:
        text = self.text
        if not text.strip():
            return
        self.remember(text)
        self.load_text("")
        self.close_menu()
        self.post_message(self.Submitted(self, text, follow_up))

    def action_newline(self) -> None:
        self.insert("\n")

    def action_complete(self) -> None:
        current = self.menu.current() if self.menu is not None else None
        if current is not None:
            self._accept(current)
            return
        _start, token = _token_before(self.text, self._offset_at_cursor())
        if token and not token.startswith("@") and ("/" in token or token.startswith(".")):
            # Plain path token: complete it as if it had an "@" (then drop the "@").
            offset = self._offset_at_cursor()
            items = path_completions(self.text[: offset - len(token)] + "@" + token, offset + 1, self.cwd)
            if len(items) == 1:
                item = items[0]
                self._accept(Completion(item.start, item.end - 1, item.value[1:], item.label))
                return
        self.refresh_completions()

    def action_cursor_up(self, select: bool = False) -> None:
        if self.menu is not None and self.menu.is_open and not select:
            self.menu.action_cursor_up()
            return
        if not select and self.cursor_location[0] == 0 and self._history_step(-1):
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if self.menu is not None and self.menu.is_open and not select:
            self.menu.action_cursor_down()
            return
        last_row = self.document.line_count - 1
        if not select and self.cursor_location[0] >= last_row and self._history_step(1):
            return
        super().action_cursor_down(select)


def _token_before(text: str, cursor: int) -> tuple[int, str]:
    start = cursor
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return start, text[start:cursor]
