"""Images of tool results drawn in the TUI with Unicode half blocks.

Textual owns the screen, so the kitty and iTerm2 escapes of inline mode cannot be used here;
instead each cell shows two stacked pixels as ``▀`` with the top pixel as foreground and the
bottom one as background. Only PNG is decoded (pure Python: pi_cli/tools/files/png.py); other
formats, and any PNG that fails to decode, keep the text placeholder the card shows for them.

Cost is paid once per image: :func:`decoded` caches the image already shrunk to at most
``PREVIEW_SIDE`` pixels a side, and :class:`HalfBlockImage` keeps the lines it drew for one width
and background, so re-renders (scrolling, focus, resize to the same width) only replay segments.
Transparent pixels are blended over the card's background, asked for at render time so a theme
switch redraws them on the new colour.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from rich.color import Color
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style

from pi_cli.tools.files.png import PngError, decode_png
from pi_cli.tools.files.raster import Raster, cell_grid, downscale

PREVIEW_SIDE = 256  # pixels a side kept per decoded image: beyond any card's cell grid
MAX_ROWS = 24  # cell rows an image may take in a card
HALF_BLOCK = "▀"

RGB = tuple[int, int, int]


@lru_cache(maxsize=32)
def decoded(data: str, mime: str) -> Raster | None:
    """The base64 image ``data`` decoded and shrunk to at most PREVIEW_SIDE pixels a side, or None
    when it cannot be drawn (not PNG, too large, damaged). Cached: a card re-mounted when the
    transcript scrolls back does not decode again."""
    if mime != "image/png":
        return None
    try:
        image = decode_png(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError, PngError):
        return None
    cols, rows = cell_grid(image.width, image.height, PREVIEW_SIDE, PREVIEW_SIDE // 2)
    return downscale(image, cols, rows)


def drawable(block: dict[str, Any]) -> Raster | None:
    """The decoded picture of a result's image block, or None (its placeholder is shown)."""
    data, mime = block.get("data"), block.get("mimeType")
    return decoded(data, mime) if isinstance(data, str) and isinstance(mime, str) else None


def _blend(pixel: tuple[int, int, int, int], background: RGB) -> RGB:
    r, g, b, a = pixel
    if a == 255:
        return r, g, b
    keep = 255 - a
    return (
        (r * a + background[0] * keep) // 255,
        (g * a + background[1] * keep) // 255,
        (b * a + background[2] * keep) // 255,
    )


def half_block_lines(image: Raster, background: RGB) -> list[list[Segment]]:
    """``image`` as lines of half-block segments, two pixel rows per line (the last line's lower
    half is ``background`` when the rows are odd); runs of one colour pair share a segment."""
    styles: dict[tuple[RGB, RGB], Style] = {}
    lines: list[list[Segment]] = []
    for y in range(0, image.height, 2):
        line: list[Segment] = []
        run_style: Style | None = None
        run = 0
        for x in range(image.width):
            top = _blend(image.pixel(x, y), background)
            bottom = _blend(image.pixel(x, y + 1), background) if y + 1 < image.height else background
            style = styles.get((top, bottom))
            if style is None:
                style = Style(color=Color.from_rgb(*top), bgcolor=Color.from_rgb(*bottom))
                styles[(top, bottom)] = style
            if style is not run_style and run:
                line.append(Segment(HALF_BLOCK * run, run_style))
                run = 0
            run_style = style
            run += 1
        if run:
            line.append(Segment(HALF_BLOCK * run, run_style))
        lines.append(line)
    return lines


class HalfBlockImage:
    """A Rich renderable: ``image`` at most ``max_cols`` cells wide (and the width it is given)
    and ``max_rows`` cells tall, aspect kept; ``background`` gives the colour under it now."""

    def __init__(self, image: Raster, max_cols: int, background: Callable[[], RGB], max_rows: int = MAX_ROWS) -> None:
        self.image = image
        self.max_cols = max_cols
        self.max_rows = max_rows
        self.background = background
        self._drawn: tuple[tuple[int, RGB], list[list[Segment]]] | None = None

    def grid(self, width: int) -> tuple[int, int]:
        """(columns, pixel rows) when ``width`` cells are available."""
        return cell_grid(self.image.width, self.image.height, min(self.max_cols, width), self.max_rows)

    def lines(self, width: int) -> list[list[Segment]]:
        """The drawn lines for ``width`` cells, redrawn only when the width or background changed."""
        cols, rows = self.grid(width)
        key = (cols, self.background())
        if self._drawn is None or self._drawn[0] != key:
            small = downscale(self.image, cols, rows) if cols else Raster(0, 0, b"")
            self._drawn = (key, half_block_lines(small, key[1]))
        return self._drawn[1]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(options.max_width):
            yield from line
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        cols = self.grid(options.max_width)[0]
        return Measurement(cols, cols)
