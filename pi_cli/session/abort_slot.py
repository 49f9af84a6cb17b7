"""One abortable operation at a time: the shape shared by retry waits, compactions and user bash runs.

``with slot.hold() as signal:`` marks the slot busy for the block and hands out the signal to pass
down; ``slot.abort()`` fires it with the slot's reason; ``slot.active`` says whether one is running.
The slot is released however the block ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pi_cli.ai.abort import AbortController, AbortSignal


class AbortSlot:
    """Holds the controller of the running operation, if any."""

    __slots__ = ("_controller", "reason")

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self._controller: AbortController | None = None

    @property
    def active(self) -> bool:
        return self._controller is not None

    def abort(self) -> None:
        """Abort the running operation (no-op when idle)."""
        if self._controller is not None:
            self._controller.abort(self.reason)

    @contextmanager
    def hold(self) -> Iterator[AbortSignal]:
        """Occupy the slot for the ``with`` block; yields the operation's abort signal."""
        controller = AbortController()
        self._controller = controller
        try:
            yield controller.signal
        finally:
            self._controller = None
