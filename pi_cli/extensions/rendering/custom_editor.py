"""pi's ``CustomEditor`` for ``ctx.ui.set_editor_component``: the prompt editor as a component an
extension may subclass (a modal editor, a styled one) and the TUI shows in place of its own.

``CustomEditor(tui, theme, keybindings)`` edits a multi-line text (:class:`TextEditor`) and draws
it between two rules. ``handle_input(data)`` takes pi's terminal key data: Enter submits,
Alt+Enter submits as a follow-up, Shift+Enter / Ctrl-J break the line, and Escape, Ctrl-C and
Ctrl-D go to the front end's own actions (interrupt, clear or abort, exit) — so a subclass that
wants a key first handles it before calling ``super().handle_input(data)``, as pi's examples do.
``render(width)`` returns the lines; a subclass may restyle them.

The front end sets ``on_submit(text, follow_up)``, ``on_action(name)`` (``"interrupt"``,
``"clear"``, ``"exit"``) and ``on_change(text)``; the text the editor shows is the front end's
prompt text (``get_text()``/``set_text()`` both ways), so queued messages put back, pastes and
``ctx.ui.set_editor_text`` reach it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_cli.extensions.rendering.keys import Keybindings, matches_key
from pi_cli.extensions.rendering.text_editor import TextEditor
from pi_cli.extensions.rendering.theme import ExtensionTheme

_ACTIONS = (("escape", "interrupt"), ("ctrl+c", "clear"), ("ctrl+d", "exit"))


def _ignore(*args: Any) -> None:
    return None


class CustomEditor:
    """The prompt editor as an extension's component (subclass it; see the module doc)."""

    def __init__(self, tui: Any, theme: ExtensionTheme, keybindings: Keybindings | None = None) -> None:
        self.tui, self.theme = tui, theme
        self.keybindings = keybindings if keybindings is not None else Keybindings()
        self.editor = TextEditor("")
        self.on_submit: Callable[[str, bool], None] = _ignore
        self.on_action: Callable[[str], None] = _ignore
        self.on_change: Callable[[str], None] = _ignore

    def get_text(self) -> str:
        return self.editor.text

    def set_text(self, text: str) -> None:
        """Show ``text`` with the cursor at its end (the front end's text changed)."""
        if text != self.editor.text:
            self.editor = TextEditor(text)

    def border_color(self, text: str) -> str:
        return self.theme.fg("borderMuted", text)

    def handle_input(self, data: str) -> None:
        for key, action in _ACTIONS:
            if matches_key(data, key):
                self.on_action(action)
                return
        if matches_key(data, "enter") or matches_key(data, "alt+enter"):
            text = self.editor.text
            if text.strip():
                self.on_submit(text, matches_key(data, "alt+enter"))
                self.set_text("")
                self.on_change("")
            return
        before = self.editor.text
        self.editor.handle_input(data)
        if self.editor.text != before:
            self.on_change(self.editor.text)

    def render(self, width: int) -> list[str]:
        rule = self.border_color("─" * max(1, width))
        return [rule, *self.editor.render(width), rule]
