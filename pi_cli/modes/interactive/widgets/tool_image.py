"""Images of tool results decoded for the TUI, and drawn with Unicode half blocks.

Textual owns the screen, so the escapes of inline mode, which draw at the cursor, cannot be used
here; where kitty's protocol is in use its Unicode placeholders are (kitty_image.py, fed by
:func:`drawable` at more pixels per cell). Elsewhere each cell shows two stacked pixels as ``▀``
with the top pixel as foreground and the bottom one as background. Only PNG is decoded (pure
Python: pi_cli/tools/files/png.py); other formats, and any PNG that fails to decode, keep the
text placeholder the card shows for them.

Cost is paid once per image, off the UI's loop for large ones (a 1920x1080 screenshot takes
~0.2 s: on a worker thread keys still echo): :func:`decoded` caches the image shrunk to its grid,
and :class:`HalfBlockImage` keeps the lines it drew for one width and background, so re-renders
(scrolling, focus, a theme switch redraws only the lines) never decode again. A card narrower
than the setting shrinks the small cached picture further.
Transparent pixels are blended over the card's background, asked for at render time so a theme
switch redraws them on the new colour.
"""

from __future__ import annotations

import binascii
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from rich.color import Color, ColorType
from rich.color_triplet import ColorTriplet
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style

from pi_cli.tools.files.png import PngError, decode_png, png_header
from pi_cli.tools.files.raster import Raster, cell_grid, downscale

MAX_ROWS = 24  # cell rows an image may take in a card
HALF_BLOCK = "▀"

RGB = tuple[int, int, int]


CACHE_SIZE = 32
THREAD_PIXELS = 262_144  # PNGs larger than 512x512 decode on a worker thread (~20 ms and up)
# (hash and length of the base64 text, mime, columns, rows) -> the picture. Keyed by the text's
# hash, not the text: an lru_cache would keep up to 32 images' base64 (4.5 MB each) alive after
# their session let go of them. Python caches a str's hash, so a hit costs no rehashing. Locked:
# worker threads fill it while the UI reads it.
_pictures: OrderedDict[tuple[int, int, str, int, int], Raster | None] = OrderedDict()
_lock = threading.Lock()


def clear_cache() -> None:
    """Forget every decoded picture (benchmarks measure a cold decode)."""
    with _lock:
        _pictures.clear()


def _key(data: str, mime: str, max_cols: int, max_rows: int) -> tuple[int, int, str, int, int]:
    return hash(data), len(data), mime, max_cols, max_rows


def decoded(data: str, mime: str, max_cols: int, max_rows: int = MAX_ROWS) -> Raster | None:
    """The base64 image ``data`` decoded and shrunk to its cell grid for ``max_cols`` columns and
    ``max_rows`` cell rows, or None when it cannot be drawn (not PNG, too large, damaged).
    Cached (only the small result is kept): a card re-mounted when the transcript scrolls back,
    or re-rendered, does not decode again. Safe to call from a worker thread."""
    key = _key(data, mime, max_cols, max_rows)
    with _lock:
        if key in _pictures:
            _pictures.move_to_end(key)
            return _pictures[key]
    picture = _decode(data, mime, max_cols, max_rows)
    with _lock:
        _pictures[key] = picture
        if len(_pictures) > CACHE_SIZE:
            _pictures.popitem(last=False)
    return picture


def slow_to_draw(block: dict[str, Any], max_cols: int, scale: int = 1) -> bool:
    """Whether drawing ``block`` means decoding a PNG of more than THREAD_PIXELS pixels that is
    not cached yet (its pixel size read from the first bytes: no decoding)."""
    data, mime = block.get("data"), block.get("mimeType")
    if not isinstance(data, str) or mime != "image/png":
        return False
    with _lock:
        if _key(data, mime, max_cols * scale, MAX_ROWS * scale) in _pictures:
            return False
    try:
        width, height, *_ = png_header(binascii.a2b_base64(data[:44]))
    except (binascii.Error, PngError):
        return False
    return width * height > THREAD_PIXELS


def _decode(data: str, mime: str, max_cols: int, max_rows: int) -> Raster | None:
    if mime != "image/png":
        return None
    try:
        # Not validated: stray characters are skipped, and garbage fails as a PNG anyway.
        image = decode_png(binascii.a2b_base64(data))
    except (binascii.Error, ValueError, PngError):
        return None
    cols, rows = cell_grid(image.width, image.height, max_cols, max_rows)
    return downscale(image, cols, rows)


def drawable(block: dict[str, Any], max_cols: int, scale: int = 1) -> Raster | None:
    """The picture of a result's image block for ``max_cols`` columns, or None (its placeholder
    is shown). ``scale`` pixels per half cell: 1 for half blocks, more for the terminal's own
    drawing (:mod:`~pi_cli.modes.interactive.widgets.kitty_image`)."""
    data, mime = block.get("data"), block.get("mimeType")
    if not isinstance(data, str) or not isinstance(mime, str):
        return None
    return decoded(data, mime, max_cols * scale, MAX_ROWS * scale)


def _blended_row(image: Raster, y: int, background: RGB) -> list[RGB]:
    """Row ``y`` of ``image`` as opaque colours: each pixel blended over ``background`` by its
    alpha (a row past the bottom is all background)."""
    if y >= image.height:
        return [background] * image.width
    row = image.rgba[y * image.width * 4 : (y + 1) * image.width * 4]
    if row[3::4].count(255) == image.width:  # opaque: no blending
        return list(zip(row[0::4], row[1::4], row[2::4], strict=True))
    out: list[RGB] = []
    br, bg, bb = background
    for r, g, b, a in zip(row[0::4], row[1::4], row[2::4], row[3::4], strict=True):
        keep = 255 - a
        out.append(((r * a + br * keep) // 255, (g * a + bg * keep) // 255, (b * a + bb * keep) // 255))
    return out


def half_block_lines(image: Raster, background: RGB) -> list[list[Segment]]:
    """``image`` as lines of half-block segments, two pixel rows per line (the last line's lower
    half is ``background`` when the rows are odd); runs of one colour pair share a segment."""
    colors: dict[RGB, Color] = {}
    styles: dict[tuple[RGB, RGB], Style] = {}

    def color(rgb: RGB) -> Color:
        found = colors.get(rgb)
        if found is None:
            r, g, b = rgb
            found = colors[rgb] = Color(f"#{r:02x}{g:02x}{b:02x}", ColorType.TRUECOLOR, triplet=ColorTriplet(r, g, b))
        return found

    lines: list[list[Segment]] = []
    for y in range(0, image.height, 2):
        line: list[Segment] = []
        run_style: Style | None = None
        run = 0
        for pair in zip(_blended_row(image, y, background), _blended_row(image, y + 1, background), strict=True):
            style = styles.get(pair)
            if style is None:
                style = styles[pair] = Style.from_color(color(pair[0]), color(pair[1]))
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
