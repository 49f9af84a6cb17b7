"""Pieces far above the bottom are estimated, rendered when seen, and laid out exactly later."""

from __future__ import annotations

from textual.strip import Strip

from pi_cli.modes.interactive.markdown_pieces import Piece
from pi_cli.modes.interactive.widgets.piece_lines import PieceLines, estimate_rows

WIDTH = 20


class Renderer:
    """Renders piece ``n`` (text ``"n"``) as ``rows[n]`` rows reading ``"n.row"``; counts calls."""

    def __init__(self, rows: list[int]) -> None:
        self.rows = rows
        self.calls: list[int] = []

    def __call__(self, index: int, piece: Piece, width: int) -> list[Strip]:
        assert width == WIDTH
        number = int(piece.text)
        self.calls.append(number)
        return [_row(f"{number}.{row}") for row in range(self.rows[number])]


def _row(text: str) -> Strip:
    from rich.segment import Segment

    return Strip([Segment(text.ljust(WIDTH))], WIDTH)


def _pieces(count: int) -> list[Piece]:
    return [Piece(str(number)) for number in range(count)]  # each estimates as 1 row


def test_estimate_wraps_source_lines_and_counts_the_gap() -> None:
    assert estimate_rows(Piece("a\n" + "b" * 45 + "\n"), 20) == 1 + 3
    assert estimate_rows(Piece("x", gap=True), 20) == 2


def test_only_the_bottom_is_rendered_and_the_rest_is_estimated() -> None:
    render = Renderer([3] * 10)
    lines = PieceLines(render, WIDTH)
    first = lines.update(_pieces(10), bottom_rows=5)
    assert first == 0
    assert render.calls == [9, 8]  # 3 + 3 rows cover the bottom 5
    assert lines.pending == 8 and not lines.settled
    assert lines.total == 8 * 1 + 2 * 3  # estimates above, real counts at the bottom
    assert lines.line(lines.total - 1, _pieces(10)).text.strip() == "9.2"


def test_a_row_of_an_estimated_piece_renders_it_but_keeps_the_layout_until_commit() -> None:
    pieces = _pieces(4)
    render = Renderer([3, 3, 3, 3])
    lines = PieceLines(render, WIDTH)
    lines.update(pieces, bottom_rows=3)
    before = lines.total  # 1 + 1 + 1 + 3
    assert lines.line(1, pieces).text.strip() == "1.0"
    assert 1 in render.calls and lines.total == before  # cropped to its estimate for now
    assert lines.commit() is True
    assert lines.total == before + 2
    assert [lines.line(y, pieces).text.strip() for y in range(1, 4)] == ["1.0", "1.1", "1.2"]
    assert lines.commit() is False


def test_resolve_some_works_upwards_from_the_bottom_until_settled() -> None:
    pieces = _pieces(6)
    render = Renderer([2] * 6)
    lines = PieceLines(render, WIDTH)
    lines.update(pieces, bottom_rows=2)
    assert render.calls == [5]
    assert lines.resolve_some(pieces, budget_s=0.0) is False  # at least one piece per call
    assert render.calls == [5, 4]
    while not lines.resolve_some(pieces, budget_s=0.0):
        pass
    assert render.calls == [5, 4, 3, 2, 1, 0]
    assert lines.commit() is True and lines.settled
    assert [lines.line(y, pieces).text.strip() for y in range(lines.total)] == [
        f"{n}.{r}" for n in range(6) for r in range(2)
    ]


def test_update_reports_the_first_changed_row() -> None:
    pieces = _pieces(3)
    lines = PieceLines(Renderer([2, 2, 2, 2, 2]), WIDTH)
    lines.update(pieces, bottom_rows=2)  # piece 2 rendered; 0 and 1 estimated at 1 row each
    assert lines.total == 4
    more = _pieces(4)
    assert lines.update(more, bottom_rows=2) == 4  # only appended below the old rows
    # A taller screen reaches the estimated pieces: rows from piece 1 on change.
    assert lines.update(more, bottom_rows=6) == 1
    assert lines.total == 1 + 2 + 2 + 2 and lines.pending == 1
