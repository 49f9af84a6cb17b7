"""Cutting streamed Markdown into pieces that render the same apart as together.

The TUI renders each finished piece once and keeps its lines; only the open tail is rendered
again per frame, so the cost of a frame depends on the tail, not on the length of the answer.
Rendering treats a single newline as a line break (as pi does) and spaces blocks so that a cut
changes nothing (``markdown.layout``), which makes a line boundary a safe cut in these places:

* after a blank line outside fenced code, before a line that does not start with white space
  (a ``gap``: the blank line is drawn between the pieces);
* between two code lines inside a fence opened at column 0: the next piece *continues* the fence
  (``fence`` holds the opening line, so it is rendered as code with the same language, and the
  lexer goes on in the state the piece before ended in);
* between two lines of a top-level paragraph whose inline markup is balanced, so a giant block
  with no blank line still freezes line by line;
* before a bullet item of the open top-level list (same bullet), and before an ordered item
  whose number is the one the list would give it anyway (``1.``, ``2.``, … in order; a list
  written ``1.``, ``1.``, ``1.`` is only cut where it restarts), with or without a blank line.

What a line means can depend on the lines before it (a lazy continuation line belongs to the
list item or quote above; ``2.`` after a paragraph line is text, not a list), so the scan keeps a
small :class:`Context` from line to line and from one piece to the next.

A burst (a fast model, a resumed message) is cut into pieces of about ``BURST_PIECE_CHARS`` so
that each can be rendered on its own, and only when it is seen.

Everything here is pure (no Textual, no Rich), so it is tested on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import NamedTuple

_BULLET = re.compile(r"([-*+])[ \t]+\S")
_ORDERED = re.compile(r"(\d{1,9})([.)])(?:[ \t]|$)")
_RULE = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
_HTML_UNTIL = (  # HTML blocks that run on over blank lines, until a line holding their end
    (
        re.compile(r"<(?:script|pre|style|textarea)(?:\s|>|$)", re.I),
        re.compile(r"</(?:script|pre|style|textarea)>", re.I),
    ),
    (re.compile(r"<!--"), re.compile(r"-->")),
    (re.compile(r"<\?"), re.compile(r"\?>")),
    (re.compile(r"<![A-Za-z]"), re.compile(r">")),
    (re.compile(r"<!\[CDATA\["), re.compile(r"\]\]>")),
)
_CODE_SPAN = re.compile(r"`[^`]*`")

BURST_PIECE_CHARS = 1500
"""Size of the pieces a burst is cut into: small enough to render in a few milliseconds."""
_BURST_WINDOW = 4 * BURST_PIECE_CHARS  # how far ahead a burst cut is looked for


@dataclass(slots=True)
class Piece:
    """A frozen piece of source. ``fence``: the fence opening line this piece continues ("" if none);
    ``gap``: a blank line separates it from the piece before; ``open_end``: it was cut inside a
    fence (the code goes on in the next piece)."""

    text: str
    fence: str = ""
    gap: bool = False
    open_end: bool = False


@dataclass(frozen=True, slots=True)
class Context:
    """What the scan knows at a line boundary about the lines before it.

    ``blank``: the line before was blank (or there is none); ``paragraph``: it was text that a
    following line may continue, of a top-level paragraph ("top": ``2.`` cannot interrupt it) or
    inside a list item or quote ("nested"), or "" for none; ``run``: what opened the current
    stretch of non-blank lines ("plain", "list", "html", "other"; "" after a blank line or a
    one-line block); ``number``: the number the last item of the open top-level ordered list
    shows (0: none open, -1: cannot tell), ``delimiter`` its ``.`` or ``)``; ``bullet``: the
    bullet of the open top-level bullet list ("" none, "?" cannot tell); ``html_end``: the end
    marker of an open multi-line HTML block.
    """

    blank: bool = True
    paragraph: str = ""
    run: str = ""
    number: int = 0
    delimiter: str = ""
    bullet: str = ""
    html_end: re.Pattern[str] | None = None


class Cut(NamedTuple):
    """A safe cut: ``offset`` into the text (0: none), the fence open there, whether a blank line
    precedes it, and the context after it."""

    offset: int
    fence: str
    gap: bool
    context: Context


def _kind(line: str) -> str:
    """What a line at column 0 would open (before knowing what precedes it)."""
    if not line.strip():
        return "blank"
    if _fence_open(line) is not None:
        return "fence"
    if line[0] in " \t":
        return "indent"
    if _RULE.fullmatch(line):
        return "rule"
    if _BULLET.match(line):
        return "bullet"
    if line[0].isdigit() and _ORDERED.match(line):
        return "ordered"
    first = line[0]
    if first == "#":
        return "heading" if _HEADING.match(line) else "plain"
    if first == ">":
        return "quote"
    if first == "<":
        return "html"
    if "|" in line:
        return "table"
    if line.strip() in ("-", "+", "*"):
        return "other"  # an empty list item: nothing to cut beside
    return "plain"


def _balanced(text: str) -> bool:
    """Inline markup that could span lines is closed: code spans, strong/emphasis, strike-through,
    link brackets (by counting, outside code spans; a doubt only delays a cut)."""
    if text.count("`") % 2:
        return False
    text = _CODE_SPAN.sub("", text) if "`" in text else text
    stars = text.count("**")
    if stars % 2 or (text.count("*") - 2 * stars) % 2 or text.count("~") % 2:
        return False
    if text.count("[") != text.count("]"):
        return False
    if "_" in text:
        edges = sum(1 for m in re.finditer("_", text) if not _inside_word(text, m.start()))
        if edges % 2:
            return False
    return True


def _inside_word(text: str, index: int) -> bool:
    return 0 < index < len(text) - 1 and text[index - 1].isalnum() and text[index + 1].isalnum()


def _ordered_display(context: Context, number: int, delimiter: str) -> int:
    """The number an ordered item line shows after ``context`` (0: the line is paragraph text,
    -1: cannot tell)."""
    if context.number > 0:
        return context.number + 1 if context.delimiter == delimiter else -1
    if context.number < 0:
        return -1
    if context.paragraph == "top" and not context.blank and number != 1:
        return 0  # "2." cannot interrupt a top-level paragraph: it goes on as text
    return number


def _advance(context: Context, line: str, kind: str) -> Context:
    """The context after ``line`` (outside fenced code)."""
    run, paragraph = context.run, "nested"
    number, delimiter, bullet = context.number, context.delimiter, context.bullet
    html_end = context.html_end
    if html_end is not None:
        if html_end.search(line):  # the block ends on this line: the next one starts afresh
            return replace(context, blank=False, html_end=None, run="", paragraph="")
        return replace(context, blank=False)
    if kind == "blank":
        return replace(context, blank=True, paragraph="", run="")
    if context.run == "html":
        return replace(context, blank=False)  # an HTML block runs on to the next blank line
    if kind == "indent":
        indent = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
        if not context.blank:
            paragraph = context.paragraph
        elif not (number or bullet):  # at the top: a paragraph, or indented code from 4 columns
            paragraph = "top" if indent < 4 else ""
        elif indent < (3 if number else 2):  # too little to stay in the item: it may end the list
            number, bullet, paragraph = -1, "?", "top"
        run = run or "other"
        if line.lstrip().startswith(("```", "~~~")):
            number, bullet = -1, "?"  # a fence inside a list item: where it ends is not tracked
    elif kind == "ordered":
        match = _ORDERED.match(line)
        assert match is not None
        shown = _ordered_display(context, int(match.group(1)), match.group(2))
        if shown > 0:
            number, delimiter, bullet, run = shown, match.group(2), "", "list"
        elif shown < 0:
            number, bullet, run = -1, "?", "list"
        else:
            paragraph = context.paragraph  # text going on
    elif kind == "bullet":
        number, bullet, run = 0, line[0], "list"
    elif kind in ("heading", "rule"):
        number, bullet, paragraph, run = 0, "", "", ""
    elif kind == "quote":
        number, bullet, run = 0, "", "other"
    elif kind in ("html", "table", "other") and not context.blank:
        # A lazy continuation line, or a block interrupting the text above (an HTML block then
        # runs to the next blank line, or past blank lines to its end marker: a comment, <pre>
        # and the like interrupt a paragraph too).
        number, bullet, run = -1, "?", "html" if kind == "html" else "other"
        paragraph = context.paragraph or "nested"
        if kind == "html":
            html_end = _html_end(line)
    elif kind in ("html", "table", "other"):
        number, bullet, run, paragraph = 0, "", "html" if kind == "html" else "other", ""
        if kind == "html":
            html_end = _html_end(line)
    elif context.blank or not context.paragraph:  # plain text: a new top-level paragraph
        number, bullet, paragraph, run = 0, "", "top", run or "plain"
    else:  # plain text going on (a lazy line keeps the item or quote it continues)
        paragraph, run = context.paragraph, run or "plain"
    return Context(False, paragraph, run, number, delimiter, bullet, html_end)


def _html_end(line: str) -> re.Pattern[str] | None:
    """The end marker an HTML block opened by ``line`` runs on to over blank lines (None: it
    ends at the next blank line, or on this very line)."""
    return next((end for begin, end in _HTML_UNTIL if begin.match(line) and not end.search(line)), None)


def _fence_open(line: str) -> tuple[str, str] | None:
    """(marker, opening line to repeat or "" when indented) if ``line`` opens a fence."""
    match = _FENCE.fullmatch(line)
    if match is None or (match.group(2)[0] == "`" and "`" in match.group(3)):
        return None
    return match.group(2), "" if match.group(1) else line + "\n"


def _fence_close(line: str, marker: str) -> bool:
    stripped = line.strip()
    return (
        len(line) - len(line.lstrip(" ")) <= 3
        and len(stripped) >= len(marker)
        and stripped == marker[0] * len(stripped)
    )


def next_cut(text: str, fence: str, minimum: int, *, first: bool = False, context: Context | None = None) -> Cut:
    """The last safe cut in ``text`` at or past ``minimum`` chars (the first one when ``first``).

    ``fence`` is the fence opening line ``text`` starts inside ("" if none) and ``context`` what
    is known of the text before it; the result holds the fence open at the cut and the context
    there. An offset of 0 means no cut. The last line of ``text`` may still be growing, so a cut
    needs a complete line after it.
    """
    context = context or Context()
    lines = text.split("\n")
    found = _fence_open(fence.rstrip("\n")) if fence else None
    marker, opener = (found[0], fence) if found else ("", "")
    offset = 0
    best = Cut(0, "", False, context)
    start = 0  # offset where the current run of cut-free text began (for the markup balance)
    for index, line in enumerate(lines[:-1]):
        following = lines[index + 1]
        offset += len(line) + 1
        growing = index >= len(lines) - 2
        if marker:
            if _fence_close(line, marker):
                marker, opener = "", ""
                context = Context(blank=False)  # a fence at column 0 ended any list
                continue
            # Inside code: cut between two non-blank code lines of a fence opened at column 0
            # (trailing blank code lines are not drawn, and an indented fence belongs to a list).
            inside = (
                bool(opener) and bool(line.strip()) and bool(following.strip()) and not _fence_close(following, marker)
            )
            if offset >= minimum and not growing and inside:
                best = Cut(offset, opener, False, context)
            if first and best.offset:
                break
            continue
        kind = _kind(line)
        opened = _fence_open(line) if kind == "fence" and context.html_end is None and context.run != "html" else None
        if opened is not None:
            marker, opener = opened
            context = Context(blank=False)
            continue
        context = _advance(context, line, kind)
        if offset < minimum or context.html_end is not None:
            continue
        next_kind = _kind(following)
        if growing and not (kind == "blank" and next_kind == "plain" and following[:1].isalpha()):
            # The line after the cut is still growing and its start may yet change its meaning
            # ("1" → "1. item"); only a letter after a blank line is surely a new paragraph.
            continue
        cut = _cut_here(context, line, kind, following, next_kind, text[start:offset])
        if cut is not None:
            best = Cut(offset, "", cut, context)
            start = offset
        if first and best.offset:
            break
    return best


def _cut_here(context: Context, line: str, kind: str, following: str, next_kind: str, run_text: str) -> bool | None:
    """Whether the boundary after ``line`` (with ``context`` after it) is a safe cut before
    ``following``: True with a gap, False without, None not safe."""
    if next_kind in ("blank", "indent", "other") or (context.run == "html" and kind != "blank"):
        return None
    if next_kind == "ordered":
        match = _ORDERED.match(following)
        assert match is not None
        literal = int(match.group(1))
        if _ordered_display(context, literal, match.group(2)) != literal:
            return None
        if kind == "blank":
            return True
        return False if context.number > 0 else None  # the next item of this very list
    if kind == "blank":
        return True
    if next_kind == "bullet":
        return False if context.bullet == following[0] and kind != "blank" else None
    if kind == "plain" and next_kind == "plain" and context.run == "plain" and _balanced(run_text):
        return False
    return None


@dataclass
class PieceStream:
    """Streamed text as frozen pieces plus an open tail; ``minimum``: chars a piece needs before
    a cut is taken (small while streaming, so the tail stays short)."""

    minimum: int = 200
    pieces: list[Piece] = field(default_factory=list)
    tail: str = ""
    fence: str = ""  # the fence opening line the tail continues
    gap: bool = False  # a blank line separates the tail from the last piece
    context: Context = field(default_factory=Context)  # what the cutter knows where the tail starts

    @property
    def source(self) -> str:
        """The whole text fed so far (continued fences are not repeated)."""
        return "".join(piece.text for piece in self.pieces) + self.tail

    def feed(self, fragment: str) -> int:
        """Append ``fragment``; returns how many pieces were frozen by it."""
        self.tail += fragment
        before = len(self.pieces)
        if len(self.tail) < self.minimum:
            return 0
        size = _BURST_WINDOW
        while len(self.tail) > 2 * BURST_PIECE_CHARS:
            # Look only a few pieces ahead, so cutting a megabyte stays linear; past a stretch
            # with no safe cut (a long table), look further instead of giving up.
            cut = next_cut(self.tail[:size], self.fence, BURST_PIECE_CHARS, first=True, context=self.context)
            if not cut.offset:
                if size >= len(self.tail):
                    break
                size *= 2
                continue
            size = _BURST_WINDOW
            self._freeze(cut)
        cut = next_cut(self.tail, self.fence, self.minimum, context=self.context)
        if cut.offset:
            self._freeze(cut)
        return len(self.pieces) - before

    def _freeze(self, cut: Cut) -> None:
        self.pieces.append(Piece(self.tail[: cut.offset], self.fence, self.gap, bool(cut.fence)))
        self.tail, self.fence, self.gap, self.context = self.tail[cut.offset :], cut.fence, cut.gap, cut.context

    def close(self) -> None:
        """The text is complete: the tail becomes the last piece."""
        if self.tail.strip():
            self.pieces.append(Piece(self.tail, self.fence, self.gap))
        self.tail, self.fence, self.gap, self.context = "", "", False, Context()
