"""Classifiers over a failed assistant message: context overflow and transient failure.

Both work on ``errorMessage`` text (pi's design: provider errors are strings by the time the agent
sees them). :func:`is_context_overflow` decides "compact and retry once"; :func:`is_retryable_error`
decides the agent layer's backoff retry, and is false for overflows.
"""

from __future__ import annotations

import re
from typing import Any

_OVERFLOW = re.compile(
    "|".join(
        [
            r"prompt is too long",
            r"request_too_large",
            r"input is too long for requested model",
            r"exceeds the context window",
            r"input token count.*exceeds the maximum",
            r"maximum prompt length is \d+",
            r"reduce the length of the messages",
            r"maximum context length is \d+ tokens",
            r"exceeds the limit of \d+",
            r"exceeds the available context size",
            r"greater than the context length",
            r"context window exceeds limit",
            r"exceeded model token limit",
            r"too large for model with \d+ maximum context length",
            r"model_context_window_exceeded",
            r"prompt too long; exceeded (?:max )?context length",
            r"context[_ ]length[_ ]exceeded",
            r"too many tokens",
            r"token limit exceeded",
            r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",
        ]
    ),
    re.IGNORECASE,
)
_NOT_OVERFLOW = re.compile(r"^(?:Throttling error|Service unavailable):|rate limit|too many requests", re.IGNORECASE)

_RETRYABLE = re.compile(
    r"overloaded|rate.?limit|too many requests|\b(?:429|500|502|503|504|529)\b|service.?unavailable|"
    r"server.?error|internal.?error|bad gateway|gateway timeout|network.?error|connection.?error|"
    r"connection (?:reset|refused|closed|lost)|websocket (?:closed|error)|fetch failed|socket hang up|"
    r"upstream.?connect|reset before headers|"
    r"ended without|ended before|timed? ?out|timeout|terminated|retry delay|other side closed|"
    r"upstream error|econnreset|incomplete chunked read|peer closed",
    re.IGNORECASE,
)


def is_context_overflow(message: dict[str, Any], context_window: int | None = None) -> bool:
    """True when the assistant message shows the prompt did not fit the model's context."""
    stop = message.get("stopReason")
    if stop == "error":
        text = message.get("errorMessage") or ""
        return bool(_OVERFLOW.search(text)) and not _NOT_OVERFLOW.search(text)
    if not context_window:
        return False
    usage = message.get("usage") or {}
    used = int(usage.get("input", 0)) + int(usage.get("cacheRead", 0))
    if stop == "stop":
        return used > context_window
    if stop == "length":
        return int(usage.get("output", 0)) == 0 and used >= 0.99 * context_window
    return False


def is_retryable_error(message: dict[str, Any], context_window: int | None = None) -> bool:
    """True for a transient failure (overload, rate limit, 5xx, dropped connection, timeout)."""
    if message.get("stopReason") != "error":
        return False
    if is_context_overflow(message, context_window):
        return False
    return bool(_RETRYABLE.search(message.get("errorMessage") or ""))
