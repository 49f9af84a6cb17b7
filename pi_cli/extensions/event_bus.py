"""``pi.events``: a small bus extensions talk to each other on (pi's shared ``EventBus``).

One bus per runner, shared by every extension it loaded: ``pi.events.on(channel, handler)``
returns an unsubscribe function, ``pi.events.emit(channel, data)`` calls the channel's handlers
in subscription order with ``data``. A sync handler runs inside ``emit``; an async one becomes a
task (emit never waits, as pi's). A handler that raises is reported as its extension's error
(event ``events:<channel>``) and the others still run. Channels are free-form strings; pi's
examples use ``"name:event"``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

Report = Callable[[str, str, BaseException], None]


class EventBus:
    """The runner's bus; ``report(source, event, exc)`` receives handler failures, ``pending``
    holds the tasks of async handlers (the runner's set, so tests and shutdown can await them)."""

    def __init__(self, report: Report, pending: set[Any]) -> None:
        self._report = report
        self._pending = pending
        self._handlers: dict[str, list[tuple[str, Callable[[Any], Any]]]] = {}

    def on(self, channel: str, handler: Callable[[Any], Any], source: str = "") -> Callable[[], None]:
        if not callable(handler):
            raise TypeError(f"handler for {channel!r} is not callable")
        entry = (source, handler)
        self._handlers.setdefault(channel, []).append(entry)

        def unsubscribe() -> None:
            entries = self._handlers.get(channel, [])
            if entry in entries:
                entries.remove(entry)

        return unsubscribe

    def emit(self, channel: str, data: Any = None) -> None:
        for source, handler in tuple(self._handlers.get(channel, ())):
            try:
                result = handler(data)
            except Exception as exc:
                self._report(source, f"events:{channel}", exc)
                continue
            if inspect.isawaitable(result):
                self._await(source, channel, result)

    def _await(self, source: str, channel: str, awaitable: Any) -> None:
        async def run() -> None:
            try:
                await awaitable
            except Exception as exc:
                self._report(source, f"events:{channel}", exc)

        task = asyncio.get_running_loop().create_task(run())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)


class ExtensionEvents:
    """``pi.events`` of one extension: the shared bus, with failures named after this extension."""

    def __init__(self, bus: EventBus, source: str) -> None:
        self._bus = bus
        self._source = source

    def on(self, channel: str, handler: Callable[[Any], Any]) -> Callable[[], None]:
        """``handler(data)``, sync or async, for every ``emit(channel, data)``; returns unsubscribe."""
        return self._bus.on(channel, handler, self._source)

    def emit(self, channel: str, data: Any = None) -> None:
        self._bus.emit(channel, data)
