"""Inline Markdown (markdown-it's children of an ``inline`` token) to lines of styled spans.

Every line break in the source is a line break on screen (pi shows a single newline as one, and
it keeps a cut between streamed lines invisible). Emphasis, strong and strike-through stack on
the block's base style; a code span adds the palette's code style; a link shows its text in the
link style and then `` (url)`` unless the text already is the URL (an autolink). Inline HTML is
shown as written; an image as its alt text (or its address) in the link style.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from rich.style import Style

from pi_cli.modes.interactive.markdown.cells import Span

if TYPE_CHECKING:
    from pi_cli.modes.interactive.markdown.styles import Palette

TAB = "    "


class InlineToken(Protocol):
    """What is read of an inline token: markdown-it's ``Token`` or ``prose.Token``."""

    @property
    def type(self) -> str: ...

    @property
    def content(self) -> str: ...

    @property
    def attrs(self) -> Mapping[str, str | int | float]: ...


def inline_lines(children: Sequence[InlineToken] | None, base: Style, palette: Palette) -> list[list[Span]]:
    """The spans of each source line of an inline token's children (at least one line)."""
    lines: list[list[Span]] = [[]]
    current = lines[0]
    stack = [base]
    links: list[tuple[str, list[str]]] = []  # open links: href and the plain text seen so far
    for token in children or ():
        kind = token.type
        if kind == "text" or kind == "html_inline":
            text = token.content
            if text:
                if "\t" in text:
                    text = text.replace("\t", TAB)
                current.append((text, stack[-1]))
                if links:
                    links[-1][1].append(text)
        elif kind == "softbreak" or kind == "hardbreak":
            current = []
            lines.append(current)
        elif kind == "code_inline":
            current.append((token.content.replace("\t", TAB), stack[-1] + palette.code))
            if links:
                links[-1][1].append(token.content)
        elif kind == "strong_open":
            stack.append(stack[-1] + palette.strong)
        elif kind == "em_open":
            stack.append(stack[-1] + palette.em)
        elif kind == "s_open":
            stack.append(stack[-1] + palette.strike)
        elif kind == "link_open":
            links.append((str(token.attrs.get("href", "")), []))
            stack.append(stack[-1] + palette.link)
        elif kind in ("strong_close", "em_close", "s_close"):
            if len(stack) > 1:
                stack.pop()
        elif kind == "link_close":
            if len(stack) > 1:
                stack.pop()
            if links:
                href, seen = links.pop()
                text = "".join(seen)
                if href and text != href and text != href.removeprefix("mailto:"):
                    style = stack[-1]
                    current.extend(((" (", style), (href, style + palette.link_url), (")", style)))
        elif kind == "image":
            alt = token.content or str(token.attrs.get("src", ""))
            if alt:
                current.append((alt, stack[-1] + palette.link))
        elif token.content:
            current.append((token.content, stack[-1]))
    return lines
