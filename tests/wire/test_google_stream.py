"""Gemini (``google-generative-ai``) streaming and replay against the fake server."""

from __future__ import annotations

import json
from typing import Any

from pi_cli.ai.overflow import is_retryable_error

from .format_models import google_model, recorded
from .helpers import API_KEY, FakeLLMServer, options, run, types_of, user_context


def _chunk(parts: list[dict[str, Any]], **candidate: Any) -> str:
    body = {"candidates": [{"content": {"role": "model", "parts": parts}, **candidate}], "responseId": "r1"}
    return f"data: {json.dumps(body)}\r\n\r\n"


async def test_recorded_thinking_and_signed_function_call(server: FakeLLMServer) -> None:
    server.add_turns([{"raw": recorded("google_thinking_tool.sse")}])
    events, final = await run(google_model(server), opts=options(reasoning="medium"))
    thinking, text, call = final["content"]
    assert thinking["type"] == "thinking" and thinking["thinking"].startswith("**Finding the port**")
    assert text == {"type": "text", "text": "I'll read the config first."}
    assert call["name"] == "read" and call["arguments"] == {"path": "config.toml"}
    assert call["thoughtSignature"] == "CiQB0e2Kb7Xq9Lr2sVm4Np8TzYwHa6GdJcEuFi3MoQ1kB5nS0xk="
    assert call["id"].startswith("read_")  # Gemini 2.5 sends no call ids: pi mints <name>_<ms>_<n>
    assert final["stopReason"] == "toolUse"
    assert final["responseId"] == "mZ0vabCdEfGhIjKlMnOpQr"
    usage = final["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"]) == (1532 - 1024, 31 + 96, 1024)
    assert usage["totalTokens"] == 1659
    assert abs(usage["cost"]["total"] - (508 * 1.25 + 127 * 10 + 1024 * 0.125) / 1e6) < 1e-12
    assert types_of(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert json.loads(next(e for e in events if e["type"] == "toolcall_delta")["delta"]) == {"path": "config.toml"}


async def test_recorded_text_signature_is_replayed(server: FakeLLMServer) -> None:
    server.add_turns([{"raw": recorded("google_text_signature.sse")}, {"text": "next"}])
    model = google_model(server, id="gemini-3-pro-preview")
    context = user_context()
    _, first = await run(model, context)
    assert first["content"] == [
        {
            "type": "text",
            "text": "The port is **8080** — set in `config.toml` ✓.",
            "textSignature": "EjQKMgG7Yp0aQx5Vb2Nc8Md1Le4Kf7Jg0Ih3Gi6Fj9Ek2Dl5Cm8Bn1Ao4Zp7Yq0Xr3Ws6Vt9Uu2=",
        }
    ]
    assert first["stopReason"] == "stop"
    context["messages"] += [first, {"role": "user", "content": "thanks", "timestamp": 2}]
    await run(model, context)
    contents = server.requests[1]["body"]["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [{"text": first["content"][0]["text"], "thoughtSignature": first["content"][0]["textSignature"]}],
    }


async def test_request_url_key_header_and_body(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "ok"}])
    tools = [
        {
            "name": "mode",
            "description": "Pick a mode",
            "parameters": {"type": "object", "properties": {"m": {"const": "fast"}}, "required": ["m"]},
        }
    ]
    await run(google_model(server), user_context(tools=tools), options(max_tokens=100, temperature=0.5))
    request = server.requests[0]
    assert request["path"] == "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    assert request["headers"]["x-goog-api-key"] == API_KEY
    assert API_KEY not in request["path"]
    body = request["body"]
    assert body["systemInstruction"] == {"parts": [{"text": "You are terse."}]}
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hello"}]}]
    declaration = body["tools"][0]["functionDeclarations"][0]
    assert declaration["parametersJsonSchema"]["properties"]["m"] == {"enum": ["fast"]}
    config = body["generationConfig"]
    assert config["maxOutputTokens"] == 100 and config["temperature"] == 0.5
    assert config["thinkingConfig"] == {"thinkingBudget": 0}  # thinking off on Gemini 2.5


async def test_thinking_signatures_and_call_ids_replayed_for_gemini_3(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {
                "thinking": "Plan it.",
                "thought_signature": "c2lnLXRoaW5r",
                "tool_calls": [{"name": "read", "arguments": {"path": "a"}, "id": "fc-1", "thought_signature": "c2ln"}],
            },
            {"text": "done"},
        ]
    )
    model = google_model(server, id="gemini-3-pro-preview")
    context = user_context()
    _, first = await run(model, context, options(reasoning="high"))
    assert first["content"][0]["thinkingSignature"] == "c2lnLXRoaW5r"
    assert first["content"][1]["id"] == "fc-1"
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    result = {
        "role": "toolResult",
        "toolCallId": "fc-1",
        "toolName": "read",
        "content": [{"type": "text", "text": "A"}, image],
        "isError": False,
        "timestamp": 3,
    }
    context["messages"] += [first, result]
    await run(model, context, options(reasoning="high"))
    body = server.requests[1]["body"]
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "HIGH"}
    assert body["contents"][1]["parts"] == [
        {"thought": True, "text": "Plan it.", "thoughtSignature": "c2lnLXRoaW5r"},
        {"functionCall": {"name": "read", "args": {"path": "a"}, "id": "fc-1"}, "thoughtSignature": "c2ln"},
    ]
    assert body["contents"][2]["parts"] == [
        {
            "functionResponse": {
                "name": "read",
                "response": {"output": "A"},
                "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}],
                "id": "fc-1",
            }
        }
    ]


async def test_images_in_the_user_message(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "a cat"}])
    content = [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "data": "R0lGOD==", "mimeType": "image/gif"},
    ]
    await run(google_model(server), {"messages": [{"role": "user", "content": content, "timestamp": 1}]})
    parts = server.requests[0]["body"]["contents"][0]["parts"]
    assert parts == [{"text": "what is this?"}, {"inlineData": {"mimeType": "image/gif", "data": "R0lGOD=="}}]


async def test_safety_stop_is_an_error_with_the_partial_text(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "Here is how to", "finish_reason": "SAFETY"}])
    _, final = await run(google_model(server))
    assert final["stopReason"] == "error"
    assert final["errorMessage"] == "Provider stopped with: SAFETY"
    assert final["content"][0]["text"] == "Here is how to"


async def test_max_tokens_is_length_and_missing_finish_is_an_error(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "long", "finish_reason": "MAX_TOKENS"}, {"text": "cut", "finish_reason": None}])
    _, length = await run(google_model(server))
    assert length["stopReason"] == "length"
    _, cut = await run(google_model(server))
    assert cut["stopReason"] == "error"
    assert cut["errorMessage"].startswith("Google stream ended without a finish reason")
    assert cut["content"][0]["text"] == "cut"


async def test_error_chunk_mid_stream(server: FakeLLMServer) -> None:
    error = {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}
    server.add_turns([{"text": "some", "error_event": error}])
    _, final = await run(google_model(server))
    assert final["errorMessage"] == "429 Resource has been exhausted (e.g. check quota). (provider: google)"
    assert final["content"][0]["text"] == "some"
    assert is_retryable_error(final)
    assert len(server.requests) == 1


async def test_duplicate_call_ids_are_replaced_and_kinds_switch_blocks(server: FakeLLMServer) -> None:
    raw = [
        _chunk([{"text": "a", "thought": True}, {"text": "b"}]),
        _chunk([{"text": "c", "thought": True}]),
        _chunk([{"functionCall": {"name": "ls", "args": {}, "id": "x"}}]),
        _chunk([{"functionCall": {"name": "ls", "args": {"p": 1}, "id": "x"}}], finishReason="STOP"),
    ]
    server.add_turns([{"raw": raw}])
    _, final = await run(google_model(server, id="gemini-3-flash-preview"))
    kinds = [b["type"] for b in final["content"]]
    assert kinds == ["thinking", "text", "thinking", "toolCall", "toolCall"]
    first, second = final["content"][3], final["content"][4]
    assert first["id"] == "x" and second["id"] != "x" and second["id"].startswith("ls_")
    assert final["stopReason"] == "toolUse"
