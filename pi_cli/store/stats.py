"""Session statistics (messages, tokens, cost) with pi's field names.

Context-window use needs the token estimate, which belongs to compaction
(:func:`pi_cli.compaction.budget.context_usage`); callers that have a model pass it in.

Subagents roll up: a ``subagent`` tool result's ``details.results[].usage`` (each child's tokens
and cost, its own children's included) count toward the session's tokens and cost, so the footer
and ``get_session_stats`` show what the whole tree spent, and still do after a resume.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pi_cli.ai.types import js_number


def session_stats(
    messages: Sequence[dict[str, Any]],
    session_file: str | None,
    session_id: str,
    context_usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """pi's ``get_session_stats`` payload; ``context_usage`` becomes its ``contextUsage`` when given.
    A :class:`~pi_cli.store.slim.lazy_context.LazyMessages` tallies itself from its stubs (nothing decoded)."""
    tally = getattr(messages, "tally", None)
    counted = tally() if callable(tally) else tally_messages(messages)
    return stats_payload(counted, len(messages), session_file, session_id, context_usage)


def stats_payload(
    tally: Tally, total: int, session_file: str | None, session_id: str, context_usage: dict[str, Any] | None
) -> dict[str, Any]:
    """pi's ``get_session_stats`` fields from a tally of ``total`` messages (and ``contextUsage``
    when given): the one shape both the context's and the whole file's stats answer in."""
    counts, tool_calls, tok, cost = tally
    stats: dict[str, Any] = {
        "sessionFile": session_file,
        "sessionId": session_id,
        "userMessages": counts["user"],
        "assistantMessages": counts["assistant"],
        "toolCalls": tool_calls,
        "toolResults": counts["toolResult"],
        "totalMessages": total,
        "tokens": {**tok, "total": sum(tok.values())},
        "cost": js_number(cost),  # pi writes 0, not 0.0
    }
    if context_usage is not None:
        stats["contextUsage"] = context_usage
    return stats


Tally = tuple[dict[str, int], int, dict[str, int], float]
SUBAGENT_TOOL = "subagent"
TOKEN_KEYS = ("input", "output", "cacheRead", "cacheWrite")


def child_usage(details: Any) -> tuple[dict[str, int], float] | None:
    """Tokens and cost of the children a ``subagent`` result's ``details`` describe (None when it
    describes none): the sum of ``results[].usage`` (pi-subagents' shape, ``cost`` a number)."""
    results = details.get("results") if isinstance(details, dict) else None
    if not isinstance(results, list):
        return None
    tok = dict.fromkeys(TOKEN_KEYS, 0)
    cost = 0.0
    for result in results:
        usage = result.get("usage") if isinstance(result, dict) else None
        if not isinstance(usage, dict):
            continue
        for key in TOKEN_KEYS:
            value = usage.get(key)
            tok[key] += int(value) if isinstance(value, int | float) else 0
        value = usage.get("cost")
        cost += float(value) if isinstance(value, int | float) else 0.0
    return tok, cost


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
        elif role == "toolResult" and msg.get("toolName") == SUBAGENT_TOOL:
            children = child_usage(msg.get("details"))
            if children is not None:
                for key in tok:
                    tok[key] += children[0][key]
                cost += children[1]
    return counts, tool_calls, tok, cost


def last_assistant_text(messages: list[dict[str, Any]]) -> str | None:
    """The last assistant message's text, trimmed (as pi's ``getLastAssistantText``); None when it
    has no text. Aborted replies with no content are skipped; any other last reply decides."""
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        if message.get("stopReason") == "aborted" and not message.get("content"):
            continue
        text = "".join(b.get("text", "") for b in message.get("content", []) if b.get("type") == "text")
        return text.strip() or None
    return None
