"""Which provider errors the session retries on its own, and how long it waits.

pi retries an assistant message whose ``stopReason`` is ``"error"`` when its ``errorMessage``
looks transient (rate limits, overload, 5xx, dropped connections, timeouts) — but never a
context-overflow error, which compaction handles. The classifier is the provider layer's
:func:`pi_cli.ai.overflow.is_retryable_error`. Delays grow as ``baseDelayMs * 2**(attempt-1)``
(2, 4, 8 s by default); a server's retry-after hint found in the error text raises the delay,
capped by ``maxRetryDelayMs``. The wait is abortable.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.overflow import is_retryable_error
from pi_cli.session.abort_slot import AbortSlot

if TYPE_CHECKING:
    from pi_cli.agent.agent import Agent
    from pi_cli.session.store_bridge import SessionStoreBridge

# Retry hints providers put in error text: "retry-after: 7", "Please retry after 20s",
# "try again in 1.5s", "retryDelay": "30s", "retry in 250ms".
_HINT = re.compile(
    r"(?:retry[- ]after|try again in|retry in|retrydelay)[\"':= ]*\s*"
    r"(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?)?",
    re.IGNORECASE,
)


@dataclass(slots=True)
class RetryPolicy:
    """Settings ``retry.{enabled,maxRetries,baseDelayMs}`` plus the delay cap."""

    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60_000

    @classmethod
    def from_settings(cls, settings: Any) -> RetryPolicy:
        """Read ``settings.retry`` (the pydantic ``Settings``), falling back to pi's defaults."""
        retry = getattr(settings, "retry", None)
        if retry is None:
            return cls()
        max_delay = getattr(retry, "max_delay_ms", None)
        if max_delay is None:
            max_delay = getattr(getattr(retry, "provider", None), "max_retry_delay_ms", None)
        return cls(
            enabled=bool(getattr(retry, "enabled", True)),
            max_retries=int(getattr(retry, "max_retries", 3)),
            base_delay_ms=int(getattr(retry, "base_delay_ms", 2000)),
            max_delay_ms=int(max_delay) if max_delay is not None else 60_000,
        )

    def delay_ms(self, attempt: int, error_message: str | None = None) -> int:
        """Backoff for ``attempt`` (1-based), raised to a retry-after hint, capped."""
        delay = self.base_delay_ms * 2 ** (attempt - 1)
        hint = retry_after_ms(error_message or "")
        if hint is not None:
            delay = max(delay, hint)
        capped: int = min(delay, self.max_delay_ms) if self.max_delay_ms > 0 else delay
        return capped


def retry_after_ms(text: str) -> int | None:
    """A retry-after hint in an error text, in milliseconds."""
    match = _HINT.search(text)
    if match is None:
        return None
    value = float(match.group(1))
    unit = (match.group(2) or "s").lower()
    return int(value if unit.startswith("m") else value * 1000)


async def abortable_sleep(seconds: float, signal: AbortSignal) -> bool:
    """Sleep unless ``signal`` aborts first. Returns False when aborted."""
    if signal.aborted:
        return False
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait_for(asyncio.shield(waiter), timeout=max(0.0, seconds))
    except TimeoutError:
        return True
    finally:
        waiter.cancel()
    return not signal.aborted


Emit = Callable[[dict[str, Any]], Awaitable[None]]


class AutoRetry:
    """The retry state of one session: attempts so far and the abortable wait. It continues
    ``agent`` after a retryable error and announces ``auto_retry_*`` events through ``emit``."""

    def __init__(self, agent: Agent, emit: Emit, policy: RetryPolicy, store: SessionStoreBridge | None = None) -> None:
        self._agent = agent
        self._emit = emit
        self.policy = policy
        self._store = store
        self.attempt = 0
        self._wait = AbortSlot("Retry cancelled")

    @property
    def waiting(self) -> bool:
        return self._wait.active

    def abort(self) -> None:
        self._wait.abort()

    def _last_assistant(self) -> dict[str, Any] | None:
        for message in reversed(self._agent.state.messages):
            if message.get("role") == "assistant":
                return dict(message)
        return None

    async def _end(self, success: bool, attempt: int, final_error: str | None) -> None:
        self.attempt = 0
        event: dict[str, Any] = {"type": "auto_retry_end", "success": success, "attempt": attempt}
        if not success:
            event["finalError"] = final_error
        await self._emit(event)

    def will_retry(self) -> bool:
        """Whether the run that just ended will be retried automatically (its reply failed with a
        retryable error and attempts remain)."""
        last = self._last_assistant()
        return bool(
            last is not None
            and self.policy.enabled
            and is_retryable_error(last)
            and self.attempt < self.policy.max_retries
        )

    async def on_message_end(self, message: dict[str, Any]) -> None:
        """A successful assistant reply after retries ends the retry sequence."""
        if self.attempt > 0 and message.get("role") == "assistant" and message.get("stopReason") != "error":
            await self._end(True, self.attempt, None)

    async def _omit(self, message: Any) -> None:
        """pi 1.6.0 keeps a failed attempt in the file and omits it from the context with a
        ``context_edit`` entry (``replacement: null``), announced as ``entry_appended``."""
        edit = self._store.omit_message(message) if self._store is not None else None
        if edit is not None:
            await self._emit({"type": "entry_appended", "entry": dict(edit)})

    async def run_loop(self) -> None:
        """pi's auto-retry after a run: drop the errored reply from the context (the session file
        keeps it), wait ``baseDelayMs·2^(n-1)`` (abortable), continue; give up after maxRetries."""
        agent = self._agent
        while True:
            last = self._last_assistant()
            if last is None or not is_retryable_error(last) or not self.policy.enabled:
                if self.attempt and last is not None and last.get("stopReason") == "error":
                    await self._end(False, self.attempt, last.get("errorMessage"))
                return
            self.attempt += 1
            attempt = self.attempt
            if attempt > self.policy.max_retries:
                await self._end(False, attempt - 1, last.get("errorMessage"))
                return
            delay = self.policy.delay_ms(attempt, last.get("errorMessage"))
            await self._emit(
                {
                    "type": "auto_retry_start",
                    "attempt": attempt,
                    "maxAttempts": self.policy.max_retries,
                    "delayMs": delay,
                    "errorMessage": last.get("errorMessage") or "Unknown error",
                }
            )
            messages = list(agent.state.messages)
            if messages and messages[-1].get("role") == "assistant":
                agent.state.messages = messages[:-1]
                await self._omit(messages[-1])
            with self._wait.hold() as signal:
                completed = await abortable_sleep(delay / 1000.0, signal)
            if not completed:
                await self._end(False, attempt, "Retry cancelled")
                return
            await agent.continue_()
