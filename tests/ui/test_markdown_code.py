"""Code blocks: the lexer's state goes on across streamed pieces and frames."""

from __future__ import annotations

from dataclasses import replace

from textual.strip import Strip

from pi_cli.modes.interactive.markdown import DARK, PieceRenderer
from pi_cli.modes.interactive.markdown.code import lex, lexer_for
from pi_cli.modes.interactive.markdown_pieces import Piece, PieceStream

LINES = "".join(f"still the string {n}\n" for n in range(12))
CODE = "```python\nvalue = '''first line\n" + LINES + "'''\nx = 1\n```\n"


def _styles(strips: list[Strip], word: str) -> set[object]:
    return {seg.style for strip in strips for seg in strip if word in seg.text}


def test_a_string_cut_in_the_middle_stays_a_string_in_the_next_piece() -> None:
    stream = PieceStream(30)
    for start in range(0, len(CODE), 9):
        stream.feed(CODE[start : start + 9])
    stream.close()
    assert len(stream.pieces) > 3 and stream.pieces[1].fence == "```python\n"
    pieces = [replace(stream.pieces[0], gap=False), *stream.pieces[1:]]
    renderer = PieceRenderer(pieces, DARK)
    streamed = [strip for index in reversed(range(len(pieces))) for strip in renderer.render(index, 60)]  # late first
    whole = PieceRenderer([Piece(CODE)], DARK).render(0, 60)
    assert _styles(streamed, "still the string 11") == _styles(whole, "still the string 11")
    assert sorted(s.text for s in streamed) == sorted(s.text for s in whole)
    # Lexed from the root state, as every piece was before, the line is not a string:
    tokens, _ = lex(lexer_for("python"), "still the string 11\n")
    assert "String" not in str(tokens[0][0])


def test_the_growing_tail_renders_like_a_fresh_render_every_frame() -> None:
    renderer = PieceRenderer([], DARK)
    body = CODE[len("```python\n") :]
    for end in range(1, len(body), 7):
        tail = Piece(body[:end], "```python\n")
        assert renderer.render_tail(tail, 50) == PieceRenderer([], DARK).render_tail(tail, 50), end
