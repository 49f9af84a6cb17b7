"""Cutting streamed Markdown into pieces that render the same apart as together.

The TUI renders each finished piece once and keeps its lines; only the open tail is rendered
again per frame, so the cost of a frame depends on the tail, not on the length of the answer.
Rendering treats a single newline as a line break (as pi does), which makes a line boundary a
safe cut in three places:

* after a blank line outside fenced code, before a line that does not start with whitespace
  (a ``gap``: the blank line is drawn between the pieces);
* between two code lines inside a fence opened at column 0: the next piece *continues* the fence
  (``fence`` holds the opening line, so it is rendered as code with the same language);
* between two plain paragraph lines (or two bullet items) whose inline markup is balanced, so a
  giant block with no blank line still freezes line by line.

A burst (a fast model, a resumed message) is cut into pieces of about ``BURST_PIECE_CHARS`` so
that each can be rendered on its own, and only when it is seen.

Everything here is pure (no Textual, no Rich), so it is tested on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BULLET = re.compile(r"[-*+] \S")
_ORDERED = re.compile(r"\d{1,9}[.)](\s|$)")
_NOT_PLAIN = tuple("#>|=-~<`[ \t")

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


def _fence_marker(line: str) -> str | None:
    stripped = line.lstrip()
    if stripped.startswith("```") or stripped.startswith("~~~"):
        return stripped[:3]
    return None


def _plain(line: str) -> bool:
    """A line that can only continue or start a paragraph (no block syntax at its start)."""
    if not line or line.startswith(_NOT_PLAIN) or _ORDERED.match(line):
        return False
    return not (line.startswith(("*", "+", "_")) and (_BULLET.match(line) or line.strip() in ("***", "___")))


def _joinable(line: str, following: str) -> bool:
    """Two lines a cut between does not change: plain paragraph lines, or two bullet items."""
    return (_plain(line) and _plain(following)) or bool(_BULLET.match(line) and _BULLET.match(following))


def _balanced(text: str) -> bool:
    """Inline markup that could span lines is closed: code spans, strong, strike-through."""
    return text.count("`") % 2 == 0 and text.count("**") % 2 == 0 and text.count("~~") % 2 == 0


def next_cut(text: str, fence: str, minimum: int, *, first: bool = False) -> tuple[int, str, bool]:
    """The last safe cut in ``text`` at or past ``minimum`` chars (the first one when ``first``):
    ``(offset, fence, gap)``.

    ``fence`` is the fence opening line ``text`` starts inside ("" if none); the result's fence is
    the one open at the cut. ``offset`` 0 means no cut. The last line of ``text`` may still be
    growing, so a cut needs a complete line after it.
    """
    lines = text.split("\n")
    marker = _fence_marker(fence) if fence else None
    opener = fence
    offset = 0
    best = (0, "", False)
    start = 0  # offset where the current run of cut-free text began (for the markup balance)
    for index, line in enumerate(lines[:-1]):
        following = lines[index + 1]
        found = _fence_marker(line)
        if marker is None and found is not None:
            marker, opener = found, (line + "\n" if not line[0].isspace() else "")
        elif marker is not None and line.lstrip().startswith(marker):
            marker, opener = None, ""
            offset += len(line) + 1
            continue
        offset += len(line) + 1
        if offset < minimum:
            continue
        if index >= len(lines) - 2 and not (marker is None and not line.strip() and following[:1].isalpha()):
            # The line after the cut is still growing and its start may yet change its meaning
            # ("1" → "1. item"); only a letter after a blank line is surely a new paragraph.
            continue
        if marker is not None:
            # Inside code: cut between two non-blank code lines of a fence opened at column 0
            # (Rich drops trailing blank code lines, and an indented fence belongs to a list).
            if opener and found is None and line.strip() and following.strip() and _fence_marker(following) is None:
                best = (offset, opener, False)
        elif not line.strip():
            if following and not following[0].isspace() and not _ORDERED.match(following):
                best = (offset, "", True)
                start = offset
        elif _joinable(line, following) and _balanced(text[start:offset]):
            best = (offset, "", False)
            start = offset
        if first and best[0]:
            break
    return best


@dataclass
class PieceStream:
    """Streamed text as frozen pieces plus an open tail; ``minimum``: chars a piece needs before
    a cut is taken (small while streaming, so the tail stays short)."""

    minimum: int = 200
    pieces: list[Piece] = field(default_factory=list)
    tail: str = ""
    fence: str = ""  # the fence opening line the tail continues
    gap: bool = False  # a blank line separates the tail from the last piece

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
            cut = next_cut(self.tail[:size], self.fence, BURST_PIECE_CHARS, first=True)
            if not cut[0]:
                if size >= len(self.tail):
                    break
                size *= 2
                continue
            size = _BURST_WINDOW
            self._freeze(*cut)
        cut = next_cut(self.tail, self.fence, self.minimum)
        if cut[0]:
            self._freeze(*cut)
        return len(self.pieces) - before

    def _freeze(self, offset: int, fence: str, gap: bool) -> None:
        self.pieces.append(Piece(self.tail[:offset], self.fence, self.gap, bool(fence)))
        self.tail, self.fence, self.gap = self.tail[offset:], fence, gap

    def close(self) -> None:
        """The text is complete: the tail becomes the last piece."""
        if self.tail.strip():
            self.pieces.append(Piece(self.tail, self.fence, self.gap))
        self.tail, self.fence, self.gap = "", "", False
