"""Pure request building (no network): thinking formats, headers, images, caching keys."""

from __future__ import annotations

from typing import Any

import pytest

from pi_cli.ai.options import StreamOptions
from pi_cli.ai.requests import anthropic as anthropic_request
from pi_cli.ai.requests import openai_completions as openai_request


def _model(**extra: Any) -> Any:
    model = {
        "id": "m",
        "name": "m",
        "api": "openai-completions",
        "provider": "custom",
        "baseUrl": "https://llm.example/v1/",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 4000,
    }
    model.update(extra)
    return model


CONTEXT: Any = {"messages": [{"role": "user", "content": "hi", "timestamp": 0}]}


@pytest.mark.parametrize(
    ("fmt", "level", "expected"),
    [
        ("openai", "medium", {"reasoning_effort": "medium"}),
        ("openai", None, {}),
        ("openrouter", "low", {"reasoning": {"effort": "low"}}),
        ("deepseek", "high", {"thinking": {"type": "enabled"}, "reasoning_effort": "high"}),
        ("deepseek", None, {"thinking": {"type": "disabled"}}),
        ("zai", "low", {"enable_thinking": True}),
        ("qwen", None, {"enable_thinking": False}),
        ("qwen-chat-template", "high", {"chat_template_kwargs": {"enable_thinking": True, "preserve_thinking": True}}),
    ],
)
def test_thinking_formats(fmt: str, level: Any, expected: dict[str, Any]) -> None:
    _, _, body = openai_request.build_request(
        _model(compat={"thinkingFormat": fmt}), CONTEXT, StreamOptions(reasoning=level)
    )
    keys = ("reasoning_effort", "reasoning", "thinking", "enable_thinking", "chat_template_kwargs")
    assert {k: body[k] for k in keys if k in body} == expected


def test_thinking_level_map_and_non_reasoning_models() -> None:
    model = _model(thinkingLevelMap={"xhigh": "max", "minimal": None})
    _, _, body = openai_request.build_request(model, CONTEXT, StreamOptions(reasoning="xhigh"))
    assert body["reasoning_effort"] == "max"
    _, _, body = openai_request.build_request(_model(reasoning=False), CONTEXT, StreamOptions(reasoning="high"))
    assert "reasoning_effort" not in body


def test_headers_order_session_affinity_and_cache_key() -> None:
    model = _model(headers={"x-model": "1", "x-over": "model"}, compat={"sendSessionAffinityHeaders": True})
    url, headers, _ = openai_request.build_request(
        model, CONTEXT, StreamOptions(api_key="k", session_id="sess", headers={"x-over": "options"})
    )
    assert url == "https://llm.example/v1/chat/completions"
    assert headers["authorization"] == "Bearer k" and headers["x-model"] == "1" and headers["x-over"] == "options"
    assert headers["session_id"] == headers["x-session-affinity"] == "sess"
    _, _, body = openai_request.build_request(
        _model(baseUrl="https://api.openai.com/v1"), CONTEXT, StreamOptions(session_id="sess")
    )
    assert body["prompt_cache_key"] == "sess"


def test_images_and_tool_result_images() -> None:
    image = {"type": "image", "data": "QUJD", "mimeType": "image/png"}
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "p.png"}}
    context: Any = {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "look"}, image], "timestamp": 0},
            {
                "role": "assistant",
                "content": [call],
                "api": "openai-completions",
                "provider": "custom",
                "model": "m",
                "usage": {},
                "stopReason": "toolUse",
                "timestamp": 0,
            },
            {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "read",
                "content": [image],
                "isError": False,
                "timestamp": 0,
            },
        ]
    }
    _, _, body = openai_request.build_request(_model(), context, StreamOptions())
    messages = body["messages"]
    assert messages[0]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": "(see attached image)"}
    assert messages[3]["content"][0] == {"type": "text", "text": "Attached image(s) from tool result:"}
    _, _, text_only = openai_request.build_request(_model(input=["text"]), context, StreamOptions())
    assert len(text_only["messages"]) == 3
    assert text_only["messages"][0]["content"][1]["text"].startswith("(image omitted")


def test_anthropic_budget_shrinks_to_fit_and_eager_streaming_off() -> None:
    model = _model(
        api="anthropic-messages",
        provider="anthropic",
        maxTokens=9000,
        compat={"supportsEagerToolInputStreaming": False},
    )
    tool = {"name": "t", "description": "d", "parameters": {"type": "object", "properties": {}}}
    context: Any = {"messages": CONTEXT["messages"], "tools": [tool]}
    url, headers, body = anthropic_request.build_request(model, context, StreamOptions(reasoning="high"))
    assert url == "https://llm.example/v1/v1/messages"
    assert body["max_tokens"] == 9000
    assert body["thinking"]["budget_tokens"] == 9000 - 1024
    assert "eager_input_streaming" not in body["tools"][0]
    assert "fine-grained-tool-streaming-2025-05-14" in headers["anthropic-beta"]


def test_anthropic_long_cache_retention(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")
    _, _, body = anthropic_request.build_request(
        _model(api="anthropic-messages", reasoning=False),
        {"systemPrompt": "s", "messages": CONTEXT["messages"]},
        StreamOptions(),
    )
    assert body["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
