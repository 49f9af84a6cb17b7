"""Options passed from the agent loop to a provider for one request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.types import Model, ThinkingLevel


@dataclass(slots=True)
class StreamOptions:
    """Per-request knobs. ``reasoning`` None means thinking off."""

    api_key: str | None = None
    signal: AbortSignal | None = None
    reasoning: ThinkingLevel | None = None
    session_id: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    headers: dict[str, str] = field(default_factory=dict)
    max_retry_delay_ms: int = 60_000
    # pi's ``retry.provider.maxRetries`` defaults to 0: a failed request goes straight back to the
    # session, whose auto-retry (visible to the user, with its own backoff) decides; HTTP-level
    # retries would only delay that and hide quota errors.
    max_retries: int = 0
    # Base of the pre-body exponential backoff (pi: 500 ms → 0.5/1/2/4/8 s); tests shrink it.
    retry_base_delay_ms: int = 500
    timeout_s: float = 300.0
    # How long a trickling response body may gather between reads (0 = read each event as it
    # arrives). Each read is a wake-up of the process, at 1,000 events/s most of its CPU; a consumer
    # that shows nothing per event (print mode) or draws at a frame rate loses nothing by batching.
    gather_ms: float = 0.0
    # Sees each provider request body just before it is sent; it may return (or resolve to) a
    # replacement body, None keeps it (extensions' ``before_provider_request``).
    on_payload: Callable[[dict[str, Any]], Any] | None = None
    # Told ``{status, headers}`` once the provider has answered (``after_provider_response``);
    # awaited when it returns an awaitable.
    on_response: Callable[[dict[str, Any]], Any] | None = None
    # Told each stream event before it is normalised, as ``(model, SSE event name, SSE data)``
    # (extensions' ``provider_stream_event``); awaited in stream order when it returns an
    # awaitable. Called for every event, so it must return at once when nobody listens.
    on_stream_event: Callable[[Model, str, str], Any] | None = None
