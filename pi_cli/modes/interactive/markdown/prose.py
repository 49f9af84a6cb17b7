"""A fast path for plain prose: paragraphs with code spans, emphasis, strong and strike-through.

Most streamed pieces are a paragraph or two of prose, and markdown-it spends ~150 µs on one. For a
piece whose every line can only be paragraph text, :func:`prose_blocks` builds the same blocks,
with the same inline tokens, that markdown-it would — or returns None, and markdown-it parses it.

The subset is chosen so that agreeing with markdown-it is easy to check, not guessed:

* block level: no line starts with white space or with a character that could open another block
  (``# > - + = | ~ < [``, a digit and ``.``/``)``, a bullet or a rule of ``*``/``_``), no line holds
  ``|`` (a table row) or a tab; paragraphs are then exactly the runs of non-blank lines;
* inline: outside code spans, no ``\\ [ ] < > &`` (escapes, links, images, autolinks, HTML,
  entities); backtick runs are single backticks (paired left to right, as markdown-it pairs them);
  ``*``/``_`` runs of one or two and ``~`` runs of two are classified with markdown-it's own
  flanking rules, and taken only when every closer closes the opener on top of the stack with the
  same marker and length (anything less regular goes to markdown-it).

tests/ui/test_markdown_prose.py compares the two on generated text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pi_cli.modes.interactive.markdown.blocks import Block


@dataclass(slots=True)
class Token:
    """The fields of a markdown-it inline token that the renderer reads."""

    type: str
    content: str = ""
    attrs: dict[str, str | int | float] = field(default_factory=dict)


_BAD_CHARS = re.compile(r"[\\\[\]<>&\t\r\x00-\x08\x0b-\x1f\x7f]")
_BAD_START = frozenset("#>-+=|~<[ \t")
_ORDERED = re.compile(r"\d{1,9}[.)](?:\s|$)")
_RULE = re.compile(r"(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}")
_MARKS = re.compile(r"`+|[*_~]+|\n")
_OPEN = {"*": ("em_open", "strong_open"), "_": ("em_open", "strong_open"), "~": ("", "s_open")}
_CLOSE = {"*": ("em_close", "strong_close"), "_": ("em_close", "strong_close"), "~": ("", "s_close")}


def prose_blocks(text: str) -> list[Block] | None:
    """The blocks of ``text`` if it is plain prose (see the module docs), else None."""
    if "|" in text or "\t" in text or "\r" in text:
        return None
    blocks: list[Block] = []
    lines = text.split("\n")
    start = -1
    for number, line in enumerate([*lines, ""]):
        if not line.strip(" "):
            if start >= 0:
                children = _inline("\n".join(lines[start:number]).strip())
                if children is None:
                    return None
                blocks.append(Block("paragraph", start, number, inline=children))
                start = -1
            continue
        if not _paragraph_line(line):
            return None
        if start < 0:
            start = number
    return blocks


def _paragraph_line(line: str) -> bool:
    first = line[0]
    if first in _BAD_START:
        return False
    if first.isdigit() and _ORDERED.match(line):
        return False
    if first == "*" and (line.startswith("* ") or line == "*" or _RULE.fullmatch(line)):
        return False
    return not (first == "_" and _RULE.fullmatch(line))


def _classifier() -> Callable[[str], tuple[bool, bool]]:
    # markdown-it is imported when the first paragraph is, not with the TUI (~45 ms).
    from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace

    def kind(char: str) -> tuple[bool, bool]:
        """(white space, punctuation) as markdown-it's delimiter scan sees ``char``."""
        return isWhiteSpace(ord(char)), isMdAsciiPunct(ord(char)) or isPunctChar(char)

    return kind


def _inline(source: str) -> list[Token] | None:
    """markdown-it's inline children of a paragraph's ``source``, or None outside the subset."""
    _kind = _classifier()
    tokens: list[Token] = []
    stack: list[tuple[str, int, int]] = []  # open delimiters: marker, length, token index
    text_start = 0
    code_open = -1  # offset after an opening backtick

    def flush(end: int) -> None:
        if end > text_start:
            piece = source[text_start:end]
            if tokens and tokens[-1].type == "text":
                tokens[-1].content += piece
            else:
                tokens.append(Token("text", piece))

    for match in _MARKS.finditer(source):
        begin, end = match.span()
        mark = match.group()
        if code_open >= 0:
            if mark == "`":
                content = source[code_open:begin].replace("\n", " ")
                if content.startswith(" ") and content.endswith(" ") and content.strip():
                    content = content[1:-1]
                tokens.append(Token("code_inline", content))
                code_open, text_start = -1, end
            elif mark[0] == "`":
                return None
            continue
        if _BAD_CHARS.search(source, text_start, begin):
            return None
        if mark[0] == "`":
            if len(mark) != 1:
                return None
            flush(begin)
            code_open = end
            continue
        if mark == "\n":
            before = source[text_start:begin]
            kept = before.rstrip(" ")
            flush(text_start + len(kept))
            tokens.append(Token("hardbreak" if len(before) - len(kept) >= 2 else "softbreak"))
            text_start = end
            continue
        marker, length = mark[0], len(mark)
        if len(set(mark)) != 1 or length > 2 or (marker == "~" and length == 1):
            if marker == "~" and mark == "~":
                continue  # a single tilde is text
            return None
        last_space, last_punct = _kind(source[begin - 1]) if begin else (True, False)
        next_space, next_punct = _kind(source[end]) if end < len(source) else (True, False)
        left = not (next_space or (next_punct and not (last_space or last_punct)))
        right = not (last_space or (last_punct and not (next_space or next_punct)))
        if marker == "_":
            can_open = left and (not right or last_punct)
            can_close = right and (not left or next_punct)
        else:
            can_open, can_close = left, right
        if can_open and can_close:
            return None
        if can_close and any(entry[0] == marker for entry in stack):
            top_marker, top_length, index = stack.pop()
            if top_marker != marker or top_length != length:
                return None
            flush(begin)
            tokens[index] = Token(_OPEN[marker][length - 1])
            tokens.append(Token(_CLOSE[marker][length - 1]))
            text_start = end
        elif can_open:
            flush(begin)
            stack.append((marker, length, len(tokens)))
            tokens.append(Token("delim", mark))  # text unless a closer makes it an opener
            text_start = end
    if code_open >= 0:
        return None  # a lone backtick: markdown-it rescans after it; leave that to markdown-it
    if _BAD_CHARS.search(source, text_start):
        return None
    flush(len(source))
    return _join_text(tokens)


def _join_text(tokens: list[Token]) -> list[Token]:
    """Unmatched openers made text, and adjacent texts merged, as markdown-it does."""
    out: list[Token] = []
    for token in tokens:
        if token.type == "delim":
            token.type = "text"
        if token.type == "text" and out and out[-1].type == "text":
            out[-1].content += token.content
        elif token.type != "text" or token.content:
            out.append(token)
    return out
