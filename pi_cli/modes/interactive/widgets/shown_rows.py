"""What the terminal shows, piece by piece, so a frame writes only what changed there.

While the transcript follows a streamed answer, every new line moves every row of the view up
one: Textual repaints the whole view, ~10 KB a frame at 24 frames a second. A terminal has a
cheaper way to say that: scroll a band of rows (DECSTBM sets the band, a line feed at its
bottom margin or a reverse index at its top moves it) and write only what is new. pi gets the
same effect for free by printing into the terminal's scrollback; a multiplexer such as tmux
digests one big frame more slowly than a few small ones, and a key typed meanwhile waits behind
it.

A frame reaches the terminal as *pieces*: the rendered text of one compositor cut of one row,
written at its column. :class:`ShownRows` remembers, for each row, the pieces last written
there (column → end column and text). A piece is known only right after it was written;
writing over part of it makes it unknown, and anything that may have drawn on the terminal
behind the compositor's back (another screen, a suspended app's child) forgets everything, as
a full repaint starts the record again. Code that writes cells to the terminal itself, outside
the compositor, must call :meth:`ShownRows.forget` too.

:func:`compose` turns a frame into bytes with that record: a piece equal to the one already at
the same columns is skipped, and a band of whole rows that moved by the same offset is scrolled
before its pieces are compared. Equality is on the exact bytes a piece renders to, so a piece is
skipped only when writing it would put the very same cells on screen.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from textual._compositor import ChopsUpdate, LayoutUpdate

if TYPE_CHECKING:
    from rich.console import Console
    from textual.geometry import Region
    from textual.strip import Strip

MIN_BAND = 4
"""Fewest consecutive whole rows worth a scroll."""

MIN_GAIN = 64
"""Bytes a scroll must save over comparing the rows in place (its escapes cost ~20)."""

Piece = tuple[int, int, str]
"""(column, end column, rendered text) of one write: the text fills exactly those cells."""

Row = dict[int, tuple[int, str]]
"""The known pieces of a row: column → (end column, text)."""


class ShownRows:
    """The pieces each screen row shows, as this compositor last wrote them."""

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.scrolls = 0
        """Bands scrolled so far (for benchmarks and tests)."""

    def forget(self) -> None:
        """Something else may have drawn on the terminal: nothing is known any more."""
        self.rows = []

    def reset(self, rows: Sequence[Sequence[Piece]]) -> None:
        """A full repaint wrote ``rows``, top to bottom: the whole screen is known."""
        self.rows = [{x: (end, text) for x, end, text in row} for row in rows]

    def _sized(self, height: int) -> list[Row]:
        if len(self.rows) != height:
            self.rows = [{} for _ in range(height)]
        return self.rows


def compose(pieces: Mapping[int, Sequence[Piece]], width: int, shown: ShownRows, height: int) -> str:
    """The terminal bytes that bring ``pieces`` (row → its writes, in column order) on screen,
    with ``shown`` updated to match. The cursor is left anywhere: the caller places it
    afterwards, as Textual does after every update."""
    old = shown._sized(height)
    out: list[str] = []
    for top, bottom in _bands(pieces, width):
        offset = _offset(pieces, old, top, bottom)
        if offset:
            out.append(_scroll(top, bottom, offset))
            shown.scrolls += 1
            old[top:bottom] = [old[y + offset] if top <= y + offset < bottom else {} for y in range(top, bottom)]
    for y in sorted(pieces):
        row = old[y]
        for x, end, text in pieces[y]:
            if row.get(x) == (end, text):
                continue
            out.append(f"\x1b[{y + 1};{x + 1}H{text}")
            _overwrite(row, x, end, text)
    return "".join(out)


def _overwrite(row: Row, x: int, end: int, text: str) -> None:
    """Record ``text`` over cells ``[x, end)``: pieces it covers go, pieces it cuts become unknown."""
    for start in [start for start, (stop, _) in row.items() if start < end and stop > x]:
        del row[start]
    row[x] = (end, text)


def _whole(row: Sequence[Piece], width: int) -> bool:
    """Whether the pieces tile the full width, left to right."""
    column = 0
    for x, end, _ in row:
        if x != column:
            return False
        column = end
    return column >= width


def _bands(pieces: Mapping[int, Sequence[Piece]], width: int) -> list[tuple[int, int]]:
    """Runs ``[top, bottom)`` of at least :data:`MIN_BAND` consecutive rows written whole: only
    such a band can be scrolled, as every cell of it is then either rewritten or compared."""
    bands: list[tuple[int, int]] = []
    top = previous = -2
    for y in sorted(y for y, row in pieces.items() if _whole(row, width)):
        if y != previous + 1:
            if previous - top + 1 >= MIN_BAND:
                bands.append((top, previous + 1))
            top = y
        previous = y
    if previous - top + 1 >= MIN_BAND:
        bands.append((top, previous + 1))
    return bands


def _offset(pieces: Mapping[int, Sequence[Piece]], old: Sequence[Row], top: int, bottom: int) -> int:
    """How far the band's content moved since it was written (``new[y]`` found at
    ``old[y + offset]``), or 0 when scrolling would not save :data:`MIN_GAIN` bytes."""
    where: dict[tuple[int, int, str], int] = {}
    for y in range(top, bottom):
        for x, (end, text) in old[y].items():
            where[x, end, text] = y
    votes: Counter[int] = Counter()
    for y in range(top, bottom):
        for piece in pieces[y]:
            if (found := where.get(piece)) is not None and found != y:
                votes[found - y] += len(piece[2])
    if not votes:
        return 0
    best, gain = 0, _saved(pieces, old, top, bottom, 0) + MIN_GAIN
    for offset, _ in votes.most_common(3):
        saved = _saved(pieces, old, top, bottom, offset)
        if saved > gain:
            best, gain = offset, saved
    return best


def _saved(pieces: Mapping[int, Sequence[Piece]], old: Sequence[Row], top: int, bottom: int, offset: int) -> int:
    """Bytes not written if the band is moved by ``offset`` first."""
    saved = 0
    for y in range(max(top, top - offset), min(bottom, bottom - offset)):
        row = old[y + offset]
        saved += sum(len(text) for x, end, text in pieces[y] if row.get(x) == (end, text))
    return saved


def _scroll(top: int, bottom: int, offset: int) -> str:
    """Move rows ``[top, bottom)`` up by ``offset`` (down when negative): set the band as the
    scrolling region, feed lines at its bottom margin (or reverse-index at its top), restore
    the full-screen region. VT100 sequences every terminal and multiplexer knows."""
    up = f"\x1b[{bottom};1H" + "\n" * offset
    down = f"\x1b[{top + 1};1H" + "\x1bM" * -offset
    return f"\x1b[{top + 1};{bottom}r{up if offset > 0 else down}\x1b[r"


class ShownChopsUpdate(ChopsUpdate):
    """Textual's partial update written through :func:`compose`: the same pieces, fewer of
    them when the terminal already shows them."""

    def __init__(
        self,
        chops: Sequence[Mapping[int, Strip | None]],
        spans: list[tuple[int, int, int]],
        chop_ends: list[list[int]],
        shown: ShownRows,
        size: tuple[int, int],
    ) -> None:
        super().__init__(chops, spans, chop_ends)
        self.shown = shown
        self.size = size

    def render_segments(self, console: Console) -> str:
        pieces: dict[int, list[Piece]] = {}
        for y, x1, x2 in self.spans:
            row = pieces.setdefault(y, [])
            for end, (x, strip) in zip(self.chop_ends[y], self.chops[y].items(), strict=False):
                if strip is None or x > x2 or end <= x1:
                    continue
                if not (x2 > x >= x1 and end <= x2):  # as Textual: cropped on the right only
                    end = min(end, x2)
                    if end <= x:
                        continue  # Textual writes nothing there but a cursor move
                    strip = strip.crop(0, end - x)
                row.append((x, end, strip.render(console)))
        width, height = self.size
        return compose(pieces, width, self.shown, height)


class ShownLayoutUpdate(LayoutUpdate):
    """Textual's full update, recorded in ``shown`` as it is written."""

    def __init__(self, strips: list[Iterable[Strip]], region: Region, shown: ShownRows) -> None:
        super().__init__(strips, region)
        self.shown = shown

    def render_segments(self, console: Console) -> str:
        rows: list[list[Piece]] = []
        for line in self.strips:
            x = self.region.x
            row: list[Piece] = []
            for strip in line:
                row.append((x, x + strip.cell_length, strip.render(console)))
                x += strip.cell_length
            rows.append(row)
        if self.region.x == 0 and self.region.y == 0:
            self.shown.reset(rows)
        else:
            self.shown.forget()
        return "".join(
            f"\x1b[{y + 1};{row[0][0] + 1}H" + "".join(text for _, _, text in row)
            for y, row in enumerate(rows, self.region.y)
            if row
        )
