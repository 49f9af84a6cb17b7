"""``ctx.ui.set_editor_component`` in the TUI: an extension's editor in place of the built-in one.

The built-in editor stays as the model of the prompt text (hidden: queued messages put back,
pastes, ``set_editor_text``, the quit guard all keep using it); the extension's component shows
that text and edits it, written through on every change, and gets every key. The app's Escape,
Ctrl-C and Ctrl-D reach the component first (:meth:`EditorSlot.first`), which hands them back
as actions when it does not want them — pi's ``CustomEditor`` contract. A factory or component
that raises is reported once and the built-in editor comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_cli.extensions.rendering.component import ComponentTui
from pi_cli.extensions.rendering.keys import Keybindings
from pi_cli.modes.interactive.extension_ui.custom import ComponentSlot, ComponentView

ACTION_KEYS = {"interrupt": "\x1b", "clear": "\x03", "exit": "\x04"}


class EditorSlot(ComponentSlot):
    """Shows ``runner.ui.editor_component`` (a factory or None) in place of ``app.editor``."""

    what = "editor"

    def __init__(self, app: Any, runner: Any, report: Callable[[str], None]) -> None:
        super().__init__(app, runner, report)
        self.component: Any = None
        self._acting = False  # the component handed a key back: the app's own action runs

    @property
    def active(self) -> bool:
        return self.view is not None

    def show(self, factory: Callable[..., Any] | None) -> None:
        self.clear()
        if factory is None:
            return
        tui = ComponentTui()
        try:
            component = factory(tui, self.runner.theme(), Keybindings())
        except Exception as exc:  # the extension's bug: keep the built-in editor
            self.report(f"Extension editor failed: {exc}")
            return
        self.component = component
        if hasattr(component, "on_submit"):  # pi's CustomEditor: the app answers its three calls
            component.on_submit = self._submit
            component.on_action = self._action
            component.on_change = self._write_through
        self.sync(self.app.editor.text)
        view = self.host(component, tui, ComponentView, "extension-editor")

        def redraw() -> None:
            view.refresh(layout=True)

        tui.connect(redraw, lambda: (self.app.size.width, self.app.size.height))
        self.app.editor.display = False
        self.app.mount(view, before=self.app.editor)
        view.focus()

    def sync(self, text: str) -> None:
        """The prompt text changed elsewhere (a restored queue, a paste): show it."""
        setter = getattr(self.component, "set_text", None)
        if callable(setter) and getattr(self.component, "get_text", lambda: None)() != text:
            setter(text)
            if self.view is not None:
                self.view.refresh(layout=True)

    def first(self, action: str) -> bool:
        """An app key (Escape, Ctrl-C, Ctrl-D) goes to the component first; True when it was
        sent there (the component hands it back through ``on_action`` if it does not want it)."""
        if self.view is None or self._acting:
            return False
        self.view.hosted.send(ACTION_KEYS[action])
        self.view.refresh(layout=True)
        return True

    def _submit(self, text: str, follow_up: bool) -> None:
        self.app.run_worker(self.app.submit(text, follow_up=follow_up))

    def _write_through(self, text: str) -> None:
        if self.app.editor.text != text:
            self.app.editor.load_text(text)

    def _action(self, name: str) -> None:
        async def run() -> None:
            self._acting = True
            try:
                await self.app.run_action(_APP_ACTIONS[name])
            finally:
                self._acting = False

        if name in _APP_ACTIONS:
            self.app.run_worker(run())

    def restore(self) -> None:
        self.component = None
        self.app.editor.display = True
        self.app.editor.focus()


_APP_ACTIONS = {"interrupt": "interrupt", "clear": "clear_or_abort", "exit": "exit_if_empty"}
