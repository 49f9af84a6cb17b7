"""Status widgets: the start header, the queue list, the working line and the footer."""

from __future__ import annotations

import time

from rich.text import Text
from textual.widgets import Static

from pi_cli.modes.display import FooterFacts

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
FRAME_S = 0.1  # spinner frame interval


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(width - 1, 1)] + "…"


class StartHeader(Static):
    """Version, key hints and loaded resources, shown once at the top of the transcript."""

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


class QueueArea(Static):
    """Pending steering and follow-up messages, listed above the editor."""

    text = ""

    DEFAULT_CSS = """
    QueueArea { height: auto; padding: 0 1; color: $text-muted; display: none; }
    QueueArea.-shown { display: block; }
    """

    def show_queue(self, steering: list[str], follow_up: list[str], dequeue_key: str = "Alt+Up") -> None:
        width = max(20, self.size.width - 2 if self.size.width else 100)
        lines = [f"Steering: {_one_line(t, width - 10)}" for t in steering]
        lines += [f"Follow-up: {_one_line(t, width - 11)}" for t in follow_up]
        if lines:
            lines.append(f"↳ {dequeue_key} to edit all queued messages")
        self.text = "\n".join(lines)
        if lines:
            self.update(Text(self.text))
        self.set_class(bool(lines), "-shown")


class WorkingLine(Static):
    """``⠋ Working... (esc to interrupt)`` while the agent runs; retry/compaction status too."""

    DEFAULT_CSS = """
    WorkingLine { height: 1; padding: 0 1; color: $accent; display: none; }
    WorkingLine.-shown { display: block; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._frame = 0
        self.message = "Working..."
        self.hint = "(esc to interrupt)"
        self._timer: object | None = None
        self._last = 0.0  # when the spinner last advanced (monotonic)
        self._animating = False

    def on_mount(self) -> None:
        self._timer = self.set_interval(FRAME_S, self._on_timer, pause=True)

    def start(self, message: str = "Working...") -> None:
        self.message = message
        self.add_class("-shown")
        self._tick()
        self._animating = True
        if self._timer is not None:
            self._timer.resume()  # type: ignore[attr-defined]

    def set_message(self, message: str) -> None:
        self.message = message
        self._tick()

    def stop(self) -> None:
        self.remove_class("-shown")
        self._animating = False
        if self._timer is not None:
            self._timer.pause()  # type: ignore[attr-defined]

    def freeze(self) -> None:
        """Stop the animation on its current frame (deterministic snapshots and screenshots)."""
        self._animating = False
        if self._timer is not None:
            self._timer.pause()  # type: ignore[attr-defined]
        self._frame = 0
        self.update(Text(f"{SPINNER[0]} {self.message} {self.hint}"), layout=False)

    def pulse(self) -> None:
        """Advance the spinner along with a frame that is being painted anyway (streamed text):
        the timer then skips its own tick, so a stream does not add ten repaints a second."""
        if self._animating and time.monotonic() - self._last >= FRAME_S:
            self._tick()

    def _on_timer(self) -> None:
        if time.monotonic() - self._last >= FRAME_S * 0.9:
            self._tick()

    def _tick(self) -> None:
        # One line of fixed height: repaint this widget only. A layout here (Static's default)
        # re-measured the whole screen ten times a second while the agent worked.
        self._last = time.monotonic()
        self._frame = (self._frame + 1) % len(SPINNER)
        self.update(Text(f"{SPINNER[self._frame]} {self.message} {self.hint}"), layout=False)


class FooterBar(Static):
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
