"""Cheaper paints: a compositor that renders only the rows it repaints, and resizes without an
echoed layout.

Textual's partial update (a spinner frame, one streamed line, a cursor blink) takes the bounding
box of the dirty regions as its crop, but then asks every widget whose *clip* overlaps that crop
for all of its visible lines, and throws away the rows outside the crop afterwards. For widgets
laid out directly on the screen the clip is the whole screen, so one spinner frame re-rendered
the editor, the footer and the transcript's visible lines (cached, but still walked line by line
through the styles cache): about 1.6 ms a frame on this machine, twenty-odd frames a second
while a model streams. Here each widget is asked only for the rows inside the crop.

This leans on ``Compositor._get_renders`` / ``Screen._compositor``, private to Textual; the
contract (what ``_render_chops`` consumes) is pinned by tests/ui/test_main_screen.py, which
compares every paint against Textual's own compositor.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from textual import events
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from pi_cli.modes.interactive.restyle import CoalescedRepaint
from pi_cli.modes.interactive.widgets.shown_rows import ShownChopsUpdate, ShownLayoutUpdate, ShownRows

if TYPE_CHECKING:
    from rich.console import RenderableType


class RowCroppedCompositor(Compositor):
    """A compositor whose partial renders touch only the rows being repainted, and whose updates
    write only what the terminal does not show yet (scrolling a moved band instead of rewriting
    it: :mod:`.shown_rows`). ``paints`` counts the updates it has rendered for the terminal
    (``KeysFirst`` waits on it)."""

    _wanted: Callable[[int], bool] | None = None
    paints = 0

    def __init__(self) -> None:
        super().__init__()
        self.shown = ShownRows()
        """What this compositor's updates put on the terminal (see :mod:`.shown_rows`)."""

    def render_update(
        self, full: bool = False, screen_stack: list[Screen[Any]] | None = None, simplify: bool = False
    ) -> RenderableType | None:
        self.paints += 1
        return super().render_update(full, screen_stack, simplify)

    def render_full_update(self, simplify: bool = False) -> LayoutUpdate:
        update = super().render_full_update(simplify)
        return ShownLayoutUpdate(update.strips, update.region, self.shown)

    def render_partial_update(self) -> ChopsUpdate | None:
        update = super().render_partial_update()
        if update is None:
            return None
        return ShownChopsUpdate(update.chops, update.spans, update.chop_ends, self.shown, self.size)

    def _render_chops(self, crop: Region, is_rendered_line: Callable[[int], bool]) -> Sequence[Mapping[int, Strip]]:
        # The crop is the bounding box of the dirty regions (a streamed line and the spinner
        # far below it): only its dirty rows are written, so only they need rendering.
        self._wanted = is_rendered_line
        try:
            return super()._render_chops(crop, is_rendered_line)
        finally:
            self._wanted = None

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None:
            yield from super()._get_renders(crop)
            return
        wanted = self._wanted
        spans: list[tuple[int, int, int, int]] = []  # (left, right, top, bottom) drawn in front
        for widget, (region, clip) in self.visible_widgets.items():
            first, end = max(crop.y, region.y, clip.y), min(crop.bottom, region.bottom, clip.bottom)
            left, right = max(region.x, clip.x), min(region.right, clip.right)
            hidden = _covered_rows(spans, left, right, first, end)
            spans.append((left, right, max(region.y, clip.y), min(region.bottom, clip.bottom)))
            for top, bottom in _runs(first, end, wanted, hidden):
                # ``_render_chops`` places strips from the top of region ∩ clip; narrowing the
                # clip to a run of rows keeps that contract while the widget renders only those.
                rows = clip.intersection(Region(clip.x, top, clip.width, bottom - top))
                visible = region.intersection(rows)
                if visible.width <= 0 or visible.height <= 0:
                    continue
                lines = widget.render_lines(
                    Region(visible.x - region.x, visible.y - region.y, visible.width, visible.height)
                )
                yield region, rows, lines


def _covered_rows(spans: Sequence[tuple[int, int, int, int]], left: int, right: int, top: int, bottom: int) -> set[int]:
    """The rows in ``[top, bottom)`` where a span drawn in front covers all of ``[left, right)``.

    The compositor paints front to back and the first strip for a cut wins (no blending: a
    transparent background is resolved when the widget renders), so such rows of a widget behind
    are never seen. The screen behind everything, and a message's container behind its blocks,
    were rendered in full on every full repaint (a theme switch, a resize) and then discarded."""
    hidden: set[int] = set()
    for span_left, span_right, span_top, span_bottom in spans:
        if span_left <= left and span_right >= right:
            hidden.update(range(max(top, span_top), min(bottom, span_bottom)))
    return hidden


def _runs(
    top: int, bottom: int, wanted: Callable[[int], bool] | None, hidden: set[int] | None = None
) -> Iterator[tuple[int, int]]:
    """The runs ``[start, end)`` of consecutive rows in ``[top, bottom)`` that ``wanted`` accepts
    (all of them when it is None) and that are not ``hidden``."""
    if wanted is None and not hidden:
        if top < bottom:
            yield top, bottom
        return
    start: int | None = None
    for y in range(top, bottom):
        if (wanted is None or wanted(y)) and not (hidden and y in hidden):
            if start is None:
                start = y
        elif start is not None:
            yield start, y
            start = None
    if start is not None:
        yield start, bottom


class LaidOutOnce(Widget):
    """A widget whose resize needs no second layout pass.

    When a layout changes a widget's size, Textual's ``_size_updated`` also sets the widget's
    ``virtual_size``, a reactive declared with ``layout=True``, so every growth of a streamed
    answer cost two layouts of the whole screen (each followed by a full repaint): one for the
    growth and one for the echo. A widget that does not scroll has nothing to re-arrange when its
    virtual size follows its size, so here that echo is set without asking for a layout.
    """

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


class MainScreen(Screen[None], CoalescedRepaint):
    """The default screen of :class:`~pi_cli.modes.interactive.app.PiApp`."""

    def __init__(self) -> None:
        super().__init__(id="_default")  # the id Textual gives its own default screen
        self._rows = RowCroppedCompositor()
        self._compositor = self._rows

    def on_mount(self) -> None:
        # Whatever runs while the app is suspended (an external editor, a shell) draws on the
        # terminal too: the compositor's record of its rows is void from then on.
        self.app.app_suspend_signal.subscribe(self, lambda _app: self._rows.shown.forget())

    def on_screen_suspend(self) -> None:
        # (Textual calls each class's handler along the MRO: no super() here.)
        self._rows.shown.forget()  # the screen above paints over this one's rows

    @property
    def paints(self) -> int:
        """Updates painted so far (full or partial)."""
        return self._rows.paints

    echo_window = 0.05
    """Seconds after a key during which the screen paints as soon as it is idle and dirty."""

    _key_at = -1.0

    def key_arrived(self) -> None:
        """A key (or paste) reached the app: its echo is painted as soon as it is ready instead of
        at the next tick of Textual's update timer (up to 1/60 s later; a typing person notices
        that more than a stream frame that waits the same)."""
        self._key_at = time.perf_counter()

    _soon_until = -1.0

    def paint_soon(self, window: float = 0.05) -> None:
        """For the next ``window`` seconds, paint whatever is dirty as soon as the screen is idle
        (a theme switch: its widgets' repaint requests reach the screen one by one, after the
        restyle; waiting for the update timer's next tick added ~20 ms to what a person sees)."""
        self._soon_until = time.perf_counter() + window

    @property
    def paints_when_idle(self) -> bool:
        """Whether a :meth:`paint_soon` window is open now."""
        return time.perf_counter() < self._soon_until

    async def _on_idle(self, event: events.Idle) -> None:
        dirty = self._layout_required or self._scroll_required or self._repaint_required or self._dirty_widgets
        if dirty and not self.app._batch_count:
            now = time.perf_counter()
            if now - self._key_at < self.echo_window:
                self._key_at = -1.0
                self._on_timer_update()  # what the update timer would do at its next tick, now
            elif self.paints_when_idle:
                self._on_timer_update()
        await super()._on_idle(event)
