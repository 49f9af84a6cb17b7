"""Small pieces every HTTP provider shares: the live output message, cost, ids, terminal events."""

from __future__ import annotations

import math
import re
from typing import Any, TypeGuard

from pi_cli.ai.models import calculate_cost
from pi_cli.ai.types import AssistantMessage, DoneEvent, ErrorEvent, Model, Usage, empty_usage, js_number, now_ms

_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def new_output(model: Model) -> AssistantMessage:
    """The message a provider fills while streaming (``timestamp`` = request start)."""
    return {
        "role": "assistant",
        "content": [],
        "api": model["api"],
        "provider": model["provider"],
        "model": model["id"],
        "usage": empty_usage(),
        "stopReason": "stop",
        "timestamp": now_ms(),
    }


def new_usage(input: int, output: int, cache_read: int, cache_write: int, reasoning: int, total: int) -> Usage:
    """A usage record with reasoning tokens, in pi 1.6's key order (cost not yet computed)."""
    return {
        "input": input,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "reasoning": reasoning,
        "totalTokens": total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def apply_cost(model: Model, usage: Usage) -> None:
    """Fill ``usage.totalTokens`` and ``usage.cost`` (see :func:`calculate_cost`), in place."""
    usage["totalTokens"] = usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
    calculate_cost(model, usage)


def is_openrouter(model: Model) -> bool:
    """pi's test for OpenRouter (its usage reports the billed cost)."""
    return model["provider"] == "openrouter" or "openrouter.ai" in model.get("baseUrl", "")


def _valid_cost(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def apply_reported_cost(usage: Usage, raw: dict[str, Any]) -> None:
    """OpenRouter's billed cost replaces our estimate (``totalFromProvider: true``), as pi 1.6 reads
    it: ``cost`` when not BYOK; with BYOK, ``cost`` plus the upstream inference cost. Incomplete
    or invalid accounting leaves the estimate."""
    reported = raw.get("cost")
    if not _valid_cost(reported):
        return
    byok = raw.get("is_byok")
    if byok is False:
        usage["cost"]["total"] = reported
        usage["cost"]["totalFromProvider"] = True
        return
    details = raw.get("cost_details")
    if byok is not True or not isinstance(details, dict):
        return
    upstream = details.get("upstream_inference_cost")
    if upstream is None:
        prompt, completions = (
            details.get("upstream_inference_prompt_cost"),
            details.get("upstream_inference_completions_cost"),
        )
        if not (_valid_cost(prompt) and _valid_cost(completions)):
            return
        upstream = prompt + completions
    if _valid_cost(upstream):
        usage["cost"]["total"] = js_number(reported + upstream)
        usage["cost"]["totalFromProvider"] = True


def safe_tool_id(tool_id: str, max_len: int) -> str:
    """A tool-call id restricted to ``[A-Za-z0-9_-]`` and ``max_len`` characters (pi's rule).

    An id of the form ``call|item`` (OpenAI Responses) keeps the part before ``|``.
    """
    if "|" in tool_id:
        tool_id = tool_id.split("|", 1)[0]
    if len(tool_id) <= max_len and _ID_UNSAFE.search(tool_id) is None:
        return tool_id
    return _ID_UNSAFE.sub("_", tool_id)[:max_len]


def done_event(output: AssistantMessage) -> DoneEvent:
    """The terminal event of a successful stream (``output`` already has its stop reason)."""
    reason = output["stopReason"]
    assert reason in ("stop", "length", "toolUse")
    return {"type": "done", "reason": reason, "message": output}


def error_event(output: AssistantMessage, message: str, aborted: bool) -> ErrorEvent:
    """Turn ``output`` into a failed message (partial content kept) and wrap it as the terminal event."""
    output["stopReason"] = "aborted" if aborted else "error"
    output["errorMessage"] = message
    return {"type": "error", "reason": output["stopReason"], "error": output}  # type: ignore[typeddict-item]
