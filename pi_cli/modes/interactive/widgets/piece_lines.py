"""Rows of frozen Markdown pieces at one width, each piece rendered only when one of its rows is
needed.

A fast model (or a resumed session) hands the TUI tens of kilobytes of Markdown at once. Rendering
all of it costs milliseconds per kilobyte (a few for mixed Markdown with code and tables; Rich took
several times that), yet a person following the answer sees only its last screenful. So a piece
far above the bottom is given an *estimated* row count (its source lines wrapped at the width)
and is rendered later: when a row of it is painted (the person scrolled back), or by
:meth:`PieceLines.resolve_some` in small time slices once the message is complete.

Layout and painting must agree on where each piece starts, so a piece rendered off-screen keeps
its estimate until :meth:`PieceLines.commit`: until then its lines are cropped or padded to the
estimate. :meth:`PieceLines.growth_above` tells the widget how far a commit moves what is on
screen, so a person reading older text does not see it jump. Pieces at the bottom, which the person sees, are
rendered and committed at once (:meth:`PieceLines.update`).

No Textual widget here, only strips, so it is tested on its own.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.strip import Strip

if TYPE_CHECKING:
    from pi_cli.modes.interactive.markdown_pieces import Piece

Render = Callable[[int, "Piece", int], list[Strip]]
"""Renders piece number ``index`` (the piece itself is passed too) at a width."""


def estimate_rows(piece: Piece, width: int) -> int:
    """Rows ``piece`` will probably take at ``width``: its source lines, wrapped, plus the gap row.

    Rendering adds and removes a few rows (block spacing, code padding, table borders); the estimate
    only has to keep the scroll bar honest until the real count replaces it.
    """
    width = max(1, width)
    rows = int(piece.gap)
    for line in piece.text.rstrip("\n").split("\n"):
        rows += max(1, -(-len(line) // width))
    return rows


@dataclass(slots=True)
class _Entry:
    lines: list[Strip] | None  # None: not rendered yet
    rows: int  # rows given to layout: an estimate until rendered and committed


class PieceLines:
    """The rows of a growing list of pieces at one ``width``."""

    def __init__(self, render: Render, width: int) -> None:
        self._render = render
        self.width = width
        self._entries: list[_Entry] = []
        self._ends: list[int] = []  # _ends[i]: committed rows of entries[: i + 1]
        self._uncommitted = 0  # rendered entries whose rows still hold the estimate
        self._pending = 0  # entries not rendered yet

    # --- size ---------------------------------------------------------------------------------

    @property
    def total(self) -> int:
        """Rows of every piece as layout knows them."""
        return self._ends[-1] if self._ends else 0

    @property
    def pending(self) -> int:
        """Pieces not rendered yet."""
        return self._pending

    @property
    def settled(self) -> bool:
        """Every piece is rendered and every row count is exact."""
        return not self._pending and not self._uncommitted

    def __len__(self) -> int:
        return len(self._entries)

    # --- growth -------------------------------------------------------------------------------

    def update(self, pieces: Sequence[Piece], bottom_rows: int) -> int:
        """Take the pieces added since the last call and make sure the last ``bottom_rows`` rows
        are rendered exactly. Returns the first row whose content may have changed (``total``
        before the call when only new pieces were added at the end)."""
        first_changed = self.total
        known = len(self._entries)
        for piece in pieces[known:]:
            self._entries.append(_Entry(None, estimate_rows(piece, self.width)))
            self._ends.append(self.total + self._entries[-1].rows)
            self._pending += 1
        covered = 0
        reindex_from = len(self._entries)
        for index in range(len(self._entries) - 1, -1, -1):
            if covered >= bottom_rows:
                break
            entry = self._entries[index]
            if entry.lines is None:
                self._resolve(index, pieces[index])
                if index < known:
                    first_changed = min(first_changed, self._start(index))
            lines = entry.lines or []
            if entry.rows != len(lines):
                entry.rows = len(lines)
                self._uncommitted -= 1
                reindex_from = index
            covered += entry.rows
        if reindex_from < len(self._entries):
            first_changed = min(first_changed, self._start(reindex_from))
            self._reindex(reindex_from)
        return first_changed

    def resolve_some(self, pieces: Sequence[Piece], budget_s: float) -> bool:
        """Render pending pieces, nearest the bottom first, for about ``budget_s`` seconds (at
        least one piece). Their rows stay as estimated until :meth:`commit`. True when none is
        left."""
        deadline = time.perf_counter() + budget_s
        for index in range(len(self._entries) - 1, -1, -1):
            if self._entries[index].lines is None:
                self._resolve(index, pieces[index])
                if time.perf_counter() >= deadline:
                    break
        return not self._pending

    def commit(self) -> bool:
        """Give layout the real row count of every rendered piece. True when the total changed."""
        if not self._uncommitted:
            return False
        before = self.total
        for entry in self._entries:
            if entry.lines is not None:
                entry.rows = len(entry.lines)
        self._uncommitted = 0
        self._reindex(0)
        return self.total != before

    def growth_above(self, row: int) -> int:
        """Rows the next :meth:`commit` adds (negative: removes) to the pieces that end above
        ``row``: how far it would push down whatever is shown at ``row``."""
        growth = 0
        for index, entry in enumerate(self._entries):
            if self._ends[index] > row:
                break
            if entry.lines is not None:
                growth += len(entry.lines) - entry.rows
        return growth

    # --- rows ---------------------------------------------------------------------------------

    def line(self, y: int, pieces: Sequence[Piece]) -> Strip:
        """Row ``y`` (0 ≤ y < total); renders its piece first if it was only estimated."""
        index = bisect_right(self._ends, y)
        entry = self._entries[index]
        if entry.lines is None:
            self._resolve(index, pieces[index])
        lines = entry.lines or ()
        offset = y - self._start(index)
        return lines[offset] if offset < len(lines) else Strip.blank(self.width)

    def strips(self, start: int, end: int, pieces: Sequence[Piece]) -> list[Strip]:
        """Rows ``start`` to ``end`` (exclusive)."""
        return [self.line(y, pieces) for y in range(start, min(end, self.total))]

    # --- internals ----------------------------------------------------------------------------

    def _resolve(self, index: int, piece: Piece) -> None:
        entry = self._entries[index]
        if entry.lines is None:
            entry.lines = self._render(index, piece, self.width)
            self._pending -= 1
            if len(entry.lines) != entry.rows:
                self._uncommitted += 1

    def _start(self, index: int) -> int:
        return self._ends[index - 1] if index else 0

    def _reindex(self, index: int) -> None:
        total = self._start(index)
        for position in range(index, len(self._entries)):
            total += self._entries[position].rows
            self._ends[position] = total
