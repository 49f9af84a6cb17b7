"""Binding the session's extensions to the TUI: ``ctx.ui`` (dialogs as modal screens, notices and
errors in the transcript, statuses under the footer, widgets above the editor (or below it, with
``placement="belowEditor"``), editor text, ``custom`` components as modal screens, an extension's
footer in place of the built-in one) and
the extensions' keyboard shortcuts as priority app bindings.

``attach_extension_ui(app)`` runs once from ``PiApp.on_mount``; without extensions it does
nothing and mounts nothing. It also starts the runner (``session_start``), so a status set there
shows at once rather than after the first prompt.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from textual.binding import Binding

from pi_cli.modes.extension_bridge import bind_extension_ui, quit_when_idle, status_line, widget_lines
from pi_cli.modes.interactive.extension_ui.custom import TuiComponentHost
from pi_cli.modes.interactive.extension_ui.footer import FooterSlot
from pi_cli.modes.interactive.extension_ui.widgets import ExtensionStatusLine, ExtensionWidgetArea
from pi_cli.modes.interactive.keys import APP_KEYS, EDITOR_KEYS

# Keys the app binds outside the rebindable table (pi's ids, for the conflict lines).
_OTHER_KEYS = (("tui.altScreen.pageUp", "pageup"), ("tui.altScreen.pageDown", "pagedown"))
_TEXTUAL_SYMBOLS = {"-": "minus", "+": "plus", "/": "slash", "\\": "backslash", "@": "at", "_": "underscore"}


class ExtensionChrome:
    """What the TUI shows and binds for one session's extensions."""

    def __init__(self, app: Any, runner: Any) -> None:
        self.app = app
        self.runner = runner
        self.status = ExtensionStatusLine(id="extension-status")
        self.widgets = ExtensionWidgetArea(id="extension-widgets")
        self.widgets_below = ExtensionWidgetArea(id="extension-widgets-below")  # placement "belowEditor"
        self.shortcuts: dict[str, Any] = {}  # canonical key → Shortcut
        self.footer = FooterSlot(app, runner, lambda text: app.run_worker(app.show_notice(text, "error")))

    def on_change(self, kind: str, key: str) -> None:
        """A status, widget, title, working line, thinking label or theme changed: redraw what
        shows it only."""
        ui = self.runner.ui
        if kind == "title":  # the app's title (Textual's; the terminal's own title is not set yet)
            self.app.title = ui.title or type(self.app).TITLE
        elif kind == "working":
            self.app.working.customise(ui.working_frames, ui.working_interval_ms, ui.working_message)
            self.app.working.set_visible(ui.working_visible)
        elif kind == "thinking_label":
            self.app.set_thinking_label(ui.hidden_thinking_label)
        elif kind == "theme":
            self.app.show_theme()
        elif kind == "reload":  # the extensions were loaded again: their shortcuts too
            for line in self.bind_shortcuts():
                self.app.run_worker(self.app.show_notice(line, "warning"))
        elif kind == "autocomplete":
            self.app.editor.provider_factories = lambda: list(ui.autocomplete_factories)
        elif kind == "footer":
            self.footer.show(ui.footer)
        elif kind == "editor_component":
            if self.app.editor_slot is None:
                from pi_cli.modes.interactive.extension_ui.editor_slot import EditorSlot

                report = lambda text: self.app.run_worker(self.app.show_notice(text, "error"))  # noqa: E731
                self.app.editor_slot = EditorSlot(self.app, self.runner, report)
            self.app.editor_slot.show(ui.editor_component)
        elif kind == "header":
            self.app.header_factory = ui.header
            self.app.run_worker(self.app.transcript.replace_first(self.app.start_header))
        elif kind == "status":
            self.status.show(status_line(ui.statuses))
            self.footer.refresh()
        else:
            lines = ui.widgets.get(key)
            below = ui.placements.get(key) == "belowEditor"
            target, other = (self.widgets_below, self.widgets) if below else (self.widgets, self.widgets_below)
            other.set_widget(key, None)  # a widget may move between the two places
            target.set_widget(key, None if lines is None else widget_lines(lines))

    def bind_shortcuts(self) -> list[str]:
        """Bind the extensions' shortcuts (priority, so they work while the editor has focus);
        returns one line per conflict or bad key."""
        from pi_cli.extensions.shortcuts import builtin_keys, resolve_shortcuts

        keymap = self.app.user_keymap
        table = [(spec.id, keymap.get(spec.id, spec.keys)) for spec in (*APP_KEYS, *EDITOR_KEYS)]
        chosen, lines = resolve_shortcuts(self.runner.shortcuts, builtin_keys([*table, *_OTHER_KEYS]))
        self._unbind_shortcuts()
        for canonical, shortcut in chosen.items():
            self.shortcuts[canonical] = shortcut
            # First in the app's list for that key, so it wins over a non-reserved built-in on the
            # same key (pi: "Using <extension>"). App.bind can make neither priority nor order.
            key = textual_key(canonical)
            action = f"extension_shortcut({canonical!r})"
            binding = Binding(key, action, shortcut.description, show=False, priority=True)
            # A new list: the app's map is a shallow copy whose lists the class (every PiApp) shares.
            table_for_key = self.app._bindings.key_to_bindings
            table_for_key[key] = [binding, *table_for_key.get(key, ())]
        return lines

    def _unbind_shortcuts(self) -> None:
        """Drop the bindings an earlier :meth:`bind_shortcuts` added (``/reload`` binds afresh)."""
        table_for_key = self.app._bindings.key_to_bindings
        for key, bindings in list(table_for_key.items()):
            kept = [b for b in bindings if not str(b.action).startswith("extension_shortcut(")]
            if len(kept) != len(bindings):
                table_for_key[key] = kept
        self.shortcuts.clear()

    def hotkey_rows(self) -> list[tuple[str, str]]:
        """(key, description or extension) of every bound shortcut, for ``/hotkeys``."""
        return [(key, s.description or s.source) for key, s in self.shortcuts.items()]

    def run_shortcut(self, canonical: str) -> None:
        """Run the handler in a worker: it may open a dialog, which needs the app's message loop."""
        from pi_cli.extensions.shortcuts import run_shortcut

        shortcut = self.shortcuts.get(canonical)
        if shortcut is not None:
            self.app.run_worker(run_shortcut(self.runner, shortcut), exclusive=False)


def textual_key(canonical: str) -> str:
    """pi's canonical key (``ctrl+shift+/``) in Textual's spelling (``ctrl+shift+slash``)."""
    from pi_cli.extensions.shortcuts import split_key

    mods, name = split_key(canonical)
    if len(name) == 1 and not name.isalnum():
        name = _TEXTUAL_SYMBOLS.get(name) or unicodedata.name(name).lower().replace("-", "_").replace(" ", "_")
    elif len(name) == 1 and mods == ["shift"]:
        return name.upper()  # Textual reports Shift+a as "A"
    return "+".join([*mods, name])


def attach_extension_ui(app: Any) -> ExtensionChrome | None:
    """Mount the status line and widget area, bind ``ctx.ui`` and shortcuts, start the runner."""
    runner = app.session.extensions
    if runner is None:
        return None
    from pi_cli.modes.interactive.slash.permissions import TuiApprovalUI

    chrome = ExtensionChrome(app, runner)
    app.mount(chrome.widgets, before=app.menu)
    app.mount(chrome.widgets_below, before=app.footer_bar)
    app.mount(chrome.status, after=app.footer_bar)

    def notify(text: str, level: str) -> None:
        app.run_worker(app.show_notice(text, level if level in ("info", "warning", "error") else "info"))

    bind_extension_ui(
        app.session, TuiApprovalUI(app), notify, app.editor.set_text, chrome.on_change,
        mode="tui", shutdown=quit_when_idle(app.session, app.quit), present=TuiComponentHost(app).present,
    )  # fmt: skip
    for line in chrome.bind_shortcuts():
        notify(line, "warning")
    app.run_worker(runner.start(), exclusive=False)
    return chrome
