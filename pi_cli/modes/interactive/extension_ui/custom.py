"""``ctx.ui.custom`` in the TUI: an extension's component as a modal screen that owns the keys.

Without ``overlay`` the component takes the editor's place: a sheet docked at the bottom, full
width (the look of every other dialog here). With ``overlay`` it floats above the transcript where
its placement says (anchor, width, max height, margin), the transcript visible around it. Being a
modal screen is what gives the component every key, Escape and Ctrl-C included (the app's
priority keys stand down while a modal is up), as pi's focused component gets them; each key is
sent as terminal data and the component is redrawn at its real width. ``done`` ends the call and
the screen goes; so does an aborted wait. A screen taken away otherwise (the app quitting) ends
the call with None, so a tool waiting on it lets the run finish.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widget import Widget

from pi_cli.extensions.rendering.component import ComponentTui, CustomOptions, HostedComponent, OverlayOptions
from pi_cli.extensions.rendering.keys import key_data
from pi_cli.modes.interactive.screens.sheet import BottomSheet

Horizontal = Literal["left", "center", "right"]
Vertical_ = Literal["top", "middle", "bottom"]
_ALIGN: dict[str, tuple[Horizontal, Vertical_]] = {  # anchor → (horizontal, vertical) screen alignment
    "center": ("center", "middle"),
    "top-left": ("left", "top"),
    "top-center": ("center", "top"),
    "top-right": ("right", "top"),
    "left-center": ("left", "middle"),
    "right-center": ("right", "middle"),
    "bottom-left": ("left", "bottom"),
    "bottom-center": ("center", "bottom"),
    "bottom-right": ("right", "bottom"),
}


class ComponentLines(Widget):
    """Draws a component's lines at the widget's width (the footer and header slots use it bare)."""

    DEFAULT_CSS = """
    ComponentLines { height: auto; width: 100%; }
    """

    def __init__(self, hosted: HostedComponent, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hosted = hosted
        self._width = 0

    def render(self) -> Text:
        width = self.content_size.width or self.app.size.width
        if width != self._width and self._width:
            self.hosted.invalidate()  # pi calls invalidate when the width changes
        self._width = width
        return Text("\n").join(Text.from_ansi(line, no_wrap=True) for line in self.hosted.lines(width))

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return len(self.hosted.lines(width))


class ComponentView(ComponentLines, can_focus=True):
    """A ``custom`` component: drawn like :class:`ComponentLines`, and sent every key."""

    DEFAULT_CSS = """
    ComponentView { background: $surface; }
    ComponentView:focus { background-tint: $foreground 0%; }
    """

    async def on_key(self, event: events.Key) -> None:
        data = key_data(event.key, event.character)
        if data is None:
            return
        event.stop()
        event.prevent_default()
        self.hosted.send(data)
        self.refresh(layout=True)


class ComponentSheet(BottomSheet[None]):
    """A component in the editor's place: docked at the bottom, full width, without the sheets'
    rule (components draw their own frame, as in pi)."""

    DEFAULT_CSS = """
    ComponentSheet > Vertical { padding: 0; max-height: 100%; border-top: none; }
    """

    def __init__(self, hosted: HostedComponent) -> None:
        super().__init__()
        self.view = ComponentView(hosted)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield self.view

    def on_mount(self) -> None:
        self.view.focus()

    def on_unmount(self) -> None:
        self.view.hosted.withdraw()  # the app is closing: the extension's await must not hang

    def redraw(self) -> None:
        self.view.refresh(layout=True)


class ComponentOverlay(ModalScreen[None]):
    """A component floating above the transcript, placed by the call's overlay options."""

    DEFAULT_CSS = """
    ComponentOverlay { background: $background 0%; }
    ComponentOverlay > ComponentView { width: auto; max-width: 100%; }
    """

    def __init__(self, hosted: HostedComponent, options: CustomOptions) -> None:
        super().__init__()
        self.options = options
        self.view = ComponentView(hosted)

    def compose(self) -> ComposeResult:
        yield self.view

    def on_mount(self) -> None:
        self.place()
        self.view.focus()

    def on_resize(self) -> None:
        self.place()

    def on_unmount(self) -> None:
        self.view.hosted.withdraw()

    def redraw(self) -> None:
        self.place()  # dynamic overlay options are asked again at each draw, as pi
        self.view.refresh(layout=True)

    def place(self) -> None:
        placement: OverlayOptions = self.options.placement(self.view.hosted.component)
        columns, rows = self.app.size
        margin = max(0, placement.margin)
        horizontal, vertical = _ALIGN.get(placement.anchor, ("center", "middle"))
        self.styles.align = (horizontal, vertical)
        # pi's margin moves the overlay in from the edges it is anchored to; a centred axis stays put.
        dx = margin if horizontal == "left" else -margin if horizontal == "right" else 0
        dy = margin if vertical == "top" else -margin if vertical == "bottom" else 0
        self.view.styles.offset = (dx, dy)
        room = max(1, columns - 2 * margin)
        width = placement.cells(placement.width, columns)
        self.view.styles.width = min(width, room) if width is not None else min(80, room)
        height = placement.cells(placement.max_height, rows)
        self.view.styles.max_height = height if height is not None else max(1, rows - 2 * margin)


class TuiComponentHost:
    """The TUI's ``present`` for :func:`pi_cli.extensions.rendering.component.run_custom`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def present(self, hosted: HostedComponent, options: CustomOptions) -> Any:
        screen: ComponentSheet | ComponentOverlay = (
            ComponentOverlay(hosted, options) if options.overlay else ComponentSheet(hosted)
        )
        hosted.tui.connect(screen.redraw, lambda: (self.app.size.width, self.app.size.height))
        self.app.push_screen(screen)

        def close() -> None:
            if screen not in self.app.screen_stack:
                return
            if self.app.screen is not screen:  # a dialog opened on top of it goes with it
                screen.pop_until_active()
            screen.dismiss(None)

        return close


class ComponentSlot:
    """A long-lived extension component standing in for one of the app's own widgets (the
    footer, the editor): :meth:`host` wraps it, a failure is reported once (``Extension <what>
    failed: …``) and :meth:`clear` puts the app's widget back (:meth:`restore`)."""

    what = "component"

    def __init__(self, app: Any, runner: Any, report: Callable[[str], None]) -> None:
        self.app = app
        self.runner = runner
        self.report = report
        self.view: ComponentLines | None = None
        self._failed: asyncio.Future[Any] | None = None  # where the component's errors land

    def host(self, component: Any, tui: ComponentTui, view_type: type[ComponentLines], id: str) -> ComponentLines:
        failed: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        failed.add_done_callback(self._on_failure)
        self._failed = failed
        self.view = view_type(HostedComponent(component, tui, failed), id=id)
        return self.view

    def _on_failure(self, failed: asyncio.Future[Any]) -> None:
        if failed.cancelled() or failed is not self._failed:
            return
        self.report(f"Extension {self.what} failed: {failed.exception()}")
        self.clear()

    def clear(self) -> None:
        view, failed = self.view, self._failed
        self.view, self._failed = None, None
        if failed is not None and not failed.done():
            failed.cancel()
        if view is not None:
            view.hosted.dispose()
            view.remove()
        self.restore()

    def restore(self) -> None:
        """Show the app's own widget again."""
