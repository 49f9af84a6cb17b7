"""Session statistics (messages, tokens, cost) and context-window use, with pi's field names.

Context use follows pi: the last successful assistant message's usage tells how big the context
was at that call; messages after it are estimated at four characters per token (the estimate is
:func:`pi_cli.compaction.compactor.estimate_context_tokens`).
"""

from __future__ import annotations

from typing import Any


def context_usage(messages: list[dict[str, Any]], context_window: int) -> dict[str, Any] | None:
    """``{tokens, contextWindow, percent}`` or None without a window."""
    if context_window <= 0:
        return None
    from pi_cli.compaction.compactor import estimate_context_tokens  # not needed at start-up

    tokens = estimate_context_tokens(messages).tokens
    return {"tokens": tokens, "contextWindow": context_window, "percent": tokens / context_window * 100}


def session_stats(
    messages: list[dict[str, Any]],
    session_file: str | None,
    session_id: str,
    context_window: int | None,
) -> dict[str, Any]:
    """pi's ``get_session_stats`` payload."""
    counts = {"user": 0, "assistant": 0, "toolResult": 0}
    tool_calls = 0
    tok = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    cost = 0.0
    for msg in messages:
        role = msg.get("role")
        if role in counts:
            counts[role] += 1
        if role == "assistant":
            tool_calls += sum(1 for b in msg.get("content", []) if b.get("type") == "toolCall")
            usage = msg.get("usage") or {}
            for key in tok:
                tok[key] += int(usage.get(key) or 0)
            cost += float((usage.get("cost") or {}).get("total") or 0.0)
    stats: dict[str, Any] = {
        "sessionFile": session_file,
        "sessionId": session_id,
        "userMessages": counts["user"],
        "assistantMessages": counts["assistant"],
        "toolCalls": tool_calls,
        "toolResults": counts["toolResult"],
        "totalMessages": len(messages),
        "tokens": {**tok, "total": sum(tok.values())},
        "cost": cost,
    }
    usage = context_usage(messages, context_window or 0)
    if usage is not None:
        stats["contextUsage"] = usage
    return stats


def last_assistant_text(messages: list[dict[str, Any]]) -> str | None:
    """Text of the last assistant message that has any, else None (aborted empty replies skipped)."""
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        if message.get("stopReason") == "aborted" and not message.get("content"):
            continue
        text = "".join(b.get("text", "") for b in message.get("content", []) if b.get("type") == "text")
        return text if text.strip() else None
    return None
