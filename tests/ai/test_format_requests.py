"""Request building of the Responses and Gemini formats (pure; expected values taken from pi's code)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_cli.ai.options import StreamOptions
from pi_cli.ai.requests.google import build_request as google_request
from pi_cli.ai.requests.google import const_as_enum, convert_contents, thinking_config
from pi_cli.ai.requests.openai_responses import convert_input, short_hash

ZERO = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {}}


def _assistant(provider: str, api: str, model: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "api": api,
        "provider": provider,
        "model": model,
        "stopReason": "toolUse",
        "timestamp": 2,
        "usage": ZERO,
        "content": content,
    }


def _model(model_id: str, api: str, provider: str, **extra: Any) -> dict[str, Any]:
    return {"id": model_id, "api": api, "provider": provider, "reasoning": True, "input": ["text", "image"], **extra}


@pytest.mark.parametrize(
    ("text", "digest"),
    [
        ("fc_abc123", "ia5uw610gdqii"),
        ("toolu_01ABCdef", "11th46g8nu9yr"),
        ("héllo😀", "1olj6nu1frhbfw"),
        ("", "k4n83c7h0j2b"),
    ],
)
def test_short_hash_matches_pi(text: str, digest: str) -> None:
    assert short_hash(text) == digest


def test_responses_input_replays_each_item_kind() -> None:
    model = _model("gpt-5", "openai-responses", "openai")
    reasoning = '{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"ENC"}'
    context: dict[str, Any] = {
        "systemPrompt": "Be brief.",
        "messages": [
            {"role": "user", "content": "hi", "timestamp": 1},
            _assistant(
                "anthropic",
                "anthropic-messages",
                "claude-x",
                [
                    {"type": "text", "text": "I'll read."},
                    {"type": "toolCall", "id": "toolu_01ABC", "name": "read", "arguments": {"path": "a"}},
                ],
            ),
            {
                "role": "toolResult",
                "toolCallId": "toolu_01ABC",
                "toolName": "read",
                "content": [{"type": "text", "text": "A"}],
                "isError": False,
                "timestamp": 3,
            },
            _assistant(
                "openai",
                "openai-responses",
                "gpt-5",
                [
                    {"type": "thinking", "thinking": "sum", "thinkingSignature": reasoning},
                    {"type": "text", "text": "ok", "textSignature": '{"v":1,"id":"msg_1","phase":"commentary"}'},
                    {"type": "toolCall", "id": "call_9|fc_9", "name": "bash", "arguments": {"command": "ls"}},
                ],
            ),
            {
                "role": "toolResult",
                "toolCallId": "call_9|fc_9",
                "toolName": "bash",
                "content": [{"type": "image", "data": "BB", "mimeType": "image/png"}],
                "isError": False,
                "timestamp": 5,
            },
            _assistant(
                "openai",
                "openai-responses",
                "gpt-4o",
                [{"type": "toolCall", "id": "call_7|fc_7", "name": "ls", "arguments": {}}],
            ),
        ],
    }
    items = convert_input(model, context)  # type: ignore[arg-type]
    assert items == [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "I'll read.", "annotations": []}],
            "status": "completed",
            "id": "msg_pi_1",
        },
        {"type": "function_call", "call_id": "toolu_01ABC", "name": "read", "arguments": '{"path":"a"}'},
        {"type": "function_call_output", "call_id": "toolu_01ABC", "output": "A"},
        {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "ENC"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            "status": "completed",
            "id": "msg_1",
            "phase": "commentary",
        },
        {"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "bash", "arguments": '{"command":"ls"}'},
        {
            "type": "function_call_output",
            "call_id": "call_9",
            "output": [{"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,BB"}],
        },
        # another OpenAI model's item id would fail the reasoning pairing check: left out
        {"type": "function_call", "call_id": "call_7", "name": "ls", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_7", "output": "No result provided"},
    ]


def test_foreign_responses_item_ids_are_hashed() -> None:
    model = _model("gpt-5", "openai-responses", "openai")
    call = {"type": "toolCall", "id": "call_1|item-from-elsewhere", "name": "ls", "arguments": {}}
    context: dict[str, Any] = {"messages": [_assistant("openai-codex", "openai-codex-responses", "gpt-5", [call])]}
    items = convert_input(model, context)  # type: ignore[arg-type]
    assert items[0]["id"] == "fc_" + short_hash("item-from-elsewhere")


@pytest.mark.parametrize(
    ("model_id", "level_map", "level", "expected"),
    [
        ("gemini-2.5-pro", None, None, {"thinkingBudget": 0}),
        ("gemini-2.5-pro", None, "high", {"includeThoughts": True, "thinkingBudget": 32768}),
        ("gemini-2.5-flash-lite", None, "minimal", {"includeThoughts": True, "thinkingBudget": 512}),
        ("gemini-2.5-flash", None, "low", {"includeThoughts": True, "thinkingBudget": 2048}),
        ("gemini-3-flash-preview", None, "medium", {"includeThoughts": True, "thinkingLevel": "MEDIUM"}),
        (
            "gemini-3.1-pro-preview",
            {"off": None, "minimal": None, "low": "LOW", "medium": None, "high": "HIGH"},
            "off",
            {"thinkingLevel": "LOW"},  # cannot switch thinking off: the lowest level, thoughts hidden
        ),
        (
            "gemini-3.1-pro-preview",
            {"off": None, "minimal": None, "low": "LOW", "medium": None, "high": "HIGH"},
            "medium",
            {"includeThoughts": True, "thinkingLevel": "HIGH"},
        ),
        ("gemini-experimental", None, "high", {"includeThoughts": True, "thinkingBudget": -1}),
    ],
)
def test_gemini_thinking_config(model_id: str, level_map: Any, level: str | None, expected: dict[str, Any]) -> None:
    extra = {"thinkingLevelMap": level_map} if level_map else {}
    model = _model(model_id, "google-generative-ai", "google", **extra)
    assert thinking_config(model, level) == expected  # type: ignore[arg-type]


def test_const_becomes_enum_only_where_it_is_a_keyword() -> None:
    schema = {
        "type": "object",
        "properties": {
            "mode": {"const": "fast"},
            "n": {"anyOf": [{"const": 1}, {"const": True}]},
            "const": {"type": "string"},
        },
        "$defs": {"x": {"const": "y"}},
    }
    assert const_as_enum(schema) == {
        "type": "object",
        "properties": {
            "mode": {"enum": ["fast"]},
            "n": {"anyOf": [{"enum": [1]}, {"const": True}]},
            "const": {"type": "string"},
        },
        "$defs": {"x": {"enum": ["y"]}},
    }


def test_gemini_2_images_from_tools_go_in_a_separate_turn_and_bad_signatures_are_dropped() -> None:
    model = _model("gemini-2.5-flash", "google-generative-ai", "google")
    calls = [
        {"type": "toolCall", "id": "a", "name": "shot", "arguments": {}, "thoughtSignature": "not base64!"},
        {"type": "toolCall", "id": "b", "name": "ls", "arguments": {}},
    ]
    image = {"type": "image", "data": "BBBB", "mimeType": "image/jpeg"}
    context: dict[str, Any] = {
        "messages": [
            _assistant("google", "google-generative-ai", "gemini-2.5-flash", calls),
            {
                "role": "toolResult",
                "toolCallId": "a",
                "toolName": "shot",
                "content": [image],
                "isError": False,
                "timestamp": 3,
            },
            {
                "role": "toolResult",
                "toolCallId": "b",
                "toolName": "ls",
                "content": [{"type": "text", "text": "boom"}],
                "isError": True,
                "timestamp": 4,
            },
        ]
    }
    contents = convert_contents(model, context)  # type: ignore[arg-type]
    assert contents == [
        {
            "role": "model",
            "parts": [{"functionCall": {"name": "shot", "args": {}}}, {"functionCall": {"name": "ls", "args": {}}}],
        },
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "shot", "response": {"output": "(see attached image)"}}}],
        },
        {
            "role": "user",
            "parts": [{"text": "Tool result image:"}, {"inlineData": {"mimeType": "image/jpeg", "data": "BBBB"}}],
        },
        {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"error": "boom"}}}]},
    ]


def test_gemini_key_travels_in_a_header_and_model_headers_apply() -> None:
    model = _model(
        "gemini-2.5-pro",
        "google-generative-ai",
        "google",
        baseUrl="https://g.example/v1beta/",
        headers={"x-extra": "1"},
    )
    url, headers, _ = google_request(
        model, {"messages": []}, StreamOptions(api_key="AIzaSECRET", headers={"x-more": "2"})
    )  # type: ignore[arg-type]
    assert url == "https://g.example/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    assert headers["x-goog-api-key"] == "AIzaSECRET" and "AIza" not in url
    assert headers["x-extra"] == "1" and headers["x-more"] == "2"
