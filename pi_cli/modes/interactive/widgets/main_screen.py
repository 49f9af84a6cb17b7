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

from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget


class RowCroppedCompositor(Compositor):
    """A compositor whose partial renders touch only the rows being repainted."""

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None:
            yield from super()._get_renders(crop)
            return
        top, bottom = crop.y, crop.bottom
        for widget, (region, clip) in self.visible_widgets.items():
            # ``_render_chops`` places strips from the top of region ∩ clip; narrowing the clip
            # to the crop's rows keeps that contract while the widget renders only those rows.
            rows = clip.intersection(Region(clip.x, top, clip.width, bottom - top))
            visible = region.intersection(rows)
            if visible.width <= 0 or visible.height <= 0:
                continue
            lines = widget.render_lines(
                Region(visible.x - region.x, visible.y - region.y, visible.width, visible.height)
            )
            yield region, rows, lines


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


class MainScreen(Screen[None]):
    """The default screen of :class:`~pi_cli.modes.interactive.app.PiApp`."""

    def __init__(self) -> None:
        super().__init__(id="_default")  # the id Textual gives its own default screen
        self._compositor = RowCroppedCompositor()
