"""Session statistics (messages, tokens, cost) and context-window use, with pi's field names.

Context use follows pi: the last successful assistant message's usage tells how big the context
was at that call; messages after it are estimated at four characters per token.
"""

from __future__ import annotations

import json
from typing import Any


def usage_tokens(usage: dict[str, Any]) -> int:
    """Tokens a request occupied: ``totalTokens``, or the sum of its parts when that is missing."""
    total = int(usage.get("totalTokens") or 0)
    if total:
        return total
    return sum(int(usage.get(k) or 0) for k in ("input", "output", "cacheRead", "cacheWrite"))


def estimate_tokens(message: dict[str, Any]) -> int:
    """A chars/4 estimate of one message (images count as 1,200 tokens, as pi does)."""
    role = message.get("role")
    chars = 0
    images = 0
    if role == "bashExecution":
        chars = len(message.get("command", "")) + len(message.get("output", "") or "")
    elif role in ("compactionSummary", "branchSummary"):
        chars = len(message.get("summary", ""))
    else:
        content = message.get("content", "")
        if isinstance(content, str):
            chars = len(content)
        elif isinstance(content, list):
            for block in content:
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "text":
                    chars += len(block.get("text", ""))
                elif kind == "thinking":
                    chars += len(block.get("thinking", ""))
                elif kind == "toolCall":
                    chars += len(block.get("name", "")) + len(json.dumps(block.get("arguments", {})))
                elif kind == "image":
                    images += 1
    return (chars + 3) // 4 + images * 1200


def estimate_context_tokens(messages: list[dict[str, Any]]) -> int:
    """Last good assistant usage plus estimates for everything after it."""
    for index in range(len(messages) - 1, -1, -1):
        msg = messages[index]
        if msg.get("role") == "assistant" and msg.get("stopReason") not in ("error", "aborted"):
            usage = msg.get("usage") or {}
            base = usage_tokens(usage)
            if base > 0:
                return base + sum(estimate_tokens(m) for m in messages[index + 1 :])
    return sum(estimate_tokens(m) for m in messages)


def context_usage(messages: list[dict[str, Any]], context_window: int) -> dict[str, Any] | None:
    """``{tokens, contextWindow, percent}`` or None without a window."""
    if context_window <= 0:
        return None
    tokens = estimate_context_tokens(messages)
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
