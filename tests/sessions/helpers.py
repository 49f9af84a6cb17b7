"""Builders for realistic messages used across the session tests."""

from __future__ import annotations

from typing import Any


def user(text: str, ts: int = 1) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def assistant(text: str = "", calls: list[tuple[str, str, dict[str, Any]]] | None = None, total: int = 100,
              stop: str | None = None) -> dict[str, Any]:  # fmt: skip
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for call_id, name, args in calls or []:
        content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args})
    return {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "fake",
        "model": "fake-model",
        "usage": {"input": total - 10, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total,
                  "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003}},
        "stopReason": stop or ("toolUse" if calls else "stop"),
        "timestamp": 2,
    }  # fmt: skip


def tool_result(call_id: str, text: str, name: str = "bash", error: bool = False) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": error,
        "timestamp": 3,
    }
