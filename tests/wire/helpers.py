"""Shared helpers for wire-level provider tests against tools/fake_llm_server.py (127.0.0.1, port 0).

The fake server is imported as the top-level module ``fake_llm_server`` (``tools/`` put on
``sys.path``), so it cannot clash with any other ``tools`` package on the path.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

TOOLS_DIR = Path(__file__).resolve().parents[2] / "tools"
if str(TOOLS_DIR) not in sys.path:
    sys.path.insert(0, str(TOOLS_DIR))

from fake_llm_server import FakeLLMServer  # noqa: E402

from pi_cli.ai.options import StreamOptions  # noqa: E402
from pi_cli.ai.stream import stream  # noqa: E402

__all__ = ["FakeLLMServer"]

API_KEY = "sk-test-SECRET-0123456789abcdef"


def openai_model(srv: FakeLLMServer, **extra: Any) -> dict[str, Any]:
    model: dict[str, Any] = {
        "id": "gpt-test",
        "name": "GPT test",
        "api": "openai-completions",
        "provider": "openai",
        "baseUrl": srv.openai_base_url,
        "reasoning": False,
        "input": ["text", "image"],
        "cost": {"input": 2.0, "output": 8.0, "cacheRead": 0.5, "cacheWrite": 0.0},
        "contextWindow": 128000,
        "maxTokens": 16384,
    }
    model.update(extra)
    return model


def anthropic_model(srv: FakeLLMServer, **extra: Any) -> dict[str, Any]:
    model: dict[str, Any] = {
        "id": "claude-test",
        "name": "Claude test",
        "api": "anthropic-messages",
        "provider": "anthropic",
        "baseUrl": srv.anthropic_base_url,
        "reasoning": True,
        "input": ["text", "image"],
        "cost": {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75},
        "contextWindow": 200000,
        "maxTokens": 64000,
    }
    model.update(extra)
    return model


def user_context(text: str = "hello", **extra: Any) -> dict[str, Any]:
    context: dict[str, Any] = {
        "systemPrompt": "You are terse.",
        "messages": [{"role": "user", "content": text, "timestamp": 1}],
    }
    context.update(extra)
    return context


def options(**extra: Any) -> StreamOptions:
    """Options for the wire tests: they exercise the HTTP-level retry loop, which pi (and pi_cli) only
    run when ``retry.provider.maxRetries`` asks for it, so it is turned on here (2, fast backoff)."""
    values: dict[str, Any] = {"api_key": API_KEY, "retry_base_delay_ms": 5, "timeout_s": 10.0, "max_retries": 2}
    values.update(extra)
    return StreamOptions(**values)


async def run(
    model: dict[str, Any], context: dict[str, Any] | None = None, opts: StreamOptions | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Consume one stream; check the invariants every case shares; return (events, final message)."""
    s = stream(model, context or user_context(), opts or options())  # type: ignore[arg-type]
    events: list[dict[str, Any]] = [dict(e) for e in [ev async for ev in s]]
    final = await s.result()
    check_invariants(events, final)
    return events, dict(final)


def check_invariants(events: list[dict[str, Any]], final: Any) -> None:
    # As pi-ai: ``start`` once the server accepted the request; a refused one is a lone ``error``.
    if events[0]["type"] == "error":
        assert len(events) == 1 and events[0]["error"] is final and final["content"] == []
        return
    assert events[0]["type"] == "start"
    assert [e["type"] for e in events].count("start") == 1
    terminal = [e for e in events if e["type"] in ("done", "error")]
    assert len(terminal) == 1 and events[-1] is terminal[0]
    last = terminal[0]
    assert (last.get("message") or last.get("error")) is final
    content = final["content"]
    for event in events:
        if "contentIndex" in event:
            index = event["contentIndex"]
            assert 0 <= index < len(content)
            kind = event["type"].split("_")[0]
            assert content[index]["type"] == {"text": "text", "thinking": "thinking", "toolcall": "toolCall"}[kind]
        if event["type"] == "toolcall_delta":
            assert isinstance(event["partial"]["content"][event["contentIndex"]]["arguments"], dict)
    for block in content:
        assert set(block) <= {
            "type",
            "text",
            "textSignature",
            "thinking",
            "thinkingSignature",
            "redacted",
            "id",
            "name",
            "arguments",
            "thoughtSignature",
        }
    if final["stopReason"] in ("error", "aborted"):
        assert final.get("errorMessage")
        assert API_KEY not in final["errorMessage"]
        assert last["type"] == "error"
    else:
        assert last["type"] == "done"


def types_of(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def oa(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    no_choices: bool = False,
    **top: Any,
) -> str:
    """One OpenAI SSE event, as a raw string."""
    chunk: dict[str, Any] = {"id": "chatcmpl-raw", "object": "chat.completion.chunk", "model": "gpt-test"}
    if no_choices:
        chunk["choices"] = []
    else:
        chunk["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    if usage is not None:
        chunk["usage"] = usage
    chunk.update(top)
    return f"data: {json.dumps(chunk)}\n\n"


def an(name: str, payload: dict[str, Any], blank: bool = True) -> str:
    """One Anthropic SSE event, as a raw string."""
    return f"event: {name}\ndata: {json.dumps({'type': name, **payload})}\n" + ("\n" if blank else "")


AN_START = an(
    "message_start",
    {
        "message": {
            "id": "msg_raw",
            "content": [],
            "model": "claude-test",
            "usage": {
                "input_tokens": 12,
                "output_tokens": 1,
                "cache_read_input_tokens": 5,
                "cache_creation_input_tokens": 3,
            },
        }
    },
)
AN_STOP = an("message_stop", {})


def an_text_block(index: int, text: str) -> list[str]:
    return [
        an("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}}),
        an("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": text}}),
        an("content_block_stop", {"index": index}),
    ]


def an_end(reason: str = "end_turn", output_tokens: int = 7) -> list[str]:
    return [an("message_delta", {"delta": {"stop_reason": reason}, "usage": {"output_tokens": output_tokens}}), AN_STOP]
