"""The steering and follow-up queues of an :class:`~pi_cli.agent.agent.Agent`.

``"one-at-a-time"`` hands out only the oldest message per poll (the rest wait for later polls);
``"all"`` hands out everything, oldest first. Queued messages leave a queue only when polled by
the loop (which admits them to the transcript at once) or when a caller clears it, so nothing is
dropped silently: after an abort the queue still holds whatever the run did not admit.
"""

from __future__ import annotations

from collections import deque
from typing import Literal

from pi_cli.agent.types import AgentMessage, QueueMode

_MODES: tuple[QueueMode, ...] = ("all", "one-at-a-time")


def check_mode(mode: str, what: str) -> QueueMode:
    """``mode`` if valid, else a ValueError naming the setting and the allowed values."""
    if mode not in _MODES:
        raise ValueError(f"Invalid {what}: {mode!r} (expected 'all' or 'one-at-a-time')")
    return mode


class MessageQueue:
    """A FIFO of pending messages with a drain mode."""

    __slots__ = ("_items", "mode")

    def __init__(self, mode: QueueMode | Literal["all", "one-at-a-time"] = "one-at-a-time") -> None:
        self.mode: QueueMode = mode
        self._items: deque[AgentMessage] = deque()

    def push(self, message: AgentMessage) -> None:
        self._items.append(message)

    def drain(self) -> list[AgentMessage]:
        """What one poll hands to the loop, according to ``mode``."""
        if not self._items:
            return []
        if self.mode == "all":
            items = list(self._items)
            self._items.clear()
            return items
        return [self._items.popleft()]

    def clear(self) -> list[AgentMessage]:
        """Empty the queue; returns what was in it (oldest first)."""
        items = list(self._items)
        self._items.clear()
        return items

    def snapshot(self) -> tuple[AgentMessage, ...]:
        return tuple(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)
