"""What a submitted line of editor text means, and the editor rules both front ends share.

The full-screen TUI and inline mode must treat input identically — Enter while the agent runs
steers, Alt+Enter queues a follow-up, ``!cmd`` runs bash (``!!`` keeps it out of the context),
``/name`` may be a command, queued text restored into the editor is joined with blank lines, and
a second Ctrl-C within a second on an empty editor quits — so those rules live here, free of any
UI toolkit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

QUIT_WINDOW_S = 1.0

RouteKind = Literal["empty", "command", "bash", "steer", "follow_up", "prompt"]


@dataclass(frozen=True, slots=True)
class Route:
    """Where submitted text goes. ``text`` is the stripped input (the command, for ``bash``)."""

    kind: RouteKind
    text: str
    exclude_from_context: bool = False


def route_input(raw: str, *, running: bool, follow_up: bool = False) -> Route:
    """Classify editor text submitted with Enter (``follow_up`` for Alt+Enter).

    ``command`` means "try it as a slash command first"; a front end that does not know the
    command falls back to sending (or queueing) the text: pi sends unknown ``/xyz`` to the model
    verbatim. While the agent runs, other text is queued — ``!`` included — never run at once.
    """
    text = raw.strip()
    if not text:
        return Route("empty", "")
    if text.startswith("/"):
        return Route("command", text)
    if running:
        return queued_route(text, follow_up)
    if text.startswith("!"):
        exclude = text.startswith("!!")
        return Route("bash", text[2 if exclude else 1 :].strip(), exclude)
    return Route("prompt", text)


def queued_route(text: str, follow_up: bool) -> Route:
    """The queue a message typed while the agent runs goes to."""
    return Route("follow_up" if follow_up else "steer", text)


def restored_editor_text(queued: list[str], current: str) -> str:
    """Queued messages pulled back into the editor (Alt+Up, or after an abort), then the draft."""
    parts = [*queued, current] if current.strip() else list(queued)
    return "\n\n".join(parts)


QUIT_HINT = "Press Ctrl+C again to quit"
QuitAction = Literal["clear", "hint", "quit"]


class QuitGuard:
    """Ctrl-C while nothing runs, in both front ends. A press with text in the editor clears it;
    a press on an empty editor within the window of the previous one quits (``draft``, Ctrl-C,
    Ctrl-C quits, as pi). Text typed between the two presses is never lost: that press clears it
    and starts the window again. Every press that does not quit shows :data:`QUIT_HINT`
    (``clear``: clear the editor too; ``hint``: only the hint)."""

    __slots__ = ("_press",)

    def __init__(self, window: float = QUIT_WINDOW_S) -> None:
        self._press = DoublePress(window)

    def press(self, editor_text: str) -> QuitAction:
        if editor_text.strip():
            self._press.reset()
            self._press.press()
            return "clear"
        return "quit" if self._press.press() else "hint"


class DoublePress:
    """Detects a key pressed twice within ``window`` seconds (Ctrl-C twice quits)."""

    __slots__ = ("_last", "window")

    def __init__(self, window: float = QUIT_WINDOW_S) -> None:
        self.window = window
        self._last = float("-inf")

    def press(self) -> bool:
        """Record a press; True when it is the second one within the window."""
        now = time.monotonic()
        second = now - self._last < self.window
        self._last = float("-inf") if second else now
        return second

    def reset(self) -> None:
        self._last = float("-inf")
