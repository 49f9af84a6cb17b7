"""The scrolling transcript with a bounded window of mounted entries.

Every entry is a *record*: a function that builds its widget. Only the newest ``max_mounted``
records have widgets; older ones are unmounted when new entries arrive while the view is pinned
to the bottom, and re-mounted a page at a time when the user scrolls to the top. So the widget
tree, and with it layout and per-keypress cost, stays the same size however long the session is.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

from rich.text import Text
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Static

from pi_cli.modes.interactive.restyle import CoalescedRepaint
from pi_cli.modes.interactive.widgets.scrollbar import LightScrollBar

Builder = Callable[[], Widget]


class _EarlierMarker(Static, CoalescedRepaint):
    STYLED_WHEN_DRAWN = True
    DEFAULT_CSS = """
    _EarlierMarker { color: $text-muted; text-style: italic; height: 1; padding: 0 1; }
    """


class Transcript(VerticalScroll, CoalescedRepaint):
    """Transcript container; ``add`` appends an entry, ``load_earlier`` pages older ones in."""

    DEFAULT_CSS = """
    Transcript { height: 1fr; padding: 0 1 1 1; scrollbar-size-vertical: 1; scrollbar-gutter: stable; }
    """

    def __init__(
        self,
        *,
        max_mounted: int = 40,
        page: int = 20,
        image_cells: int = 60,
        image_protocol: str | None = None,
        image_tmux: bool = False,
        id: str | None = None,
    ) -> None:
        """``image_cells``: the columns an image in a tool result may take (0: placeholders only);
        ``image_protocol``: "kitty" when the terminal draws them (kitty's placeholders), None for
        half blocks; ``image_tmux`` wraps kitty's sequences for tmux's passthrough. Tool cards
        read them when mounted."""
        super().__init__(id=id, can_focus=False)
        self.image_cells = image_cells
        self.image_protocol = image_protocol
        self.image_tmux = image_tmux
        self.max_mounted = max_mounted
        self.page = page
        self._builders: list[Builder] = []
        self._widgets: list[Widget | None] = []
        self._first = 0  # index of the first record with a mounted widget
        self._marker: _EarlierMarker | None = None
        self._loading = False

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # While the view follows the end (a streamed answer growing under an anchored view), the
        # layout that grew the content already placed everything; the echo of the new virtual
        # size would lay the whole screen out a second time. Scrolled back, the echo stays.
        following = self.is_anchored and not self._anchor_released and size == self._size
        return super()._size_updated(size, virtual_size, container_size, layout=layout and not following)

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        # Textual's property, building a LightScrollBar (see .scrollbar) where it builds its own.
        if self._vertical_scrollbar is None:
            self._vertical_scrollbar = LightScrollBar(thickness=self.scrollbar_size_vertical)
            self._vertical_scrollbar.display = False
            self.app._start_widget(self, self._vertical_scrollbar)
        return self._vertical_scrollbar

    @property
    def record_count(self) -> int:
        return len(self._builders)

    @property
    def mounted_count(self) -> int:
        return len(self._builders) - self._first

    def follow(self) -> None:
        """Stick to the bottom once the content overflows.

        Textual's anchor also bottom-aligns short content (chat style); pi's transcript starts at
        the top, so the anchor is only set once there is something to scroll.
        """
        if not self.is_anchored and self.max_scroll_y > 0:
            self.anchor()

    async def add(self, widget: Widget, rebuild: Builder | None = None) -> Widget:
        """Append ``widget`` as a new entry. ``rebuild`` re-creates it after it was unmounted."""
        self._builders.append(rebuild or _cannot_rebuild(widget))
        self._widgets.append(widget)
        await self.mount(widget)
        self.call_after_refresh(self.follow)
        if self.mounted_count > self.max_mounted and self._pinned():
            # Trim a page at a time so the tree is not touched on every new entry.
            excess = self.mounted_count - self.max_mounted + self.page
            await self._trim_to(min(len(self._widgets) - 1, self._first + excess))
        return widget

    async def replace_first(self, rebuild: Builder) -> None:
        """Build the first entry anew with ``rebuild`` (the start header, when an extension
        replaces it); its widget is swapped in place when it is mounted."""
        if not self._builders:
            return
        self._builders[0] = rebuild
        old = self._widgets[0]
        if self._first == 0 and old is not None and old.is_attached:
            new = rebuild()
            await self.mount(new, before=old)
            await old.remove()
            self._widgets[0] = new

    async def add_many(self, builders: list[Builder]) -> None:
        """Register many finished entries at once (session resume): only the tail is mounted."""
        start = len(self._builders)
        self._builders.extend(builders)
        self._widgets.extend([None] * len(builders))
        window_start = max(0, len(self._builders) - self.max_mounted)
        if window_start > self._first:
            await self._trim_to(window_start)
        widgets = [self._build(i) for i in range(max(start, window_start), len(self._builders))]
        if widgets:
            await self.mount_all(widgets)
        self._update_marker()
        self.call_after_refresh(self.follow)

    def _build(self, index: int) -> Widget:
        widget = self._builders[index]()
        self._widgets[index] = widget
        return widget

    def _pinned(self) -> bool:
        """True unless the user has scrolled up to read older entries."""
        if self.max_scroll_y <= 0 or self.scroll_y >= self.max_scroll_y - 1:
            return True
        return self.is_anchored and not self._anchor_released

    async def _trim_to(self, index: int) -> None:
        """Unmount every entry before record ``index``."""
        doomed = [w for w in self._widgets[self._first : index] if w is not None]
        for i in range(self._first, min(index, len(self._widgets))):
            self._widgets[i] = None
        self._first = max(self._first, index)
        if doomed:
            await self.remove_children(doomed)
        self._update_marker()

    def _update_marker(self) -> None:
        if self._first > 0:
            text = Text(f"↑ {self._first} earlier entries (scroll up to load)")
            if self._marker is None:
                self._marker = _EarlierMarker(text)
                first = self._first_mounted()
                self.mount(self._marker, before=first) if first is not None else self.mount(self._marker)
            else:
                self._marker.update(text)
        elif self._marker is not None:
            self._marker.remove()
            self._marker = None

    def _first_mounted(self) -> Widget | None:
        for widget in self._widgets[self._first :]:
            if widget is not None and widget.is_attached:
                return widget
        return None

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new <= 0 and self._first > 0 and not self._loading:
            self.run_worker(self.load_earlier(), exclusive=True, group="transcript-page")

    async def load_earlier(self) -> int:
        """Mount the previous page of entries above the first mounted one; returns how many."""
        if self._first == 0:
            return 0
        self._loading = True
        try:
            anchor = self._first_mounted()
            start = max(0, self._first - self.page)
            widgets = [self._build(i) for i in range(start, self._first)]
            self._first = start
            if anchor is not None:
                await self.mount_all(widgets, before=anchor)
            else:
                await self.mount_all(widgets)
            self._update_marker()
            if anchor is not None:
                self.call_after_refresh(self.scroll_to_widget, anchor, animate=False, top=True)
            return len(widgets)
        finally:
            self._loading = False

    async def clear_entries(self) -> None:
        """Forget every entry (``/new``)."""
        self._builders.clear()
        self._widgets.clear()
        self._first = 0
        if self._marker is not None:
            self._marker = None
        self.anchor(False)
        await self.remove_children()
        # The app froze what was alive when it started (PiApp._warmed_up): the old transcript
        # and the old session's messages among it are garbage now, so hand them back to the
        # collector (its next full pass walks them once).
        gc.unfreeze()


def _cannot_rebuild(widget: Widget) -> Builder:
    text = Text(f"[{type(widget).__name__}]", style="dim")

    def build() -> Widget:
        return Static(text)

    return build
