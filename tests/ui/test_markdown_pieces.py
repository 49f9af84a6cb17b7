"""Streamed Markdown is cut into pieces that render exactly like the whole text."""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console

from pi_cli.modes.interactive.markdown_pieces import BURST_PIECE_CHARS, Piece, PieceStream, next_cut
from pi_cli.modes.interactive.widgets.markdown_stream import render_piece

MIXED = (
    "Intro line one\nline two with `code`\n\n## Heading\n\nA paragraph with **bold\nacross** lines.\n"
    "- a\n- b\n\n1. one\n2. two\n\n```python\ndef f():\n    x = 1\n\n    return x\n```\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quote\n\n" + "".join(f"plain line {n} of a long block\n" for n in range(40))
)


def _stream(text: str, minimum: int, step: int) -> PieceStream:
    stream = PieceStream(minimum)
    for start in range(0, len(text), step):
        stream.feed(text[start : start + step])
    stream.close()
    return stream


def _lines(pieces: list[Piece], width: int = 60) -> list[str]:
    console = Console(width=width, color_system="truecolor", force_terminal=True)
    out: list[str] = []
    for number, piece in enumerate(pieces):
        if number == 0:
            piece = replace(piece, gap=False)  # the widget draws no gap above its first piece
        out.extend(strip.text.rstrip() for strip in render_piece(console, piece, width))
    return out


def test_streamed_pieces_keep_the_source() -> None:
    for step in (1, 7, 50):
        stream = _stream(MIXED, 20, step)
        assert stream.source == MIXED
        assert len(stream.pieces) > 5


def _text_rows(lines: list[str]) -> list[str]:
    return [line for line in lines if line.strip()]


def test_pieces_render_like_the_whole_text() -> None:
    # Rich's blank rows around blocks vary with what precedes them; every row of text, its
    # wrapping and its order must be the same.
    whole = _lines([Piece(MIXED)])
    for step in (1, 13):
        pieces = _lines(_stream(MIXED, 20, step).pieces)
        assert _text_rows(pieces) == _text_rows(whole)
        assert pieces.count("") >= 8  # blocks stay apart


def test_code_fence_continues_in_the_next_piece() -> None:
    text = "```python\n" + "".join(f"x{n} = {n}\n" for n in range(30)) + "```\n\nafter\n"
    stream = _stream(text, 20, 5)
    continued = [p for p in stream.pieces if p.fence]
    assert continued and all(p.fence == "```python\n" for p in continued)
    assert _lines(stream.pieces) == _lines([Piece(text)])  # same rows, padding included


def test_no_cut_inside_open_inline_markup_or_before_a_growing_line() -> None:
    assert next_cut("some **bold\nstill bold\nmore\nx", "", 1)[0] == 0  # ** never closed
    # The line after a cut must be complete: "1" may still become "1. item".
    assert next_cut("plain line\n1", "", 1) == (0, "", False)
    assert next_cut("plain line\nnext line\nx", "", 1)[0] == len("plain line\n")
    # After a blank line, a letter can only start a paragraph: the cut need not wait for the line.
    assert next_cut("para one\n\nPar", "", 1) == (len("para one\n\n"), "", True)
    assert next_cut("para one\n\n1", "", 1)[0] == 0


def test_block_syntax_is_never_split() -> None:
    for text in ("| a | b |\n|---|---|\n| 1 | 2 |\nx", "> quote\nlazy line\nx", "- item\nlazy continuation\nx"):
        assert next_cut(text, "", 1)[0] == 0, text


def test_a_burst_is_cut_into_small_pieces_that_still_render_like_the_whole() -> None:
    text = MIXED * 8  # ~7 KB arriving in one read
    stream = _stream(text, 200, len(text))
    assert stream.source == text
    assert len(stream.pieces) >= 4
    assert max(len(piece.text) for piece in stream.pieces) < 4 * BURST_PIECE_CHARS
    whole = _lines([Piece(text)])
    assert _text_rows(_lines(stream.pieces)) == _text_rows(whole)


def test_first_cut_stops_at_the_first_safe_place() -> None:
    text = "".join(f"para {n}\n\n" for n in range(50)) + "end"
    first, _, _ = next_cut(text, "", 30, first=True)
    last, _, _ = next_cut(text, "", 30)
    assert 30 <= first < 60 < last
