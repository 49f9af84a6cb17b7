"""The transcript's vertical scrollbar, drawn from a handful of reused strips.

While the view follows a streamed answer the scrollbar changes on nearly every frame (the
content grows, the thumb shrinks and moves). Textual draws it through Rich: a renderable of one
segment per row, rendered by a console, split into lines, styled and cached as new strips, 2–4
ms for a 33-row bar on this machine, a third of a stream frame and the largest single item in
the frames a typed key waited behind. Here the same glyphs and styles (Textual's own
``ScrollBarRender.render_bar``, so the look and the mouse actions are unchanged) become strips
kept per (glyph, style): a frame's bar is a list of strips already rendered to terminal text.
"""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

_BACK, _BAR = Color.parse("#555555"), Color.parse("bright_magenta")  # render_bar's defaults

_KEPT = 64
"""Strips kept before the cache starts over (a theme or hover change brings new styles)."""


class LightScrollBar(ScrollBar):
    """A vertical :class:`~textual.scrollbar.ScrollBar` whose lines are reused strips."""

    def __init__(self, *, thickness: int = 1) -> None:
        super().__init__(vertical=True, name="vertical", thickness=thickness)
        self._strips: dict[tuple[str, Style | None, Style], Strip] = {}

    def render_lines(self, crop: Region) -> list[Strip]:
        bar = self.render()
        if type(bar) is not ScrollBarRender:  # ``ScrollBar.renderer`` was replaced: draw its way
            return super().render_lines(crop)
        style = bar.style if isinstance(bar.style, Style) else Style.parse(str(bar.style))
        height = self.size.height
        segments = ScrollBarRender.render_bar(
            size=height,
            virtual_size=bar.virtual_size,
            window_size=bar.window_size,
            position=bar.position,
            thickness=self.size.width,
            vertical=True,
            back_color=style.bgcolor or _BACK,
            bar_color=style.color or _BAR,
        )
        rows = list(segments.segments)[crop.y : crop.bottom]
        base = self.rich_style  # under every cell, as Textual's line rendering puts it
        strips = self._strips
        if len(strips) > _KEPT:
            strips.clear()
        lines: list[Strip] = []
        for segment in rows:
            key = (segment.text, segment.style, base)
            strip = strips.get(key)
            if strip is None:
                style = base + segment.style if segment.style is not None else base
                strip = strips[key] = Strip([Segment(segment.text, style)], self.size.width)
            lines.append(strip.crop(crop.x, crop.right) if crop.x or crop.right < self.size.width else strip)
        return lines
