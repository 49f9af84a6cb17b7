"""Abort signals, the Python counterpart of the web's AbortController/AbortSignal.

One controller per agent run; its signal is handed to providers and tools. Aborting is
idempotent, wakes every waiter at once and runs registered callbacks synchronously, so a provider
can close its HTTP stream and a tool can kill its process group without polling.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class AbortSignal:
    """Read side: ``aborted``, ``reason``, ``wait()`` and ``add_callback``."""

    __slots__ = ("_callbacks", "_event", "aborted", "reason")

    def __init__(self) -> None:
        self.aborted = False
        self.reason: str | None = None
        self._event: asyncio.Event | None = None
        self._callbacks: list[Callable[[], None]] = []

    def _fire(self, reason: str) -> None:
        if self.aborted:
            return
        self.aborted = True
        self.reason = reason
        if self._event is not None:
            self._event.set()
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    async def wait(self) -> None:
        """Return once the signal is aborted (immediately if it already is)."""
        if self.aborted:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def add_callback(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` on abort (now, if already aborted). Returns a function that removes it."""
        if self.aborted:
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove


class AbortController:
    """Write side: owns one signal and aborts it."""

    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str = "Request was aborted") -> None:
        self.signal._fire(reason)
