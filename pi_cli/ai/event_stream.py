"""The stream object every provider returns: an async iterator of events plus ``result()``.

Providers are written as async generators of :data:`AssistantMessageEvent`; this wrapper records
the terminal event so ``await stream.result()`` gives the final message whether or not the
caller consumed the events. No queue sits in between, so a delta costs one generator step.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pi_cli.ai.types import AssistantMessage, AssistantMessageEvent


class AssistantMessageEventStream:
    """Wraps a provider's event generator. Iterate it once; ``result()`` drains what is left."""

    __slots__ = ("_final", "_source")

    def __init__(self, source: AsyncIterator[AssistantMessageEvent]) -> None:
        self._source = source
        self._final: AssistantMessage | None = None

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[AssistantMessageEvent]:
        async for event in self._source:
            kind = event["type"]
            if kind == "done":
                self._final = event["message"]  # type: ignore[typeddict-item]
            elif kind == "error":
                self._final = event["error"]  # type: ignore[typeddict-item]
            yield event

    async def result(self) -> AssistantMessage:
        """The final assistant message (from the terminal ``done`` or ``error`` event)."""
        if self._final is None:
            async for _ in self._iterate():
                pass
        if self._final is None:
            raise RuntimeError("provider stream ended without a terminal event")
        return self._final
