"""Golden request bodies and headers, as received by the fake server (spec §7 case 49, §2.1, §4.3)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_cli.ai.requests.openai_compat import resolve_compat

from .helpers import API_KEY, FakeLLMServer, anthropic_model, openai_model, options, run

TOOL = {
    "name": "read",
    "description": "Read a file",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
    },
}


def _assistant(
    content: list[dict[str, Any]],
    model: str,
    stop: str = "toolUse",
    provider: str = "openai",
    api: str = "openai-completions",
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 0,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": stop,
        "timestamp": 2,
    }


def _history(model_id: str, provider: str, api: str) -> list[dict[str, Any]]:
    call_a = {"type": "toolCall", "id": "call_a", "name": "read", "arguments": {"path": "a"}}
    call_b = {"type": "toolCall", "id": "call_b", "name": "read", "arguments": {"path": "b"}}
    thinking = {"type": "thinking", "thinking": "plan", "thinkingSignature": "reasoning_content"}
    return [
        {"role": "user", "content": "read a and b", "timestamp": 1},
        _assistant(
            [thinking, {"type": "text", "text": "Reading."}, call_a, call_b], model_id, provider=provider, api=api
        ),
        {
            "role": "toolResult",
            "toolCallId": "call_a",
            "toolName": "read",
            "content": [{"type": "text", "text": "A"}],
            "isError": False,
            "timestamp": 3,
        },
        # call_b never got a result: a synthetic one must be sent
        {"role": "user", "content": "and now?", "timestamp": 4},
        _assistant([{"type": "text", "text": "half"}], model_id, stop="aborted", provider=provider, api=api),
        {"role": "user", "content": "continue", "timestamp": 5},
    ]


async def test_openai_golden_body(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "ok"}])
    model = openai_model(server, reasoning=True)
    context = {"systemPrompt": "SYS", "messages": _history("gpt-test", "openai", "openai-completions"), "tools": [TOOL]}
    await run(model, context, options(max_tokens=1000, reasoning="high", temperature=0.2, session_id="s1"))
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {API_KEY}"
    body = request["body"]
    assert body == {
        "model": "gpt-test",
        "messages": [
            {"role": "developer", "content": "SYS"},
            {"role": "user", "content": "read a and b"},
            {
                "role": "assistant",
                "content": "Reading.",
                "reasoning_content": "plan",
                "tool_calls": [
                    {"id": "call_a", "type": "function", "function": {"name": "read", "arguments": '{"path":"a"}'}},
                    {"id": "call_b", "type": "function", "function": {"name": "read", "arguments": '{"path":"b"}'}},
                ],
            },
            {"role": "tool", "tool_call_id": "call_a", "content": "A"},
            {"role": "tool", "tool_call_id": "call_b", "content": "No result provided"},
            {"role": "user", "content": "and now?"},
            {"role": "user", "content": "continue"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "store": False,
        "max_completion_tokens": 1000,
        "temperature": 0.2,
        "tools": [{"type": "function", "function": TOOL}],  # pi 1.6: no "strict" unless compat asks
        "reasoning_effort": "high",
    }


async def test_openai_system_role_max_tokens_and_empty_tools_for_mistral(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "ok"}])
    model = openai_model(server, provider="mistral", reasoning=True)
    context = {"systemPrompt": "SYS", "messages": _history("other-model", "someone", "anthropic-messages")}
    await run(model, context, options(max_tokens=500))
    body = server.requests[0]["body"]
    assert body["messages"][0] == {"role": "system", "content": "SYS"}
    assert body["max_tokens"] == 500 and "max_completion_tokens" not in body
    assert "store" not in body
    assert body["tools"] == []  # tool history without tools: proxies need the key
    roles = [m["role"] for m in body["messages"]]
    # a bridge assistant turn sits between the tool results and the next user message
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant", "user", "user"]
    # foreign thinking became text (thinking-as-text for mistral too), tool results carry names
    assert body["messages"][2]["content"] == "planReading."
    assert body["messages"][3]["name"] == "read"
    # Mistral ids: exactly 9 alphanumerics, calls and results mapped alike
    call_ids = [c["id"] for c in body["messages"][2]["tool_calls"]]
    assert all(len(i) == 9 and i.isalnum() for i in call_ids) and len(set(call_ids)) == 2
    assert [body["messages"][3]["tool_call_id"], body["messages"][4]["tool_call_id"]] == call_ids


async def test_openrouter_reasoning_and_cache_marks(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "ok"}])
    model = openai_model(server, provider="openrouter", id="anthropic/claude-x", reasoning=True)
    context = {"systemPrompt": "SYS", "messages": [{"role": "user", "content": "hi", "timestamp": 1}], "tools": [TOOL]}
    await run(model, context, options())
    body = server.requests[0]["body"]
    assert body["reasoning"] == {"effort": "none"}
    assert body["messages"][0]["content"] == [{"type": "text", "text": "SYS", "cache_control": {"type": "ephemeral"}}]
    assert body["messages"][1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}


@pytest.mark.parametrize(
    ("provider", "base_url", "expected"),
    [
        ("ollama", "http://localhost:11434/v1", {"supportsDeveloperRole": False, "maxTokensField": "max_tokens"}),
        ("vllm", "http://gpu-box:8000/v1", {"supportsStore": False, "maxTokensField": "max_tokens"}),
        ("lmstudio", "http://localhost:1234/v1", {"supportsDeveloperRole": False}),
        ("custom", "http://127.0.0.1:11434/v1", {"supportsDeveloperRole": False, "maxTokensField": "max_tokens"}),
        ("openrouter", "https://openrouter.ai/api/v1", {"thinkingFormat": "openrouter", "supportsStore": True}),
        ("groq", "https://api.groq.com/openai/v1", {"supportsStore": False, "supportsReasoningEffort": True}),
        ("cerebras", "https://api.cerebras.ai/v1", {"supportsStore": False, "supportsDeveloperRole": False}),
        ("xai", "https://api.x.ai/v1", {"supportsReasoningEffort": False, "supportsDeveloperRole": False}),
        (
            "mistral",
            "https://api.mistral.ai/v1",
            {"maxTokensField": "max_tokens", "requiresAssistantAfterToolResult": True},
        ),
        (
            "openai",
            "https://api.openai.com/v1",
            {"supportsStore": True, "supportsDeveloperRole": True, "maxTokensField": "max_completion_tokens"},
        ),
    ],
)
def test_compat_detection(provider: str, base_url: str, expected: dict[str, Any]) -> None:
    model: Any = {"id": "m", "provider": provider, "baseUrl": base_url, "api": "openai-completions"}
    resolved = resolve_compat(model)
    assert {key: resolved[key] for key in expected} == expected


def test_explicit_compat_wins_over_detection() -> None:
    model: Any = {
        "id": "m",
        "provider": "xai",
        "baseUrl": "https://api.x.ai/v1",
        "compat": {"supportsDeveloperRole": True, "maxTokensField": "max_tokens"},
    }
    resolved = resolve_compat(model)
    assert resolved["supportsDeveloperRole"] is True and resolved["maxTokensField"] == "max_tokens"
    assert resolved["supportsReasoningEffort"] is False


async def test_anthropic_golden_body(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "ok"}])
    model = anthropic_model(server)
    call_a = {"type": "toolCall", "id": "toolu_a", "name": "read", "arguments": {"path": "a"}}
    call_b = {"type": "toolCall", "id": "toolu_b", "name": "read", "arguments": {"path": "b"}}
    messages = [
        {"role": "user", "content": "go", "timestamp": 1},
        _assistant(
            [
                {"type": "thinking", "thinking": "signed", "thinkingSignature": "SIG"},
                {"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": "RED", "redacted": True},
                {"type": "text", "text": "two reads"},
                call_a,
                call_b,
            ],
            "claude-test",
            provider="anthropic",
            api="anthropic-messages",
        ),
        {
            "role": "toolResult",
            "toolCallId": "toolu_a",
            "toolName": "read",
            "content": [{"type": "text", "text": "A"}],
            "isError": False,
            "timestamp": 3,
        },
        {
            "role": "toolResult",
            "toolCallId": "toolu_b",
            "toolName": "read",
            "content": [{"type": "text", "text": "B"}],
            "isError": True,
            "timestamp": 3,
        },
        _assistant(
            [{"type": "thinking", "thinking": "cut before signature"}],
            "claude-test",
            stop="stop",
            provider="anthropic",
            api="anthropic-messages",
        ),
        {"role": "user", "content": "   ", "timestamp": 4},
        {"role": "user", "content": "next", "timestamp": 5},
    ]
    context = {"systemPrompt": "SYS", "messages": messages, "tools": [TOOL]}
    await run(model, context, options(reasoning="medium", temperature=0.5))
    request = server.requests[0]
    headers = request["headers"]
    assert headers["x-api-key"] == API_KEY and headers["anthropic-version"] == "2023-06-01"
    assert headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    body = request["body"]
    mark = {"type": "ephemeral"}
    assert body == {
        "model": "claude-test",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "signed", "signature": "SIG"},
                    {"type": "redacted_thinking", "data": "RED"},
                    {"type": "text", "text": "two reads"},
                    {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"path": "a"}},
                    {"type": "tool_use", "id": "toolu_b", "name": "read", "input": {"path": "b"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_a", "content": "A", "is_error": False},
                    {"type": "tool_result", "tool_use_id": "toolu_b", "content": "B", "is_error": True},
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "cut before signature"}]},
            {"role": "user", "content": [{"type": "text", "text": "next", "cache_control": mark}]},
        ],
        "stream": True,
        "max_tokens": 64000 // 3 + 8192,
        "system": [{"type": "text", "text": "SYS", "cache_control": mark}],
        "thinking": {"type": "enabled", "budget_tokens": 8192, "display": "summarized"},
        "tools": [
            {
                "name": "read",
                "description": "Read a file",
                "eager_input_streaming": True,
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
                "cache_control": mark,
            }
        ],
    }


async def test_anthropic_foreign_thinking_and_temperature_without_thinking(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "ok"}])
    model = anthropic_model(server, reasoning=False)
    messages = [
        {"role": "user", "content": "q", "timestamp": 1},
        _assistant(
            [
                {"type": "thinking", "thinking": "from gpt", "thinkingSignature": "reasoning_content"},
                {"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": "R", "redacted": True},
                {"type": "text", "text": "answer"},
            ],
            "gpt-test",
            stop="stop",
        ),
        {"role": "user", "content": "again", "timestamp": 3},
    ]
    await run(model, {"messages": messages}, options(temperature=0.3))
    body = server.requests[0]["body"]
    assert body["temperature"] == 0.3 and "thinking" not in body and "system" not in body
    assert body["messages"][1]["content"] == [{"type": "text", "text": "from gpt"}, {"type": "text", "text": "answer"}]
    assert "anthropic-beta" not in server.requests[0]["headers"]


async def test_adaptive_thinking_models(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "ok"}])
    await run(anthropic_model(server, id="claude-sonnet-4-6"), None, options(reasoning="xhigh"))
    body = server.requests[0]["body"]
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body["output_config"] == {"effort": "high"}
    assert "anthropic-beta" not in server.requests[0]["headers"]
