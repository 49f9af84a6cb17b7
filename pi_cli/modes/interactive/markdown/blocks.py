"""The block tree the renderer lays out (built by ``parse`` from markdown-it, or by ``prose``).

Each block keeps its source lines (``start``/``end``, markdown-it's map) so layout can tell
whether a blank line separated two blocks inside a list item or a quote.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.modes.interactive.markdown.inline import InlineToken

Inline = Sequence["InlineToken"]
"""The inline tokens of a paragraph, a heading or a table cell."""


@dataclass(slots=True)
class Block:
    """One block. ``kind``: paragraph, heading, code, list, item, quote, table, rule or html.

    ``inline``: a paragraph's or heading's inline tokens; ``level``: a heading's level;
    ``ordered``/``number``: an ordered list and its first number; ``children``: a list's items,
    an item's or a quote's blocks; ``text``/``info``: code or HTML source and a fence's info
    string; ``cells``/``aligns``: a table's rows of inline tokens (the header first) and column
    alignment.
    """

    kind: str
    start: int
    end: int
    inline: Inline | None = None
    level: int = 0
    ordered: bool = False
    number: int = 1
    children: list[Block] = field(default_factory=list)
    text: str = ""
    info: str = ""
    cells: list[list[Inline]] = field(default_factory=list)
    aligns: list[str] = field(default_factory=list)
