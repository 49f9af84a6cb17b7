"""Streaming Markdown whose cost per frame depends on the tail, not on the message length.

Measured on this machine, Textual's ``Markdown.append`` (and ``MarkdownStream`` over it) got
slower with every block already in the document: one child widget per block means each append
restyles and re-lays-out a growing subtree (0.1–0.6 s per append at ~150 blocks), which starved
the HTTP reader. Here the text is split at safe block boundaries (a blank line outside a code
fence) into *frozen chunks* — one ``Static`` each, rendered once with Rich's Markdown and cached —
plus one *live tail* that is re-rendered per frame. A tail with no boundary that grows past
``PLAIN_TAIL_CHARS`` (a giant code fence) is shown as plain text until it closes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

if TYPE_CHECKING:
    from rich.console import Console
    from rich.markdown import Markdown as RichMarkdown

CHUNK_CHARS = 1500  # freeze once the tail holds at least this much before a boundary
PLAIN_TAIL_CHARS = 12_000


def _markdown(text: str) -> RichMarkdown:
    from rich.markdown import Markdown  # ~60 ms to import: not on the start-up path

    return Markdown(text, hyperlinks=False, code_theme="monokai")


def warm_up(console: Console) -> None:
    """Import and exercise the Markdown renderer once (fenced code included)."""
    console.render_lines(_markdown("# a\n\n*b* `c`\n\n- d\n\n```python\nx = 1\n```\n"), console.options)


def split_chunks(text: str, size: int = CHUNK_CHARS) -> tuple[list[str], str]:
    """Cut ``text`` at safe boundaries into pieces of at least ``size`` chars, plus the rest."""
    chunks: list[str] = []
    while len(text) >= size:
        cut = split_point(text, size)
        if cut <= 0:
            break
        chunks.append(text[:cut])
        text = text[cut:]
    return chunks, text


def frozen_widgets(text: str) -> list[MarkdownChunk]:
    """A finished text as frozen chunks only (history, resumed sessions): no live tail."""
    chunks, rest = split_chunks(text)
    if rest.strip():
        chunks.append(rest)
    return [MarkdownChunk(chunk) for chunk in chunks]


def split_point(text: str, minimum: int) -> int:
    """Offset just after the last safe boundary at or past ``minimum`` (0 if none).

    A boundary is the end of a blank line outside fenced code, followed by a line that does not
    start with whitespace (so list items and indented continuations stay with their block).
    """
    fence: str | None = None
    offset = 0
    best = 0
    lines = text.split("\n")
    for index, line in enumerate(lines[:-1]):  # the last line may still be growing
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        offset += len(line) + 1
        if fence is None and not line.strip() and offset >= minimum:
            following = lines[index + 1]
            if following and not following[0].isspace():
                best = offset
    return best


class MarkdownChunk(Widget):
    """A frozen piece of a message, rendered to lines once per width.

    A ``Static`` holding a Rich renderable is re-rendered to measure its height at every layout;
    with dozens of chunks that made each frame cost O(message). Caching the lines per width makes
    layout O(1) and painting O(visible lines) for a frozen chunk.
    """

    DEFAULT_CSS = """
    MarkdownChunk { height: auto; padding: 0 1; }
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.source = text
        self._strips: list[Strip] = []
        self._width = -1

    def restyle(self) -> None:
        """Drop the cached lines so the next paint re-renders with the console's current styles
        (after a theme switch)."""
        self._width = -1
        self.refresh()

    def _lines(self, width: int) -> list[Strip]:
        if width != self._width and width > 0:
            console = self.app.console
            options = console.options.update(width=width, height=None)
            lines = console.render_lines(_markdown(self.source), options, pad=True)
            self._strips = [Strip(line, width) for line in lines]
            while self._strips and not self._strips[-1].text.strip():
                self._strips.pop()  # Rich ends blocks with a blank line; margins come from CSS
            self._width = width
        return self._strips

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        strips = self._lines(width)
        if 0 <= y < len(strips):
            return strips[y].apply_style(self.rich_style)
        return Strip.blank(width, self.rich_style)


class StreamingMarkdown(Vertical):
    """Assistant text: frozen chunks followed by one live tail."""

    DEFAULT_CSS = """
    StreamingMarkdown { height: auto; }
    StreamingMarkdown > .tail { height: auto; padding: 0 1; }
    """

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self._frozen: list[str] = []
        self._tail = ""
        self._initial = text
        self._live = Static("", classes="tail")

    @property
    def source(self) -> str:
        return "".join(self._frozen) + self._tail

    def compose(self) -> ComposeResult:
        chunks, tail = self._split(self._initial)
        self._frozen = chunks
        self._tail = tail
        for chunk in chunks:
            yield MarkdownChunk(chunk)
        self._render_tail()
        yield self._live

    def _split(self, text: str) -> tuple[list[str], str]:
        return split_chunks(text)

    async def append(self, fragment: str) -> None:
        """Add streamed text: freeze whatever became complete, re-render only the tail."""
        if not fragment:
            return
        self._tail += fragment
        if len(self._tail) >= CHUNK_CHARS:
            chunks, tail = self._split(self._tail)
            if chunks:
                self._frozen.extend(chunks)
                self._tail = tail
                # Not awaited: the mount completes with the next refresh; awaiting it here only
                # made the pump's frame look slow and stretched its adaptive gap.
                self.mount_all([MarkdownChunk(c) for c in chunks], before=self._live)
        self._render_tail()

    async def replace(self, text: str) -> None:
        """Set the whole text (used when the final message differs from what streamed)."""
        await self.remove_children([c for c in self.children if isinstance(c, MarkdownChunk)])
        chunks, tail = self._split(text)
        self._frozen, self._tail = chunks, tail
        if chunks:
            await self.mount_all([MarkdownChunk(c) for c in chunks], before=self._live)
        self._render_tail()

    async def finish(self) -> None:
        """The message ended: freeze the tail too, so nothing of it is re-measured again."""
        if self._tail.strip():
            self._frozen.append(self._tail)
            await self.mount(MarkdownChunk(self._tail), before=self._live)
        self._tail = ""
        self._render_tail()

    def _render_tail(self) -> None:
        tail = self._tail.strip("\n")
        if len(tail) > PLAIN_TAIL_CHARS:
            self._live.update(Text(tail))
        else:
            self._live.update(_markdown(tail) if tail else "")
        self._live.display = bool(tail)
