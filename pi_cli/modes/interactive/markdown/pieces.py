"""Rendering the pieces of one streamed text (``markdown_pieces``) to Textual strips.

A :class:`PieceRenderer` belongs to one text: it reads that text's growing list of pieces, so a
piece that continues a fence can start lexing in the state the piece before it ended in — worked
out on demand, by lexing back to where the fence opened, since pieces far above the view are
rendered late and out of order (``piece_lines``). Those end states are kept (a tuple per piece cut
inside a fence), and the lexing of the tail's last code block, which grows frame by frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.strip import Strip

from pi_cli.modes.interactive.markdown.cells import Row, blank
from pi_cli.modes.interactive.markdown.code import ROOT, LexMemo, LexState, end_state
from pi_cli.modes.interactive.markdown.layout import Fences, layout, text_rows
from pi_cli.modes.interactive.markdown.parse import parse

if TYPE_CHECKING:
    from pi_cli.modes.interactive.markdown.blocks import Block
    from pi_cli.modes.interactive.markdown.styles import Palette
    from pi_cli.modes.interactive.markdown_pieces import Piece


def render_rows(
    piece: Piece,
    width: int,
    palette: Palette,
    start: LexState | None = None,
    memo: LexMemo | None = None,
    blocks: list[Block] | None = None,
) -> tuple[list[Row], LexState]:
    """Rows of one piece: a blank row first if it has a gap; a continued fence lexed from
    ``start``; its last code block lexed through ``memo`` (an open tail). Also the lexer state at
    its end (ROOT unless it ends inside a fence). ``blocks``: the piece already parsed
    (``parse(piece_source(piece))``; layout only reads them)."""
    fences = Fences(start if piece.fence else None, piece.open_end, memo)
    rows = layout(blocks if blocks is not None else parse(piece_source(piece)), width, palette, fences)
    if piece.gap and rows:
        rows.insert(0, blank(width))
    return rows, fences.end


def piece_source(piece: Piece) -> str:
    """The Markdown a piece is parsed from (a continued fence reopened first)."""
    return piece.fence + piece.text if piece.fence else piece.text


def plain_rows(text: str, width: int, palette: Palette) -> list[Row]:
    """``text`` as plain lines, wrapped (no Markdown)."""
    return text_rows([[(line, palette.text)] for line in text.split("\n")], width)


class PieceRenderer:
    """Renders piece ``index`` of ``pieces`` (the list a ``PieceStream`` grows) or the open tail
    after them, with ``palette`` (swap it and render again after a theme change)."""

    def __init__(self, pieces: Sequence[Piece], palette: Palette) -> None:
        self.pieces = pieces
        self.palette = palette
        self._ends: dict[int, LexState] = {}  # piece index → lexer state where it was cut
        self._tail_memo = LexMemo()
        # piece index → its blocks: a frozen piece is parsed once, and laid out again only when
        # the width or the palette (a theme switch) changes; parsing was most of a re-render.
        self._blocks: dict[int, list[Block]] = {}

    def render(self, index: int, width: int) -> list[Strip]:
        piece = self.pieces[index]
        blocks = self._blocks.get(index)
        if blocks is None:
            blocks = self._blocks[index] = parse(piece_source(piece))
        start = self._state_before(index) if piece.fence else None
        rows, end = render_rows(piece, width, self.palette, start, blocks=blocks)
        if piece.open_end:
            self._ends[index] = end
        return [Strip(line, width) for line in rows]

    def render_tail(self, tail: Piece, width: int) -> list[Strip]:
        """The open tail, which follows the last piece."""
        start = self._state_before(len(self.pieces)) if tail.fence else None
        rows, _ = render_rows(tail, width, self.palette, start, self._tail_memo)
        return [Strip(line, width) for line in rows]

    def render_plain(self, text: str, width: int, gap: bool) -> list[Strip]:
        rows = plain_rows(text, width, self.palette)
        if gap:
            rows.insert(0, blank(width))
        return [Strip(line, width) for line in rows]

    def _state_before(self, index: int) -> LexState:
        """The lexer state at the end of piece ``index - 1`` (where piece ``index`` goes on)."""
        first = index - 1
        while first >= 0 and first not in self._ends and self.pieces[first].fence:
            first -= 1  # back to a known state or to the piece that opened the fence
        state = ROOT
        for position in range(max(0, first), index):
            piece = self.pieces[position]
            if not piece.open_end:
                state = ROOT
            elif position in self._ends:
                state = self._ends[position]
            else:
                state = self._ends[position] = _end_state(piece, state if piece.fence else ROOT)
        return state


def _end_state(piece: Piece, start: LexState) -> LexState:
    """The lexer state at the end of ``piece`` (cut inside a fence), without laying it out."""
    blocks = parse(piece_source(piece))
    if not blocks or blocks[-1].kind != "code":
        return ROOT
    last = blocks[-1]
    return end_state(last.text, last.info, start if piece.fence and len(blocks) == 1 else ROOT)
