"""Listener fan-out for AgentSession events (agent events plus the session's own).

Listeners are called in subscription order with one argument, the event dict; an async
listener is awaited before the next one runs (pi's barrier semantics). Session-level events
raised from synchronous code (``steer`` queueing a message, say) schedule async listeners on the
running loop instead of awaiting them.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

SessionEvent = dict[str, Any]
SessionListener = Callable[[SessionEvent], Awaitable[None] | None]


class EventHub:
    """Ordered listeners with async (awaiting) and sync (scheduling) dispatch."""

    __slots__ = ("_listeners", "_pending")

    def __init__(self) -> None:
        self._listeners: list[SessionListener] = []
        self._pending: set[asyncio.Future[Any]] = set()

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    async def emit(self, event: SessionEvent) -> None:
        """Call every listener in order, awaiting async ones."""
        for listener in tuple(self._listeners):
            result = listener(event)
            if result is not None and inspect.isawaitable(result):
                await result

    def dispatch(self, event: SessionEvent) -> Awaitable[None] | None:
        """Hot-path variant of :meth:`emit`: sync listeners run now; returns an awaitable only
        when some listener is async (the rest then run after it, in order)."""
        listeners = self._listeners
        for index, listener in enumerate(listeners):
            result = listener(event)
            if result is not None and inspect.isawaitable(result):
                return self._finish(result, tuple(listeners[index + 1 :]), event)
        return None

    async def _finish(self, pending: Awaitable[None], rest: tuple[SessionListener, ...], event: SessionEvent) -> None:
        await pending
        for listener in rest:
            result = listener(event)
            if result is not None and inspect.isawaitable(result):
                await result

    def emit_nowait(self, event: SessionEvent) -> None:
        """Dispatch from synchronous code: async listeners are scheduled, not awaited."""
        for listener in tuple(self._listeners):
            result = listener(event)
            if result is not None and inspect.isawaitable(result):
                future = asyncio.ensure_future(result)
                self._pending.add(future)
                future.add_done_callback(self._pending.discard)
