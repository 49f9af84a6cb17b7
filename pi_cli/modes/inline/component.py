"""``ctx.ui.custom`` in inline mode: the component drawn in the prompt's place, fed every key.

While a component is up, its lines replace the prompt row (the live area above and the footer
stay) and every key goes to it as the raw terminal data prompt_toolkit read — exactly what pi's
components get — through bindings that outrank the app's own (Escape and Ctrl-C included). The
``overlay`` option draws it in the same place: the inline front end has no layer above the
scrollback. ``done`` takes it away and the prompt comes back.
"""

from __future__ import annotations

from typing import Any

from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples, to_formatted_text
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, Container, FormattedTextControl, HSplit, Window

from pi_cli.extensions.rendering.component import CustomOptions, HostedComponent

# Not keys: terminal reports and events no component should see.
_NOT_KEYS = {Keys.Any, Keys.ScrollUp, Keys.ScrollDown, Keys.CPRResponse, Keys.Vt100MouseEvent,
             Keys.WindowsMouseEvent, Keys.BracketedPaste, Keys.SIGINT, Keys.Ignore}  # fmt: skip


class InlineComponents:
    """The inline front end's ``present`` and the layout and keys that serve it."""

    def __init__(self) -> None:
        self.active: HostedComponent | None = None

    def _width(self) -> int:
        return max(1, get_app().output.get_size().columns)

    def present(self, hosted: HostedComponent, options: CustomOptions) -> Any:
        self.active = hosted
        hosted.tui.connect(self._redraw, self._size)
        self._redraw()

        def close() -> None:
            if self.active is hosted:
                self.active = None
                self._redraw()

        return close

    def _size(self) -> tuple[int, int]:
        size = get_app().output.get_size()
        return size.columns, size.rows

    def _redraw(self) -> None:
        get_app().invalidate()

    def _lines(self) -> StyleAndTextTuples:
        hosted = self.active
        if hosted is None:
            return []
        return to_formatted_text(ANSI("\n".join(hosted.lines(self._width()))))

    def around(self, prompt_row: Container) -> Container:
        """``prompt_row`` while no component is up, the component's lines while one is."""
        showing = Condition(lambda: self.active is not None)
        lines = Window(FormattedTextControl(self._lines), dont_extend_height=True, wrap_lines=False)
        return HSplit([ConditionalContainer(lines, showing), ConditionalContainer(prompt_row, ~showing)])

    def key_bindings(self) -> KeyBindings:
        """Every key to the active component (merge after the app's bindings: later ones win)."""
        keys = KeyBindings()
        showing = Condition(lambda: self.active is not None)

        def send(event: KeyPressEvent) -> None:
            hosted = self.active
            if hosted is not None:
                for press in event.key_sequence:
                    hosted.send(press.data)
                self._redraw()

        for key in [*(k for k in Keys if k not in _NOT_KEYS), Keys.Any]:
            keys.add(key, filter=showing, eager=True)(send)
        return keys
