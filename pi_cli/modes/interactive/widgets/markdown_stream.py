"""Streaming Markdown whose cost per frame depends on the new text, not on the message length.

One widget per text block, drawn with Textual's line API from cached lines. The text is cut into
pieces (``markdown_pieces``: at blank lines, between code lines of an open fence, between plain
lines or list items) that are rendered once per width by pi_cli's own renderer (``markdown``) and
never again; only the open tail (usually a line or two) is rendered per frame. Pieces more than a
screenful above the bottom (a burst from a fast model, a long resumed answer) are only estimated
until seen, or until the complete message renders them in small slices (``piece_lines``). A frame
that does not change the number of lines repaints only the lines that changed and asks for no
layout, so the rest of the screen is neither measured nor drawn again. A tail with no safe cut
that grows past ``PLAIN_TAIL_CHARS`` (a giant table) is drawn as plain text until it closes.
Styles come from the palette for the app's theme; :meth:`StreamingMarkdown.restyle` takes a new
one.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from pi_cli.modes.interactive.restyle import CoalescedRepaint
from pi_cli.modes.interactive.widgets.main_screen import LaidOutOnce
from pi_cli.modes.interactive.widgets.piece_lines import PieceLines

if TYPE_CHECKING:
    from rich.style import Style
    from textual.timer import Timer

    from pi_cli.modes.interactive.markdown import Palette
    from pi_cli.modes.interactive.markdown_pieces import Piece

STREAM_CUT_CHARS = 200  # while streaming: freeze often, so the tail stays a line or two
FINISHED_CUT_CHARS = 4000  # a finished text (history): fewer, larger pieces
PLAIN_TAIL_CHARS = 12_000
CATCH_UP_S = 0.1  # how often a complete message renders a slice of its estimated pieces
CATCH_UP_BUDGET_S = 0.006  # the slice: a few pieces, so typing stays smooth meanwhile
STREAM_SLACK = 2  # spare blank rows below streaming text, so layouts come every third line
FAST_SLACK = 8  # at most this many while text pours in (each layout repaints the whole transcript)
SLACK_GROWTH_S = 0.2  # the spare rows cover about this long of growth at the current rate

WARM_UP_TEXT = "# a\n\n*b* `c`\n\n- d\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n```python\nx = 1\n```\n"


def preload() -> None:
    """Import what the first Markdown render needs (the renderer and the cutter, markdown-it and
    its rules, pygments, the Python lexer and the code theme) without rendering; safe from any
    thread. The widget module itself imports none of it, so none of it delays the first paint."""
    from pygments.token import Token

    from pi_cli.modes.interactive.markdown import DARK
    from pi_cli.modes.interactive.markdown.code import lexer_for, token_style
    from pi_cli.modes.interactive.markdown.parse import parse
    from pi_cli.modes.interactive.markdown_pieces import PieceStream

    PieceStream().feed(WARM_UP_TEXT)
    parse(WARM_UP_TEXT)
    lexer_for("python")
    token_style(DARK.code_theme, Token.Text)


def warm_up() -> None:
    """Render a little Markdown once (fenced code and a table included), so the first answer's
    first frame pays for nothing but itself."""
    from pi_cli.modes.interactive.markdown import DARK, PieceRenderer
    from pi_cli.modes.interactive.markdown_pieces import Piece

    PieceRenderer([Piece(WARM_UP_TEXT)], DARK).render(0, 80)


class StreamingMarkdown(LaidOutOnce, CoalescedRepaint):
    """Assistant text: frozen pieces (rendered once, or only estimated until seen) followed by one
    live tail."""

    STYLED_WHEN_DRAWN = True

    DEFAULT_CSS = """
    StreamingMarkdown { height: auto; padding: 0 1; }
    """

    def __init__(self, text: str = "", *, finished: bool = False) -> None:
        from pi_cli.modes.interactive.markdown import DARK, PieceRenderer
        from pi_cli.modes.interactive.markdown_pieces import PieceStream

        super().__init__()
        self._stream = PieceStream(FINISHED_CUT_CHARS if finished else STREAM_CUT_CHARS)
        self._stream.feed(text)
        if finished:
            self._stream.close()
        self._complete = finished
        self._renderer = PieceRenderer(self._stream.pieces, DARK)
        self._palette_known = False  # set from the app's theme at the first layout
        self._lines = PieceLines(self._render_piece, -1)
        self._spare: PieceLines | None = None  # the lines at the width used before this one
        self._tail: list[Strip] = []
        self._tail_stale = True
        self._height = 0  # rows reported to layout (>= rows drawn while streaming: see _changed)
        self._height_width = -1
        self._catch_up: Timer | None = None
        self._kept_rows = 0  # rows still valid through the next resize (set by _changed)
        self._grown_at = 0.0  # when, and to how many rows, the streamed text last grew the widget
        self._grown_rows = 0

    @property
    def source(self) -> str:
        return self._stream.source

    @property
    def piece_count(self) -> int:
        """Frozen pieces so far."""
        return len(self._stream.pieces)

    @property
    def settled(self) -> bool:
        """Every frozen piece is rendered and laid out at its real height."""
        return self._lines.settled

    async def append(self, fragment: str) -> None:
        """Add streamed text: freeze what became safe, re-render only the tail."""
        if fragment:
            self._stream.feed(fragment)
            self._changed()

    async def replace(self, text: str) -> None:
        """Set the whole text (used when the final message differs from what streamed)."""
        from pi_cli.modes.interactive.markdown import PieceRenderer
        from pi_cli.modes.interactive.markdown_pieces import PieceStream

        self._stream = PieceStream(self._stream.minimum)
        self._stream.feed(text)
        self._renderer = PieceRenderer(self._stream.pieces, self._renderer.palette)
        self._drop_lines()

    async def finish(self) -> None:
        """The message ended: the tail becomes a frozen piece too, and the spare rows go."""
        self._stream.close()
        self._complete = True
        self._changed()
        self._settle_later()

    def restyle(self, palette: Palette | None = None) -> None:
        """Drop every cached line so the next paint re-renders with ``palette`` (default: the one
        for the app's current theme), e.g. after a theme switch."""
        if palette is None and self.is_attached:
            from pi_cli.modes.interactive.markdown import palette_for

            palette = palette_for(self.app.current_theme)
        if palette is not None:
            self._renderer.palette = palette
            self._palette_known = True
        # A palette changes colours and text styles, never the rows: the height stays, so no
        # second layout pass after the one the theme's CSS already causes.
        self._drop_lines(layout=False)

    def _drop_lines(self, layout: bool = True) -> None:
        self._lines = PieceLines(self._render_piece, -1)
        self._spare = None
        self.refresh(layout=layout)

    # --- rendering --------------------------------------------------------------------------

    def _render_piece(self, index: int, piece: Piece, width: int) -> list[Strip]:
        # The first piece never has a gap above it: PieceStream starts with none.
        return self._renderer.render(index, width)

    def _lines_at(self, width: int) -> tuple[PieceLines, list[Strip], int]:
        """The pieces' rows and the tail's lines at ``width``, and the first row whose content
        changed since the last call."""
        if not self._palette_known:
            from pi_cli.modes.interactive.markdown import palette_for

            self._renderer.palette = palette_for(self.app.current_theme)
            self._palette_known = True
        if width != self._lines.width:
            # Keep the other width's lines: a vertical scroll bar coming or going makes layout
            # and paint ask for two widths in turn for a few frames.
            spare, self._spare = self._spare, self._lines
            fits = spare is not None and spare.width == width
            self._lines = spare if spare is not None and fits else PieceLines(self._render_piece, width)
            self._tail_stale = True
        if width <= 0:
            return self._lines, [], 0
        # Render exactly what a screenful above the tail shows; anything higher is estimated.
        before = self._lines.total
        first_changed = self._lines.update(self._stream.pieces, self.app.size.height)
        if first_changed < before:
            self._kept_rows = 0  # rows above the tail moved: a resize must repaint them all
        if self._tail_stale:
            self._tail = self._render_tail(width)
            self._tail_stale = False
        return self._lines, self._tail, first_changed

    def _render_tail(self, width: int) -> list[Strip]:
        stream = self._stream
        tail = stream.tail if stream.fence else stream.tail.strip("\n")
        if not tail.strip():
            return []
        gap = stream.gap and self._lines.total > 0
        if len(tail) > PLAIN_TAIL_CHARS:
            return self._renderer.render_plain(tail, width, gap)
        from pi_cli.modes.interactive.markdown_pieces import Piece

        return self._renderer.render_tail(Piece(tail, stream.fence, gap), width)

    def _changed(self) -> None:
        """Re-render the tail now and ask for the least repaint that shows it."""
        width = self._lines.width
        if not self.is_mounted or width <= 0:
            self._tail_stale = True
            self.refresh(layout=True)
            return
        old_rows, old_tail, old_height = self._lines.total, self._tail, self._height
        self._tail_stale = True
        lines, tail, first_changed = self._lines_at(width)
        count = lines.total + len(tail)
        if self._stream.tail or self._stream.fence:
            # Streaming: grow in steps of a few rows and never shrink, so a layout of the whole
            # screen (and a scroll) comes every few lines instead of every line.
            height = old_height if count <= old_height else count + self._slack(count)
        else:
            height = count
        if height != old_height or first_changed < old_rows:
            # Rows above the first change keep their cached lines through the relayout (see
            # _size_updated); only the rows from there down are rendered again.
            top = min(first_changed, old_rows)
            self._height = height
            self._kept_rows = top
            self.refresh(Region(0, top, width, max(height, old_height) - top), layout=True)
            return
        # Same height: lines above the old tail are unchanged; repaint the ones that differ.
        new = lines.strips(old_rows, lines.total, self._stream.pieces) + tail
        span = max(len(new), len(old_tail))
        blank = Strip.blank(width)
        changed = [
            y for y in range(span)
            if (old_tail[y] if y < len(old_tail) else blank) != (new[y] if y < len(new) else blank)
        ]  # fmt: skip
        if changed:
            self.refresh(Region(0, old_rows + changed[0], width, changed[-1] - changed[0] + 1))

    def _slack(self, count: int) -> int:
        """Spare rows for a growth to ``count`` rows: STREAM_SLACK at a reading pace, more (up to
        FAST_SLACK) when a fast model adds tens of rows a second, which would otherwise ask for a
        layout and a repaint of the whole transcript nearly every frame."""
        now = time.monotonic()
        since, grew = now - self._grown_at, count - self._grown_rows
        self._grown_at, self._grown_rows = now, count
        if not 0 < since < 1:
            return STREAM_SLACK
        return max(STREAM_SLACK, min(FAST_SLACK, int(grew / since * SLACK_GROWTH_S)))

    # --- settling estimated pieces ---------------------------------------------------------------

    def _settle_later(self) -> None:
        """Once the text is complete, render the pieces that were only estimated, a slice at a
        time, then lay out once with their real heights."""
        if self._catch_up is None and self._complete and self.is_mounted and self._lines.pending:
            self._catch_up = self.set_interval(CATCH_UP_S, self._settle_some)

    def _settle_some(self) -> None:
        done = self._lines.resolve_some(self._stream.pieces, CATCH_UP_BUDGET_S)
        if done or not self.is_mounted:
            if self._catch_up is not None:
                self._catch_up.stop()
                self._catch_up = None
            self._relayout()

    def _relayout(self) -> None:
        """Lay out again with the real heights of the pieces rendered since the last commit. A
        person scrolled back keeps seeing the same text: the view moves by what grew above it."""
        scroller, top = self._view_top()
        shift = self._lines.growth_above(top) if scroller is not None and top > 0 else 0
        if not self._lines.commit() and not shift:
            self.refresh()
            return
        if scroller is not None and shift:
            target = scroller.scroll_y + shift
            scroller.scroll_to(y=target, animate=False, immediate=True)
            if scroller.scroll_y != target:
                # Clamped by the old height: the rest once the layout has made room.
                self.call_after_refresh(scroller.scroll_to, y=target, animate=False, immediate=True)
        self.refresh(layout=True)

    def _view_top(self) -> tuple[Widget | None, int]:
        """The scrolling ancestor and the row of this widget at its top edge, unless it follows
        the end (then Textual keeps the bottom in place and nothing needs moving)."""
        for node in self.ancestors:
            if isinstance(node, Widget) and node.styles.overflow_y in ("auto", "scroll"):
                if node.is_anchored and not node._anchor_released:
                    return None, 0
                return node, node.content_region.y - self.content_region.y
        return None, 0

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        """A resize that ``_changed`` asked for keeps the cached lines of the rows above its
        first change: Textual would mark the whole widget dirty and render every visible row
        again, a few times a second while an answer grows."""
        kept, self._kept_rows = self._kept_rows, 0
        if not kept or size.width != self._size.width or self.is_scrollable:
            return super()._size_updated(size, virtual_size, container_size, layout)
        self._layout_cache.clear()
        if self._size == size and self.virtual_size == virtual_size and self._container_size == container_size:
            return False
        self._size = size
        self.set_reactive(Widget.virtual_size, virtual_size)
        self._container_size = container_size
        return True

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        lines, tail, _ = self._lines_at(width)
        count = lines.total + len(tail)
        if not (self._stream.tail or self._stream.fence) or width != self._height_width:
            self._height = count  # finished, or a new width: exact
            self._height_width = width
        self._height = max(self._height, count)
        self._settle_later()
        return self._height

    _paint: tuple[int, Style] | None = None
    """The content width and style of the rows being rendered now (see :meth:`render_lines`)."""

    def render_lines(self, crop: Region) -> list[Strip]:
        # ``rich_style`` walks every ancestor and ``content_region`` asks the screen: once per
        # paint instead of once per row (a tenth of a stream frame when the view moved).
        self._paint = (self.content_region.width, self.rich_style)
        try:
            return super().render_lines(crop)
        finally:
            self._paint = None

    def render_line(self, y: int) -> Strip:
        width, style = self._paint or (self.content_region.width, self.rich_style)
        lines, tail, _ = self._lines_at(width)
        if 0 <= y < lines.total:
            pending = lines.pending
            strip = lines.line(y, self._stream.pieces)
            if lines.pending != pending:
                # Scrolled onto a piece that was only estimated: its real height comes next frame.
                self.call_later(self._relayout)
            return strip.apply_style(style)
        if 0 <= y - lines.total < len(tail):
            return tail[y - lines.total].apply_style(style)
        return Strip.blank(width, style)
