"""Terminal cell widths and word wrapping of styled text.

Text is handled as *spans*: ``(text, style)`` pairs. Widths come from Rich's cell tables (the ones
Textual measures strips with, so a row is exactly as wide as Textual thinks): CJK characters and
most emoji take two cells, combining marks none, and a ZWJ emoji sequence or a variation selector
is measured as one grapheme. A word longer than the width is folded between graphemes, never
inside one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.cells import cell_len, split_graphemes
from rich.segment import Segment
from rich.style import Style

Span = tuple[str, Style]
"""A run of text in one style."""

Row = list[Segment]
"""One rendered row: segments exactly as wide as the width it was laid out at."""

_WORD = re.compile(r"\S+")
_ASCII = re.compile(r"[ -~]*")


def width_of(text: str) -> int:
    """Cells ``text`` takes (printable ASCII: its length, without a table look-up)."""
    if _ASCII.fullmatch(text):
        return len(text)
    return cell_len(text)


def spans_width(spans: Sequence[Span]) -> int:
    return sum(width_of(text) for text, _ in spans)


def _fold(word: str, width: int) -> list[tuple[int, int, int]]:
    """Cut ``word`` between graphemes into chunks of at most ``width`` cells: ``(start, end,
    cells)`` each (a grapheme wider than the width gets a chunk of its own)."""
    graphemes, _total = split_graphemes(word)
    chunks: list[tuple[int, int, int]] = []
    start = used = 0
    for begin, _end, cells in graphemes:
        if used and used + cells > width:
            chunks.append((start, begin, used))
            start, used = begin, 0
        used += cells
    chunks.append((start, len(word), used))
    return chunks


def wrap(spans: Sequence[Span], width: int) -> list[tuple[list[Span], int]]:
    """Break one line of styled text into rows of at most ``width`` cells, greedily at white
    space (which is dropped at the breaks; leading white space of the line is kept). Returns each
    row's spans and its width in cells; an empty line gives one empty row."""
    plain = "".join(text for text, _ in spans)
    ascii_only = bool(_ASCII.fullmatch(plain))
    total = len(plain) if ascii_only else cell_len(plain)
    if total <= width or width <= 0:
        return [(list(spans), total)]
    ranges = _ascii_ranges(plain, width) if ascii_only else _ranges(plain, width)
    return [(_slice(spans, row_start, row_end), cells) for row_start, row_end, cells in ranges]


def _ranges(plain: str, width: int) -> list[tuple[int, int, int]]:
    """``(start, end, cells)`` of each row of ``plain``: words placed while they fit."""
    ranges: list[tuple[int, int, int]] = []
    start = end = used = 0
    placed = False
    for match in _WORD.finditer(plain):
        begin, finish = match.span()
        cells = cell_len(plain[begin:finish])
        if placed:
            gap = cell_len(plain[end:begin])
            if used + gap + cells <= width:
                end, used = finish, used + gap + cells
                continue
            ranges.append((start, end, used))
            start, used, placed = begin, 0, False
        lead = cell_len(plain[start:begin])
        if lead + cells > width and lead:
            start, lead = begin, 0  # leading white space that leaves no room goes
        if lead + cells <= width:
            end, used, placed = finish, lead + cells, True
            continue
        chunks = _fold(plain[begin:finish], width)
        for chunk_start, chunk_end, chunk_cells in chunks[:-1]:
            ranges.append((begin + chunk_start, begin + chunk_end, chunk_cells))
        last_start, _last_end, last_cells = chunks[-1]
        start, end, used, placed = begin + last_start, finish, last_cells, True
    if placed or not ranges:
        ranges.append((start, end, used))
    return ranges


def _ascii_ranges(plain: str, width: int) -> list[tuple[int, int, int]]:
    """:func:`_ranges` for printable ASCII (one cell a character, only spaces break), a row at a
    time: each row ends at the last word end within ``width`` of its start."""
    size = len(plain)
    ranges: list[tuple[int, int, int]] = []
    start = 0
    while start < size:
        limit = start + width
        if limit >= size:
            end = len(plain.rstrip(" "))
            if end > start:
                ranges.append((start, end, end - start))
            break
        end = limit if plain[limit] == " " else plain.rfind(" ", start, limit)
        while end > start and plain[end - 1] == " ":
            end -= 1
        if end <= start:  # no word ends within the width
            begin = start
            while begin < size and plain[begin] == " ":
                begin += 1
            if begin > start:
                start = begin  # leading white space that leaves no room goes
                continue
            ranges.append((start, limit, width))  # a word longer than the width is folded
            start = limit
            continue
        ranges.append((start, end, end - start))
        start = end
        while start < size and plain[start] == " ":
            start += 1
    return ranges or [(0, 0, 0)]


def _slice(spans: Sequence[Span], start: int, end: int) -> list[Span]:
    """The spans covering characters ``start`` to ``end`` of their joined text."""
    out: list[Span] = []
    offset = 0
    for text, style in spans:
        following = offset + len(text)
        if following > start and offset < end:
            out.append((text[max(0, start - offset) : end - offset], style))
        offset = following
        if offset >= end:
            break
    return out


def row(spans: Sequence[Span], cells: int, width: int, fill: Style | None = None) -> Row:
    """Segments of ``spans`` padded with ``fill``-styled blanks to exactly ``width`` cells."""
    segments = [Segment(text, style) for text, style in spans if text]
    if cells < width:
        segments.append(Segment(" " * (width - cells), fill))
    return segments


def blank(width: int, style: Style | None = None) -> Row:
    return [Segment(" " * width, style)] if width > 0 else []
