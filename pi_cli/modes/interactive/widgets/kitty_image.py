"""Images of tool results drawn by the terminal itself, through kitty's Unicode placeholders.

Where kitty's graphics protocol is in use (kitty 0.28+, Ghostty; see
:func:`pi_cli.modes.terminal_images.tui_image_protocol`) a tool card shows a PNG as real pixels
instead of half blocks. The card's rows are ordinary text to Textual: each cell is U+10EEEE
coloured with the image's id and marked with its row and column, so the picture scrolls, is
cropped by the viewport and survives repaints like any line. The pixels reach the terminal in a
zero-width control segment that the card puts in front of the first *visible* row of the image
(:meth:`KittyImage.carry_upload`, from the card's ``render_lines``: Textual drops the control
flag of segments coming out of a Rich renderable, and only the card knows what is visible). A
repaint of that row sends them again, so they are kept small: the decoded PNG shrunk to
``PIXELS_PER_HALF_CELL`` pixels per half cell and zlib-compressed.
Nothing from the model or a tool reaches the terminal unchecked: the sequences hold only
base64 of pixels pi_cli decoded and re-encoded itself.
"""

from __future__ import annotations

import itertools
import random
import zlib

from rich.color import Color, ColorType
from rich.color_triplet import ColorTriplet
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import ControlType, Segment
from rich.style import Style
from textual.strip import Strip

from pi_cli.modes.terminal_images import (
    DIACRITICS,
    kitty_upload,
    kitty_virtual_placement,
    placeholder_color,
    placeholder_row,
)
from pi_cli.tools.files.raster import Raster

PIXELS_PER_HALF_CELL = 6  # a cell of 6 x 12 pixels: sharp at common font sizes, small to resend
# Ids are global to the terminal window: start somewhere random so two programs (or two pi_cli
# runs) in one window are unlikely to overwrite each other's pictures; stay below 2**24 so the
# colour alone names the id (no third combining mark).
_ids = itertools.count(random.randrange(1 << 16, 1 << 23))
_ZERO_WIDTH = ((ControlType.CURSOR_FORWARD, 0),)  # a control segment: no cells, written as is


class KittyImage:
    """A Rich renderable: ``image`` (decoded at ``PIXELS_PER_HALF_CELL`` pixels per half cell)
    as placeholder cells at most ``max_cols`` wide and ``max_rows`` tall, aspect kept (a cell
    being twice as tall as wide). ``tmux`` wraps the sequences for tmux's passthrough."""

    def __init__(self, image: Raster, max_cols: int, max_rows: int, *, tmux: bool = False) -> None:
        self.image = image
        self.max_cols = max(1, min(max_cols, len(DIACRITICS)))
        self.max_rows = max(1, min(max_rows, len(DIACRITICS)))
        self.tmux = tmux
        self.image_id = next(_ids)
        self._upload: str | None = None
        self._placements: dict[tuple[int, int], tuple[str, list[str]]] = {}
        self._drawn = self.grid(self.max_cols)  # the grid of the last render
        r, g, b = placeholder_color(self.image_id)
        color = Color(f"#{r:02x}{g:02x}{b:02x}", ColorType.TRUECOLOR, triplet=ColorTriplet(r, g, b))
        self.style = Style(color=color)

    def grid(self, width: int) -> tuple[int, int]:
        """(columns, rows) of cells the image takes when ``width`` cells are available."""
        step = PIXELS_PER_HALF_CELL
        cols = max(1, min(self.max_cols, width, -(-self.image.width // step)))
        rows = max(1, round(cols * self.image.height / self.image.width / 2))
        if rows > self.max_rows:
            rows = self.max_rows
            cols = max(1, min(cols, round(rows * 2 * self.image.width / self.image.height)))
        return cols, rows

    def upload(self) -> str:
        """The sequences that send the pixels (built once)."""
        if self._upload is None:
            image = self.image
            packed = zlib.compress(image.rgba, 6)
            self._upload = kitty_upload(packed, image.width, image.height, self.image_id, tmux=self.tmux)
        return self._upload

    def _placement(self, cols: int, rows: int) -> tuple[str, list[str]]:
        found = self._placements.get((cols, rows))
        if found is None:
            place = kitty_virtual_placement(self.image_id, cols, rows, tmux=self.tmux)
            found = self._placements[(cols, rows)] = (place, [placeholder_row(row, cols) for row in range(rows)])
        return found

    def carry_upload(self, strips: list[Strip]) -> list[Strip]:
        """``strips`` (a widget's visible lines) with the pixels and the placement put in front
        of the first line that shows part of this image; unchanged when none does."""
        color = self.style.color
        for index, strip in enumerate(strips):
            if any(segment.style is not None and segment.style.color == color for segment in strip):
                carried = Segment(self.upload() + self._placement(*self._drawn)[0], None, _ZERO_WIDTH)
                return [*strips[:index], Strip([carried, *strip], strip.cell_length), *strips[index + 1 :]]
        return strips

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        cols, rows = self._drawn = self.grid(options.max_width)
        for text in self._placement(cols, rows)[1]:
            yield Segment(text, self.style)
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        cols = self.grid(options.max_width)[0]
        return Measurement(cols, cols)
