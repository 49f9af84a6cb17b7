"""Streaming Markdown whose cost per frame depends on the new text, not on the message length.

One widget per text block, drawn with Textual's line API from cached lines. The text is cut into
pieces (``markdown_pieces``: at blank lines, between code lines of an open fence, between plain
lines) that are rendered once per width with Rich's Markdown and never again; only the open tail
(usually a line or two) is rendered per frame. A frame that does not change the number of lines
repaints only the lines that changed and asks for no layout, so the rest of the screen is neither
measured nor drawn again. A tail with no safe cut that grows past ``PLAIN_TAIL_CHARS`` (a giant
table) is drawn as plain text until it closes.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip

from pi_cli.modes.interactive.markdown_pieces import Piece, PieceStream
from pi_cli.modes.interactive.widgets.main_screen import LaidOutOnce

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from rich.console import Console, RenderableType

STREAM_CUT_CHARS = 200  # while streaming: freeze often, so the tail stays a line or two
FINISHED_CUT_CHARS = 4000  # a finished text (history): fewer, larger pieces
PLAIN_TAIL_CHARS = 12_000
STREAM_SLACK = 2  # spare blank rows below streaming text, so layouts come every third line
CODE_THEME = "monokai"


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    """One parser for every render (Rich builds a new one per ``Markdown``: ~0.3 ms each)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("strikethrough").enable("table")


def _parse(text: str) -> list[Any]:
    """Tokens of ``text`` with every soft line break made a hard one: pi shows a single newline
    as a line break (Rich would join the lines), and it keeps a cut between lines invisible."""
    tokens = _parser().parse(text)
    for token in tokens:
        for child in token.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"
    return tokens


@lru_cache(maxsize=1)
def _markdown_class() -> Any:
    from rich.markdown import Markdown  # ~60 ms to import: not on the start-up path

    class SharedParserMarkdown(Markdown):
        """Rich's Markdown with Rich's attributes, parsed by the shared parser."""

        def __init__(self, markup: str) -> None:
            self.markup = markup
            self.parsed = _parse(markup)
            self.code_theme = CODE_THEME
            self.justify = None
            self.style = "none"
            self.hyperlinks = False
            self.inline_code_lexer = None
            self.inline_code_theme = CODE_THEME

    return SharedParserMarkdown


def markdown(text: str) -> RenderableType:
    """Rich's Markdown renderable for ``text``."""
    return _markdown_class()(text)  # type: ignore[no-any-return]


def warm_up(console: Console) -> None:
    """Import and exercise the Markdown renderer once (fenced code included)."""
    console.render_lines(markdown("# a\n\n*b* `c`\n\n- d\n\n```python\nx = 1\n```\n"), console.options)


def render_piece(console: Console, piece: Piece, width: int, style: Any = None) -> list[Strip]:
    """A piece's lines at ``width``: a code block cut in two loses its padding rows at the cut,
    blank rows without a background go at both ends (Rich opens lists and tables and ends every
    block with one), a gap adds one blank row first."""
    options = console.options.update(width=width, height=None)
    source = piece.fence + piece.text if piece.fence else piece.text
    lines = console.render_lines(markdown(source), options, style=style, pad=True)
    strips = [Strip(line, width) for line in lines]
    while strips and _bare(strips[-1]):
        strips.pop()
    if piece.open_end and strips:
        strips.pop()
    if piece.fence and strips:
        strips.pop(0)
    while strips and _bare(strips[0]):
        strips.pop(0)
    if piece.gap and strips:
        strips.insert(0, Strip.blank(width))
    return strips


def _bare(strip: Strip) -> bool:
    """A blank row with no background (not a code block's padding)."""
    return not strip.text.strip() and not any(seg.style and seg.style.bgcolor for seg in strip)


class StreamingMarkdown(LaidOutOnce):
    """Assistant text: frozen pieces (cached lines) followed by one live tail."""

    DEFAULT_CSS = """
    StreamingMarkdown { height: auto; padding: 0 1; }
    """

    def __init__(self, text: str = "", *, finished: bool = False) -> None:
        super().__init__()
        self._stream = PieceStream(FINISHED_CUT_CHARS if finished else STREAM_CUT_CHARS)
        self._stream.feed(text)
        if finished:
            self._stream.close()
        self._width = -1
        self._frozen: list[Strip] = []  # lines of pieces[:_rendered] at _width
        self._rendered = 0
        self._tail: list[Strip] = []
        self._tail_stale = True
        self._height = 0  # rows reported to layout (>= rows drawn while streaming: see _changed)
        self._height_width = -1

    @property
    def source(self) -> str:
        return self._stream.source

    @property
    def piece_count(self) -> int:
        """Frozen pieces so far (each rendered once)."""
        return len(self._stream.pieces)

    async def append(self, fragment: str) -> None:
        """Add streamed text: freeze what became safe, re-render only the tail."""
        if fragment:
            self._stream.feed(fragment)
            self._changed()

    async def replace(self, text: str) -> None:
        """Set the whole text (used when the final message differs from what streamed)."""
        self._stream = PieceStream(self._stream.minimum)
        self._stream.feed(text)
        self.restyle()

    async def finish(self) -> None:
        """The message ended: the tail becomes a frozen piece too, and the spare rows go."""
        self._stream.close()
        self._changed()

    def restyle(self) -> None:
        """Drop every cached line so the next paint re-renders with the console's current styles
        (after a theme switch)."""
        self._width = -1
        self.refresh(layout=True)

    # --- rendering --------------------------------------------------------------------------

    def _lines_at(self, width: int) -> tuple[list[Strip], list[Strip]]:
        if width != self._width:
            self._width, self._frozen, self._rendered, self._tail_stale = width, [], 0, True
        if width <= 0:
            return [], []
        console = self.app.console
        pieces = self._stream.pieces
        while self._rendered < len(pieces):
            if not self._frozen and pieces[self._rendered].gap:
                pieces[self._rendered].gap = False  # no blank row above the first piece
            self._frozen.extend(render_piece(console, pieces[self._rendered], width))
            self._rendered += 1
        if self._tail_stale:
            self._tail = self._render_tail(console, width)
            self._tail_stale = False
        return self._frozen, self._tail

    def _render_tail(self, console: Console, width: int) -> list[Strip]:
        stream = self._stream
        tail = stream.tail if stream.fence else stream.tail.strip("\n")
        if not tail.strip():
            return []
        if len(tail) > PLAIN_TAIL_CHARS:
            options = console.options.update(width=width, height=None)
            lines = [Strip(line, width) for line in console.render_lines(Text(tail), options, pad=True)]
            return [Strip.blank(width), *lines] if stream.gap and self._frozen else lines
        piece = Piece(tail, stream.fence, stream.gap and bool(self._frozen))
        return render_piece(console, piece, width)

    def _changed(self) -> None:
        """Re-render the tail now and ask for the least repaint that shows it."""
        width = self._width
        if not self.is_mounted or width <= 0:
            self._tail_stale = True
            self.refresh(layout=True)
            return
        old_frozen, old_tail, old_height = len(self._frozen), self._tail, self._height
        self._tail_stale = True
        frozen, tail = self._lines_at(width)
        count = len(frozen) + len(tail)
        if self._stream.tail or self._stream.fence:
            # Streaming: grow in steps of STREAM_SLACK + 1 rows and never shrink, so a layout of
            # the whole screen (and a scroll) comes every few lines instead of every line.
            height = old_height if count <= old_height else count + STREAM_SLACK
        else:
            height = count
        if height != old_height:
            self._height = height
            self.refresh(layout=True)
            return
        # Same height: lines above the old tail are unchanged; repaint the ones that differ.
        new = frozen[old_frozen:] + tail
        span = max(len(new), len(old_tail))
        blank = Strip.blank(width)
        changed = [
            y for y in range(span)
            if (old_tail[y] if y < len(old_tail) else blank) != (new[y] if y < len(new) else blank)
        ]  # fmt: skip
        if changed:
            self.refresh(Region(0, old_frozen + changed[0], width, changed[-1] - changed[0] + 1))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        frozen, tail = self._lines_at(width)
        count = len(frozen) + len(tail)
        if not (self._stream.tail or self._stream.fence) or width != self._height_width:
            self._height = count  # finished, or a new width: exact
            self._height_width = width
        self._height = max(self._height, count)
        return self._height

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        frozen, tail = self._lines_at(width)
        if 0 <= y < len(frozen):
            return frozen[y].apply_style(self.rich_style)
        if 0 <= y - len(frozen) < len(tail):
            return tail[y - len(frozen)].apply_style(self.rich_style)
        return Strip.blank(width, self.rich_style)
