"""Session statistics (messages, tokens, cost) with pi's field names.

Context-window use needs the token estimate, which belongs to compaction
(:func:`pi_cli.compaction.budget.context_usage`); callers that have a model pass it in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def session_stats(
    messages: Sequence[dict[str, Any]],
    session_file: str | None,
    session_id: str,
    context_usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """pi's ``get_session_stats`` payload; ``context_usage`` becomes its ``contextUsage`` when given.
    A :class:`~pi_cli.store.lazy_context.LazyMessages` tallies itself from its stubs (nothing decoded)."""
    tally = getattr(messages, "tally", None)
    counts, tool_calls, tok, cost = tally() if callable(tally) else tally_messages(messages)
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
    if context_usage is not None:
        stats["contextUsage"] = context_usage
    return stats


Tally = tuple[dict[str, int], int, dict[str, int], float]


def tally_messages(messages: Iterable[dict[str, Any]]) -> Tally:
    """Messages per role, tool calls, token totals and cost of ``messages`` (message-shaped dicts)."""
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
    return counts, tool_calls, tok, cost


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
