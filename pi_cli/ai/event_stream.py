"""The stream object every provider returns: an async iterator of events plus ``result()``.

Providers are written as async generators of :data:`AssistantMessageEvent`; this wrapper records
the terminal event so ``await stream.result()`` gives the final message whether or not the
caller consumed the events. No queue sits in between, so a delta costs one generator step.

As pi 1.6 it also times the response: the final message gets ``durationMs``, from the stream's
creation to its terminal event on a monotonic clock, unless it has one already or its
``timestamp`` predates the stream (a message that started elsewhere stays untimed).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

from pi_cli.ai.types import AssistantMessage, AssistantMessageEvent, now_ms


class AssistantMessageEventStream:
    """Wraps a provider's event generator. Iterate it once; ``result()`` drains what is left."""

    __slots__ = ("_began", "_began_ms", "_final", "_source")

    def __init__(self, source: AsyncIterator[AssistantMessageEvent]) -> None:
        self._source = source
        self._final: AssistantMessage | None = None
        self._began = time.monotonic()
        self._began_ms = now_ms()

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[AssistantMessageEvent]:
        async for event in self._source:
            kind = event["type"]
            if kind == "done":
                self._finish(event["message"])  # type: ignore[typeddict-item]
            elif kind == "error":
                self._finish(event["error"])  # type: ignore[typeddict-item]
            yield event

    def _finish(self, message: AssistantMessage) -> None:
        if self._final is None and "durationMs" not in message and message.get("timestamp", 0) >= self._began_ms:
            message["durationMs"] = max(0, round((time.monotonic() - self._began) * 1000))
        self._final = message

    async def result(self) -> AssistantMessage:
        """The final assistant message (from the terminal ``done`` or ``error`` event)."""
        if self._final is None:
            async for _ in self._iterate():
                pass
        if self._final is None:
            raise RuntimeError("provider stream ended without a terminal event")
        return self._final
