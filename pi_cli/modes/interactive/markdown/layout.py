"""Blocks to rows at a width: paragraphs, headings, lists, quotes, rules, HTML, code and tables.

Spacing is chosen so that a text cut into pieces lays out exactly like the whole (see
``markdown_pieces`` for where cuts fall): top-level blocks are always one blank row apart (a cut
at a blank line adds that row as the piece's gap); inside a list or a quote two blocks, or two
items, are a blank row apart only when a blank line separates them in the source, so a list cut
between two items reads the same either way. Ordered items are numbered from the list's first
number, marker `` 1. `` (pi's ``1.``, indented like the bullet `` • ``), their lines indented under
the text.

Every row is exactly the width it was laid out at; the palette decides only styles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style

from pi_cli.modes.interactive.markdown.cells import Row, Span, blank, row, width_of, wrap
from pi_cli.modes.interactive.markdown.code import ROOT, LexMemo, LexState, code_rows
from pi_cli.modes.interactive.markdown.inline import inline_lines
from pi_cli.modes.interactive.markdown.table import table_rows

if TYPE_CHECKING:
    from pi_cli.modes.interactive.markdown.blocks import Block
    from pi_cli.modes.interactive.markdown.styles import Palette

BULLET = " • "
QUOTE_BAR = "▌ "
RULE_MAX = 80


@dataclass(slots=True)
class Fences:
    """How the top-level fences at the edges of a piece meet the pieces beside it: ``start``: the
    first block continues a fence from the piece before, lexed from this state (None: it does
    not); ``open_end``: the last block is a fence the next piece continues; ``memo``: the text is
    the open tail, whose last code block is lexed incrementally. ``end`` receives the lexer state
    at the end of that last fence."""

    start: LexState | None = None
    open_end: bool = False
    memo: LexMemo | None = None
    end: LexState = ROOT


def layout(blocks: Sequence[Block], width: int, palette: Palette, fences: Fences | None = None) -> list[Row]:
    """Rows of top-level ``blocks`` at ``width``: one blank row between blocks."""
    rows: list[Row] = []
    last = len(blocks) - 1
    for index, block in enumerate(blocks):
        if index:
            rows.append(blank(width))
        start = fences.start if fences is not None and index == 0 else None  # continues a fence
        open_end = fences is not None and fences.open_end and index == last  # the next piece continues it
        memo = fences.memo if fences is not None and index == last else None
        if block.kind == "code" and (start is not None or open_end or memo is not None):
            code, state = code_rows(
                block.text, block.info, width, palette, state=start or ROOT, top=start is None,
                bottom=not open_end, memo=memo,
            )  # fmt: skip
            if fences is not None and open_end:
                fences.end = state
            rows.extend(code)
        else:
            rows.extend(_block(block, width, palette, palette.text))
    return rows


def _nested(blocks: Sequence[Block], width: int, palette: Palette, base: Style) -> list[Row]:
    """Rows of the blocks of a list item or a quote: a blank row only where the source has one."""
    rows: list[Row] = []
    previous_end = -1
    for block in blocks:
        if previous_end >= 0 and block.start > previous_end:
            rows.append(blank(width))
        rows.extend(_block(block, width, palette, base))
        previous_end = _last_line(block)
    return rows


def _last_line(block: Block) -> int:
    """The line after the block's last line of content (a list's or quote's map runs on over
    the blank lines after it)."""
    while block.kind in ("list", "item", "quote") and block.children:
        block = block.children[-1]
    return block.end if block.kind not in ("list", "item", "quote") else block.start + 1


def _block(block: Block, width: int, palette: Palette, base: Style) -> list[Row]:
    kind = block.kind
    if kind == "paragraph":
        return text_rows(inline_lines(block.inline, base, palette), width)
    if kind == "heading":
        style = base + palette.headings[min(6, max(1, block.level)) - 1]
        lines = inline_lines(block.inline, style, palette)
        if block.level >= 3:
            lines[0].insert(0, ("#" * block.level + " ", style))
        return text_rows(lines, width)
    if kind == "list":
        return _list(block, width, palette, base)
    if kind == "quote":
        inner = _nested(block.children, max(1, width - 2), palette, base + palette.quote)
        bar = Segment(QUOTE_BAR, palette.quote_border)
        return [[bar, *line] for line in inner] or [[bar, *blank(width - 2)]]
    if kind == "code":
        return code_rows(block.text, block.info, width, palette)[0]
    if kind == "table":
        return table_rows(block, width, palette, base)
    if kind == "rule":
        size = min(width, RULE_MAX)
        return [[Segment("─" * size, palette.hr), *blank(width - size)]]
    if kind == "html":
        return text_rows([[(line, base)] for line in block.text.rstrip("\n").split("\n")], width)
    return []


def text_rows(lines: list[list[Span]], width: int) -> list[Row]:
    """Each source line word-wrapped to ``width``."""
    rows: list[Row] = []
    for spans in lines:
        for wrapped, cells in wrap(spans, width):
            rows.append(row(wrapped, cells, width))
    return rows


def _list(block: Block, width: int, palette: Palette, base: Style) -> list[Row]:
    rows: list[Row] = []
    number = block.number
    previous_end = -1
    for item in block.children:
        if previous_end >= 0 and item.start > previous_end:
            rows.append(blank(width))
        if block.ordered:
            marker, style = f" {number}. ", palette.list_number
            number += 1
        else:
            marker, style = BULLET, palette.list_bullet
        indent = width_of(marker)
        inner = _nested(item.children, max(1, width - indent), palette, base) or [blank(width - indent)]
        rows.append([Segment(marker, style), *inner[0]])
        padding = Segment(" " * indent)
        rows.extend([padding, *line] for line in inner[1:])
        previous_end = _last_line(item)
    return rows
