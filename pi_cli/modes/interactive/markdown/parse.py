"""Markdown source to a small tree of blocks, through one shared markdown-it parser.

CommonMark with GitHub's tables and strike-through, minus two rules whose meaning reaches back
over earlier lines, which a text streamed in pieces cannot honour: setext headings (``Title`` over
``===`` would turn an already-frozen paragraph into a heading; ``---`` under text is a rule here)
and link reference definitions (``[x]: url`` further down would turn ``[x]`` above into a link;
such a line is shown as text).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from pi_cli.modes.interactive.markdown.blocks import Block
from pi_cli.modes.interactive.markdown.prose import prose_blocks

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The one parser (building one costs ~0.3 ms)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["strikethrough", "table"]).disable(["lheading", "reference"])


_CONTAINERS = {
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "list_item_open": "item",
    "blockquote_open": "quote",
    "table_open": "table",
}


def parse(text: str) -> list[Block]:
    """The top-level blocks of ``text`` (plain prose without markdown-it: ``prose``)."""
    blocks = prose_blocks(text)
    return blocks if blocks is not None else build(parser().parse(text))


def build(tokens: list[Token]) -> list[Block]:
    """Blocks from markdown-it's flat token stream."""
    top: list[Block] = []
    open_blocks: list[Block] = []
    waiting: Block | None = None  # a paragraph or heading whose inline token comes next
    for token in tokens:
        kind = token.type
        start, end = token.map if token.map else (0, 0)
        siblings = open_blocks[-1].children if open_blocks and open_blocks[-1].kind != "table" else top
        if kind in _CONTAINERS:
            block = Block(_CONTAINERS[kind], start, end)
            if kind == "ordered_list_open":
                block.ordered, block.number = True, _int(token.attrs.get("start"), 1)
            siblings.append(block)
            open_blocks.append(block)
        elif kind.endswith("_close") and kind.replace("_close", "_open") in _CONTAINERS:
            if open_blocks:
                open_blocks.pop()
        elif kind in ("paragraph_open", "heading_open"):
            waiting = Block("paragraph" if kind == "paragraph_open" else "heading", start, end)
            if kind == "heading_open":
                waiting.level = _int(token.tag[1:], 1)
            siblings.append(waiting)
        elif kind == "inline":
            if waiting is not None:
                waiting.inline = token.children or []
                waiting = None
            elif open_blocks and open_blocks[-1].kind == "table" and open_blocks[-1].cells:
                open_blocks[-1].cells[-1].append(token.children or [])
        elif kind in ("paragraph_close", "heading_close"):
            waiting = None
        elif kind == "tr_open" and open_blocks and open_blocks[-1].kind == "table":
            open_blocks[-1].cells.append([])
        elif kind in ("th_open", "td_open") and open_blocks and open_blocks[-1].kind == "table":
            table = open_blocks[-1]
            if len(table.cells) == 1:
                style = str(token.attrs.get("style", ""))
                table.aligns.append(style.removeprefix("text-align:") if style.startswith("text-align:") else "")
        elif kind in ("fence", "code_block"):
            siblings.append(Block("code", start, end, text=token.content, info=token.info if kind == "fence" else ""))
        elif kind == "hr":
            siblings.append(Block("rule", start, end))
        elif kind == "html_block":
            siblings.append(Block("html", start, end, text=token.content))
    return top


def _int(value: object, default: int) -> int:
    try:
        return int(str(value))
    except ValueError:
        return default
