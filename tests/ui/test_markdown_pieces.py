"""Streamed Markdown is cut into pieces that render exactly like the whole text."""

from __future__ import annotations

from dataclasses import replace

from pi_cli.modes.interactive.markdown import DARK, PieceRenderer
from pi_cli.modes.interactive.markdown_pieces import BURST_PIECE_CHARS, Piece, PieceStream, next_cut

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
    pieces = [replace(pieces[0], gap=False), *pieces[1:]]  # the widget draws no gap above its first piece
    renderer = PieceRenderer(pieces, DARK)
    return [strip.text.rstrip() for index in range(len(pieces)) for strip in renderer.render(index, width)]


def test_streamed_pieces_keep_the_source() -> None:
    for step in (1, 7, 50):
        stream = _stream(MIXED, 20, step)
        assert stream.source == MIXED
        assert len(stream.pieces) > 5


def test_pieces_render_like_the_whole_text() -> None:
    whole = _lines([Piece(MIXED)])
    for step in (1, 13):
        assert _lines(_stream(MIXED, 20, step).pieces) == whole
    assert whole.count("") >= 8  # blocks stay apart


def test_code_fence_continues_in_the_next_piece() -> None:
    text = "```python\n" + "".join(f"x{n} = {n}\n" for n in range(30)) + "```\n\nafter\n"
    stream = _stream(text, 20, 5)
    continued = [p for p in stream.pieces if p.fence]
    assert continued and all(p.fence == "```python\n" for p in continued)
    assert _lines(stream.pieces) == _lines([Piece(text)])  # same rows, padding included


def test_no_cut_inside_open_inline_markup_or_before_a_growing_line() -> None:
    assert next_cut("some **bold\nstill bold\nmore\nx", "", 1)[0] == 0  # ** never closed
    # The line after a cut must be complete: "1" may still become "1. item".
    assert next_cut("plain line\n1", "", 1)[:3] == (0, "", False)
    assert next_cut("plain line\nnext line\nx", "", 1)[0] == len("plain line\n")
    # After a blank line, a letter can only start a paragraph: the cut need not wait for the line.
    assert next_cut("para one\n\nPar", "", 1)[:3] == (len("para one\n\n"), "", True)
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
    assert _lines(stream.pieces) == _lines([Piece(text)])


def test_first_cut_stops_at_the_first_safe_place() -> None:
    text = "".join(f"para {n}\n\n" for n in range(50)) + "end"
    first = next_cut(text, "", 30, first=True).offset
    last = next_cut(text, "", 30).offset
    assert 30 <= first < 60 < last


def test_ordered_lists_are_cut_where_the_number_is_the_one_shown() -> None:
    numbered = "".join(f"{n}. item number {n} of a long list\n" for n in range(1, 30))
    stream = _stream(numbered, 20, 7)
    assert len(stream.pieces) > 10  # cut between items, not kept whole in the tail
    assert _lines(stream.pieces) == _lines([Piece(numbered)])
    assert _lines(stream.pieces)[-1].startswith(" 29. ")
    lazy = "".join("1. the same number on every item\n" for _ in range(30))
    stream = _stream(lazy, 20, 7)
    assert len(stream.pieces) == 1  # markdown shows 1, 2, 3…: a cut would restart at 1
    assert _lines(stream.pieces)[-1].startswith(" 30. ")


def test_lines_that_continue_an_item_or_an_html_block_are_not_cut_apart() -> None:
    for text in ("- item\nlazy one\nlazy two\nlazy three\nx", "> quote\nlazy one\nlazy two\nx",
                 "<div>\n- a\n- b\n- c\n</div>\nx", "text\n2. is text\n3. still text\nx"):  # fmt: skip
        stream = _stream(text, 1, 1)
        assert _lines(stream.pieces) == _lines([Piece(text)]), text
