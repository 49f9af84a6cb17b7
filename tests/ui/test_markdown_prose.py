"""The prose fast path builds exactly the blocks markdown-it builds, whenever it takes a text."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_cli.modes.interactive.markdown.blocks import Block
from pi_cli.modes.interactive.markdown.parse import build, parser
from pi_cli.modes.interactive.markdown.prose import prose_blocks

WORDS = ["word", "Text", "a", "x1", "é", "中文", "🙂", "end.", "(paren)", "it's", "—", "1.", "2)", "#", "x|y"]
MARKS = ["*", "**", "_", "__", "~", "~~", "`", "``", "***", "\\", "[", "]", "<", "&", "!", "-", "+", ">"]
SPACES = [" ", " ", " ", "  ", "\n", "\n", "\n\n", "  \n", "\u00a0", "\t"]
PROSE = ["word", "the", "`x`", "**", "*", "_", "~~", " ", " ", " ", "\n", "\n\n", ".", ",", "(", ")", "é", "a_b"]


def _shape(blocks: list[Block]) -> list[Any]:
    # markdown-it leaves an empty text token where a paragraph opens with a delimiter: it draws nothing.
    return [
        (b.kind, b.start, b.end, [(t.type, t.content) for t in b.inline or () if t.type != "text" or t.content])
        for b in blocks
    ]


def _markdown_it(text: str) -> list[Any]:
    return _shape(build(parser().parse(text)))


def test_typical_prose_takes_the_fast_path() -> None:
    text = (
        "The agent reads `pyproject.toml` and the **test suite**, then *plans* the edit.\n"
        "A second line with ~~old~~ new text and `code with * and _`.\n\n"
        "**Note:** a new paragraph (with punctuation), snake_case words and 2 * 3 = 6.\n"
    )
    fast = prose_blocks(text)
    assert fast is not None
    assert _shape(fast) == _markdown_it(text)
    assert [t.type for t in fast[0].inline or ()].count("strong_open") == 1


def test_other_blocks_and_risky_inline_go_to_markdown_it() -> None:
    for text in ("# heading", "- item", "1. one", "> quote", "| a |", "[link](x)", "a\\*b", "```\ncode", "***",
                 "  indented", "a &amp; b", "<b>x</b>", "lone ` tick", "x **a*b** y"):  # fmt: skip
        assert prose_blocks(text) is None, text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS + MARKS + SPACES), max_size=40) | st.lists(st.sampled_from(PROSE), max_size=60))
def test_fast_path_agrees_with_markdown_it(parts: list[str]) -> None:
    text = "".join(parts)
    fast = prose_blocks(text)
    if fast is not None:
        assert _shape(fast) == _markdown_it(text)
