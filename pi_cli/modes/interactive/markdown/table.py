"""Tables drawn as pi draws them: a box of light lines, the header in bold, a rule between rows.

Columns take the width their longest cell needs; when the row does not fit, the widest columns
give up cells first, down to their longest word (at most 30 cells) and then to one, and cells wrap
inside their column. A table too narrow for one cell per column is shown as its source text.
Alignment from the delimiter row (``:--``, ``:-:``, ``--:``) is kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style

from pi_cli.modes.interactive.markdown.cells import Row, Span, blank, row, width_of, wrap
from pi_cli.modes.interactive.markdown.inline import inline_lines

if TYPE_CHECKING:
    from pi_cli.modes.interactive.markdown.blocks import Block
    from pi_cli.modes.interactive.markdown.styles import Palette

LONGEST_WORD = 30


def table_rows(block: Block, width: int, palette: Palette, base: Style) -> list[Row]:
    """Rows of a table block at ``width``."""
    if not block.cells:
        return []
    columns = max(len(cells) for cells in block.cells)
    grid: list[list[list[Span]]] = []
    for number, cells in enumerate(block.cells):
        style = base + palette.table_header if number == 0 else base
        line: list[list[Span]] = []
        for column in range(columns):
            parts = inline_lines(cells[column] if column < len(cells) else None, style, palette)
            spans = parts[0]
            for more in parts[1:]:
                spans = [*spans, (" ", style), *more]
            line.append(spans)
        grid.append(line)
    room = width - (3 * columns + 1)
    if room < columns:
        return _source(grid, width, base)
    widths = _column_widths(grid, columns, room)
    border = palette.table_border
    rows: list[Row] = [_rule("┌", "┬", "┐", widths, width, border)]
    for number, line in enumerate(grid):
        if number:
            rows.append(_rule("├", "┼", "┤", widths, width, border))
        rows.extend(_cells(line, widths, block.aligns, width, border))
    rows.append(_rule("└", "┴", "┘", widths, width, border))
    return rows


def _column_widths(grid: list[list[list[Span]]], columns: int, room: int) -> list[int]:
    natural = [1] * columns
    floor = [1] * columns
    for line in grid:
        for column, spans in enumerate(line):
            text = "".join(part for part, _ in spans)
            natural[column] = max(natural[column], width_of(text))
            longest = max((width_of(word) for word in text.split()), default=1)
            floor[column] = max(floor[column], min(LONGEST_WORD, longest))
    widths = list(natural)
    excess = sum(widths) - room
    for limit in (floor, [1] * columns):
        while excess > 0:
            candidates = [c for c in range(columns) if widths[c] > limit[c]]
            if not candidates:
                break
            widest = max(candidates, key=lambda c: widths[c])
            widths[widest] -= 1
            excess -= 1
    return widths


def _rule(left: str, middle: str, right: str, widths: list[int], width: int, style: Style) -> Row:
    text = left + "─" + ("─" + middle + "─").join("─" * w for w in widths) + "─" + right
    return [Segment(text, style), *blank(width - width_of(text))]


def _cells(line: list[list[Span]], widths: list[int], aligns: list[str], width: int, border: Style) -> list[Row]:
    """The rows of one table row: every cell wrapped in its column, padded to the tallest."""
    wrapped = [wrap(spans, widths[column]) for column, spans in enumerate(line)]
    height = max(len(cell) for cell in wrapped)
    bar = Segment("│", border)
    used = sum(widths) + 3 * len(widths) + 1
    rows: list[Row] = []
    for y in range(height):
        out: Row = [bar]
        for column, cell in enumerate(wrapped):
            spans, cells = cell[y] if y < len(cell) else ([], 0)
            free = max(0, widths[column] - cells)
            align = aligns[column] if column < len(aligns) else ""
            left = free if align == "right" else free // 2 if align == "center" else 0
            out.append(Segment(" " * (left + 1)))
            out.extend(row(spans, cells, cells))
            out.append(Segment(" " * (free - left + 1)))
            out.append(bar)
        out.extend(blank(width - used))
        rows.append(out)
    return rows


def _source(grid: list[list[list[Span]]], width: int, base: Style) -> list[Row]:
    """The table as ``| a | b |`` lines, wrapped (too narrow to draw)."""
    rows: list[Row] = []
    for line in grid:
        spans: list[Span] = [("|", base)]
        for cell in line:
            spans.extend([(" ", base), *cell, (" |", base)])
        for wrapped, cells in wrap(spans, width):
            rows.append(row(wrapped, cells, width))
    return rows
