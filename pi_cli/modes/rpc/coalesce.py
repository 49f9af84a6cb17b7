"""Coalesce ``message_update`` deltas for JSON and RPC output.

Every in-process ``message_update`` carries the whole partial message (twice: ``message`` and
``assistantMessageEvent.partial``); written like that, one line per token makes output quadratic in
the answer length — pi 0.73.1 needs 24.6 s to deliver a 20,000-token answer that way. Here consecutive
deltas of the same kind and content index are merged into one update (deltas concatenated, the
latest partial) and written at most ``rate`` times per second; any other event flushes the pending
update first, so order is preserved and concatenating the deltas still gives the full text. The
line shape is pi 1.6.0's wire form (:mod:`pi_cli.modes.wire_events`: delta-only updates); only the
number of updates changes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from pi_cli.modes.wire_events import to_wire

DELTA_TYPES = frozenset(("text_delta", "thinking_delta", "toolcall_delta"))


class UpdateCoalescer:
    """Feed events with :meth:`push`; merged events go to ``emit`` in order."""

    __slots__ = ("_deltas", "_emit", "_interval", "_key", "_last", "_latest", "_timer")

    def __init__(self, emit: Callable[[dict[str, Any]], None], rate: float = 60.0) -> None:
        self._emit = emit
        self._interval = 1.0 / rate if rate > 0 else 0.0
        self._last = 0.0
        self._key: tuple[str, int] | None = None
        self._deltas: list[str] = []
        self._latest: dict[str, Any] | None = None
        self._timer: asyncio.TimerHandle | None = None

    def push(self, event: dict[str, Any]) -> None:
        if event.get("type") == "message_update":
            inner = event.get("assistantMessageEvent") or {}
            kind = inner.get("type")
            if kind in DELTA_TYPES:
                key = (kind, int(inner.get("contentIndex", 0)))
                if self._key is not None and key != self._key:
                    self.flush()
                self._key = key
                self._deltas.append(inner.get("delta", ""))
                self._latest = event
                now = time.monotonic()
                if now - self._last >= self._interval:
                    self.flush(now)
                elif self._timer is None:
                    self._schedule(self._interval - (now - self._last))
                return
        self.flush()
        self._emit(to_wire(event))

    def _schedule(self, delay: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer = loop.call_later(max(0.0, delay), self.flush)

    def flush(self, now: float | None = None) -> None:
        """Write the pending merged update, if any."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        latest = self._latest
        if latest is None:
            return
        deltas = self._deltas
        inner = latest["assistantMessageEvent"]
        if len(deltas) > 1:
            inner = {**inner, "delta": "".join(deltas)}
            latest = {**latest, "assistantMessageEvent": inner}
        self._latest = None
        self._key = None
        self._deltas = []
        self._last = time.monotonic() if now is None else now
        self._emit(to_wire(latest))
