"""Status widgets: the start header, the queue list, the working line and the footer."""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.segment import Segment
from rich.text import Text
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import Static

from pi_cli.modes.display import FooterFacts
from pi_cli.modes.interactive.restyle import CoalescedRepaint
from pi_cli.tools.sanitize import strip_control_sequences as clean

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
FRAME_S = 0.1  # spinner frame interval


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(width - 1, 1)] + "…"


class StartHeader(Static, CoalescedRepaint):
    """Version, key hints and loaded resources, shown once at the top of the transcript."""

    STYLED_WHEN_DRAWN = True

    DEFAULT_CSS = """
    StartHeader { height: auto; padding: 0 1; margin: 0 0 0 0; }
    """

    def __init__(self, version: str, hints: str, resources: list[str]) -> None:
        self.version = version
        self.hints = hints.split(" · ")
        self.resources = resources
        super().__init__(self._text(100))

    def _text(self, width: int) -> Text:
        text = Text()
        text.append("pi", style="bold")
        text.append(f" v{self.version}", style="dim")
        text.append("\n" + "\n".join(_wrap_items(self.hints, width)), style="dim")
        for line in self.resources:
            text.append("\n" + line, style="dim")
        return text

    def on_resize(self) -> None:
        # Hints wrap between items ("ctrl+o" / "more" on two lines read as two hints).
        self.update(self._text(max(self.size.width - 2, 20)))


def _wrap_items(items: list[str], width: int) -> list[str]:
    """Join ``items`` with `` · `` into lines of at most ``width`` cells, breaking only between items."""
    lines: list[str] = []
    current = ""
    for item in items:
        candidate = f"{current} · {item}" if current else item
        if current and len(candidate) > width:
            lines.append(current)
            current = item
        else:
            current = candidate
    return [*lines, current] if current else lines


class QueueArea(Static, CoalescedRepaint):
    """Pending steering and follow-up messages, listed above the editor."""

    text = ""

    DEFAULT_CSS = """
    QueueArea { height: auto; padding: 0 1; color: $text-muted; display: none; }
    QueueArea.-shown { display: block; }
    """

    def show_queue(
        self, steering: list[str], follow_up: list[str], dequeue_key: str = "Alt+Up", attachments: Sequence[str] = ()
    ) -> None:
        """The queued messages, then the images waiting for the next message (``attachments``)."""
        width = max(20, self.size.width - 2 if self.size.width else 100)
        lines = [f"Steering: {_one_line(t, width - 10)}" for t in steering]
        lines += [f"Follow-up: {_one_line(t, width - 11)}" for t in follow_up]
        if lines:
            lines.append(f"↳ {dequeue_key} to edit all queued messages")
        if attachments:
            lines += [_one_line(chip, width) for chip in attachments]
            lines.append("↳ sent with your next message (ctrl+c on an empty editor removes them)")
        self.text = "\n".join(lines)
        if lines:
            self.update(Text(self.text))
        self.set_class(bool(lines), "-shown")


class WorkingLine(CoalescedRepaint):
    """``⠋ Working... (esc to interrupt)`` while the agent runs; retry/compaction status too.

    Drawn as one cached strip with the line API: a spinner frame swaps one strip and repaints
    one row, without Static's text pipeline (about half a millisecond a frame through Rich and
    Textual's content layer) or a layout. While a stream paints frames, the spinner advances
    inside those frames (``pulse``) and its own timer stays quiet, so the two never take turns
    repainting the screen.
    """

    DEFAULT_CSS = """
    WorkingLine { height: 1; padding: 0 1; color: $accent; display: none; }
    WorkingLine.-shown { display: block; }
    WorkingLine.-shown.-hidden { display: none; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self._frame = 0
        self.message = "Working..."
        self.hint = "(esc to interrupt)"
        self._timer: Timer | None = None
        self._last = 0.0  # when the spinner last advanced (monotonic)
        self._last_pulse = 0.0  # when a painted frame last advanced it
        self._animating = False
        self._strip: Strip | None = None
        self.frames: list[str] = list(SPINNER)  # an extension's set_working_indicator frames ([]: none)
        self.default_message = "Working..."  # an extension's set_working_message replaces it
        self._frame_s = FRAME_S  # the frame interval (an extension's intervalMs)

    @property
    def text(self) -> str:
        """What the line shows right now."""
        message = self.default_message if self.message == "Working..." else self.message
        if not self.frames:
            return f"{message} {self.hint}"
        return f"{self.frames[self._frame % len(self.frames)]} {message} {self.hint}"

    def customise(self, frames: list[str] | None, interval_ms: int | None, message: str | None) -> None:
        """An extension's indicator: ``frames`` (None: the spinner; ``[]``: none; control
        sequences dropped, the line is one style), their interval, and the text shown for
        "Working..." (None: that). Takes effect at once."""
        self.frames = list(SPINNER) if frames is None else [clean(frame) for frame in frames]
        self.default_message = clean(message) if message else "Working..."
        self._frame_s = interval_ms / 1000 if interval_ms else FRAME_S
        if self._timer is not None:
            self._timer.stop()
            self._timer = self.set_interval(self._frame_s, self._on_timer, pause=not self._animating)
        self._frame = 0
        self._strip = None
        self.refresh()

    def set_visible(self, visible: bool) -> None:
        """An extension's ``set_working_visible``: False keeps the line hidden while the agent
        runs (it still animates nothing and takes no row), True shows it again."""
        self.set_class(not visible, "-hidden")

    def on_mount(self) -> None:
        self._timer = self.set_interval(FRAME_S, self._on_timer, pause=True)

    def start(self, message: str = "Working...") -> None:
        self.message = message
        self.add_class("-shown")
        self._tick()
        self._animating = True
        if self._timer is not None:
            self._timer.resume()

    def set_message(self, message: str) -> None:
        self.message = message
        self._tick()

    def stop(self) -> None:
        self.remove_class("-shown")
        self._animating = False
        if self._timer is not None:
            self._timer.pause()

    def freeze(self) -> None:
        """Stop the animation on its current frame (deterministic snapshots and screenshots)."""
        self._animating = False
        if self._timer is not None:
            self._timer.pause()
        self._frame = max(len(self.frames), 1) - 1
        self._tick()

    def pulse(self) -> None:
        """Advance the spinner along with a frame that is being painted anyway (streamed text)."""
        now = time.monotonic()
        self._last_pulse = now
        if self._animating and now - self._last >= self._frame_s * 0.9:
            self._tick()

    def _on_timer(self) -> None:
        now = time.monotonic()
        # Frames are flowing: they carry the spinner (a timer tick now would be a repaint of its own).
        if now - self._last_pulse < self._frame_s * 2.5:
            return
        if now - self._last >= self._frame_s * 0.9:
            self._tick()

    def _tick(self) -> None:
        self._last = time.monotonic()
        self._frame = (self._frame + 1) % max(len(self.frames), 1)
        self._strip = None
        self.refresh()

    def on_resize(self) -> None:
        self._strip = None

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        if y != 0 or width <= 0:
            return Strip.blank(width, self.rich_style)
        if self._strip is None or self._strip.cell_length != width:
            text = self.text
            if len(text) > width:
                text = text[: max(width - 1, 0)] + "…"
            line = Segment(text.ljust(width), self.rich_style)
            self._strip = Strip([line], width)
        return self._strip


class FooterBar(Static, CoalescedRepaint):
    """Two lines: location; usage on the left, model and thinking level on the right."""

    DEFAULT_CSS = """
    FooterBar { height: 2; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.facts: FooterFacts | None = None
        self.context_fraction = 0.0

    def set_facts(self, facts: FooterFacts, context_fraction: float = 0.0) -> None:
        self.facts = facts
        self.context_fraction = context_fraction
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if self.facts is None:
            return
        width = max(self.size.width - 2, 20)
        facts = self.facts
        text = Text(_one_line(facts.location, width), style="dim")
        text.append("\n")
        usage_style = "dim"
        if self.context_fraction > 0.9:
            usage_style = "red"
        elif self.context_fraction > 0.7:
            usage_style = "yellow"
        gap = width - len(facts.usage) - len(facts.model)
        if gap >= 1:
            text.append(facts.usage, style=usage_style)
            text.append(" " * gap)
            text.append(facts.model)
        else:
            text.append(facts.model[:width])
        self.update(text)
