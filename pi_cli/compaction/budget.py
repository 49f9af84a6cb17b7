"""How full the context is and when to compact it.

Context tokens are the last successful assistant ``usage`` plus pi's conservative chars/4
estimate of every message after it; compaction is due when they pass
``contextWindow - reserveTokens`` (:func:`should_compact`). :func:`compaction_trigger` is pi's
whole after-run decision, including context-overflow errors.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_cli.ai.types import Model
from pi_cli.store.jsonl import Entry, iso_to_ms
from pi_cli.store.manager import SessionManager

IMAGE_CHARS = 4800  # an image counts as 1,200 tokens

OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)


@dataclass(slots=True, frozen=True)
class CompactionSettings:
    """The ``compaction`` settings section, with pi's defaults."""

    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000

    @classmethod
    def from_any(cls, source: Any) -> CompactionSettings:
        """From pi_cli's ``Settings`` (or its ``compaction`` section), a camelCase dict, or None."""
        if source is None:
            return cls()
        if isinstance(source, CompactionSettings):
            return source
        section = getattr(source, "compaction", source)
        if isinstance(section, dict):
            reserve: Any = section.get("reserveTokens", section.get("reserve_tokens", 16384))
            keep: Any = section.get("keepRecentTokens", section.get("keep_recent_tokens", 20000))
            return cls(bool(section.get("enabled", True)), int(reserve), int(keep))
        return cls(
            bool(getattr(section, "enabled", True)),
            int(getattr(section, "reserve_tokens", 16384)),
            int(getattr(section, "keep_recent_tokens", 20000)),
        )


def _ceil_div4(chars: int) -> int:
    return -(-chars // 4)


def estimate_tokens(message: dict[str, Any]) -> int:
    """pi's conservative chars/4 estimate of one message; images count 1,200 tokens."""
    role = message.get("role")
    chars = 0
    if role == "user":
        content = message.get("content")
        if isinstance(content, str):
            chars = len(content)
        else:
            chars = sum(len(b.get("text") or "") for b in content or [] if b.get("type") == "text")
    elif role == "assistant":
        for block in message.get("content") or []:
            kind = block.get("type")
            if kind == "text":
                chars += len(block.get("text") or "")
            elif kind == "thinking":
                chars += len(block.get("thinking") or "")
            elif kind == "toolCall":
                args = json.dumps(block.get("arguments"), ensure_ascii=False, separators=(",", ":"))
                chars += len(block.get("name") or "") + len(args)
    elif role in ("custom", "toolResult"):
        content = message.get("content")
        if isinstance(content, str):
            chars = len(content)
        else:
            for block in content or []:
                if block.get("type") == "text":
                    chars += len(block.get("text") or "")
                elif block.get("type") == "image":
                    chars += IMAGE_CHARS
    elif role == "bashExecution":
        chars = len(message.get("command") or "") + len(message.get("output") or "")
    elif role in ("branchSummary", "compactionSummary"):
        chars = len(message.get("summary") or "")
    return _ceil_div4(chars)


def calculate_context_tokens(usage: dict[str, Any]) -> int:
    """``totalTokens``, or input+output+cache reads/writes when it is missing."""
    total = int(usage.get("totalTokens") or 0)
    if total:
        return total
    return sum(int(usage.get(k) or 0) for k in ("input", "output", "cacheRead", "cacheWrite"))


def _assistant_usage(message: dict[str, Any]) -> dict[str, Any] | None:
    if message.get("role") != "assistant" or message.get("stopReason") in ("aborted", "error"):
        return None
    usage = message.get("usage")
    return usage if isinstance(usage, dict) else None


@dataclass(slots=True)
class ContextEstimate:
    """Context tokens split into the measured part (``usage_tokens``) and the estimated rest."""

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[dict[str, Any]]) -> ContextEstimate:
    """Last successful assistant usage plus chars/4 for every message after it."""
    for index in range(len(messages) - 1, -1, -1):
        usage = _assistant_usage(messages[index])
        if usage is not None:
            base = calculate_context_tokens(usage)
            trailing = sum(estimate_tokens(m) for m in messages[index + 1 :])
            return ContextEstimate(base + trailing, base, trailing, index)
    estimated = sum(estimate_tokens(m) for m in messages)
    return ContextEstimate(estimated, 0, estimated, None)


def context_usage(messages: Sequence[dict[str, Any]], context_window: int) -> dict[str, Any] | None:
    """How full the window is, as pi's ``contextUsage`` ``{tokens, contextWindow, percent}``; None
    without a window."""
    if context_window <= 0:
        return None
    tokens = estimate_context_tokens(messages).tokens
    return {"tokens": tokens, "contextWindow": context_window, "percent": tokens / context_window * 100}


def should_compact(context_tokens: int, context_window: int, settings: Any = None) -> bool:
    """True when compaction is enabled and the context passes ``window - reserveTokens``."""
    config = CompactionSettings.from_any(settings)
    return config.enabled and context_tokens > context_window - config.reserve_tokens


def latest_compaction(path: list[Entry]) -> Entry | None:
    """The newest ``compaction`` entry on ``path``, if any."""
    return next((e for e in reversed(path) if e.get("type") == "compaction"), None)


def compaction_trigger(
    assistant: dict[str, Any], messages: list[dict[str, Any]], model: Model | None, manager: SessionManager,
    settings: Any = None, *, overflow_attempted: bool = False, skip_aborted: bool = True,
) -> str | None:  # fmt: skip
    """What pi's AgentSession decides after ``agent_end`` (and before a new prompt, with
    ``skip_aborted=False``): ``"overflow"`` (drop the error message from the agent's messages,
    compact, then continue), ``"threshold"`` (compact, no automatic continuation) or None.

    ``messages`` are the agent's current messages; ``overflow_attempted`` is True when this user
    message already had its one compact-and-retry (then overflow gives None; pi reports
    ``Context overflow recovery failed after one compact-and-retry attempt. ...``)."""
    from pi_cli.ai.overflow import is_context_overflow

    config = CompactionSettings.from_any(settings)
    if not config.enabled or model is None:
        return None
    if skip_aborted and assistant.get("stopReason") == "aborted":
        return None
    window = int(model.get("contextWindow") or 0)
    compaction = manager.latest_compaction()  # no need to read the branch's bodies back
    compacted_at = compaction and iso_to_ms(compaction.get("timestamp"))
    # Usage measured before the latest compaction describes the old, larger context.
    if compacted_at and int(assistant.get("timestamp") or 0) <= compacted_at:
        return None
    same_model = assistant.get("provider") == model.get("provider") and assistant.get("model") == model.get("id")
    if same_model and is_context_overflow(assistant, window):
        return None if overflow_attempted else "overflow"
    if assistant.get("stopReason") == "error":
        estimate = estimate_context_tokens(messages)
        if estimate.last_usage_index is None:
            return None
        source = messages[estimate.last_usage_index]
        if compacted_at and int(source.get("timestamp") or 0) <= compacted_at:
            return None
        tokens = estimate.tokens
    else:
        tokens = calculate_context_tokens(assistant.get("usage") or {})
    return "threshold" if should_compact(tokens, window, config) else None
