"""OpenAI Responses (``openai-responses``) streaming and replay against the fake server."""

from __future__ import annotations

import json
from typing import Any

from pi_cli.ai.overflow import is_retryable_error

from .format_models import recorded, responses_model
from .helpers import FakeLLMServer, options, run, types_of, user_context


def _ev(name: str, **payload: Any) -> str:
    return f"event: {name}\ndata: {json.dumps({'type': name, **payload})}\n\n"


async def test_recorded_reasoning_text_and_tool_call(server: FakeLLMServer) -> None:
    server.add_turns([{"raw": recorded("openai_responses_reasoning_tool.sse")}])
    events, final = await run(responses_model(server), opts=options(reasoning="medium", session_id="s-1"))
    thinking, text, call = final["content"]
    # The summaries streamed (each finished part adds a blank line); the item's own summary settles it.
    assert thinking["thinking"] == (
        "**Locating the config**\n\nThe user wants the port. I should read `config.toml` first.\n\n"
        "**Planning the answer**\n\nThen report the value."
    )
    item = json.loads(thinking["thinkingSignature"])
    assert item["type"] == "reasoning" and item["id"] == "rs_0a1b2c3d4e5f6071800000001"
    assert item["encrypted_content"].startswith("gAAAAABpLxQ_7mN2")
    assert text == {
        "type": "text",
        "text": "Let me check `config.toml` for the port.",
        "textSignature": '{"v":1,"id":"msg_0a1b2c3d4e5f6071800000002","phase":"commentary"}',
    }
    assert call == {
        "type": "toolCall",
        "id": "call_Zq8vN3kLm2PxR7tY|fc_0a1b2c3d4e5f6071800000003",
        "name": "read",
        "arguments": {"path": "config.toml"},
    }
    assert final["stopReason"] == "toolUse"
    assert final["responseId"] == "resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9"
    usage = final["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"]) == (346, 187, 4864, 0)
    assert usage["totalTokens"] == 5397
    assert abs(usage["cost"]["total"] - (346 * 2.5 + 187 * 15 + 4864 * 0.25) / 1e6) < 1e-12
    kinds = types_of(events)
    assert kinds.count("thinking_delta") == 7  # five summary deltas + two part separators
    assert kinds.index("thinking_end") < kinds.index("text_start") < kinds.index("toolcall_start")
    assert kinds.count("toolcall_delta") == 6


async def test_recorded_incomplete_is_length_and_survives_split_utf8(server: FakeLLMServer) -> None:
    server.add_turns([{"raw": "".join(recorded("openai_responses_incomplete_text.sse")), "split_bytes": 7}])
    _, final = await run(responses_model(server, id="gpt-4.1", reasoning=False))
    assert final["content"][0]["text"] == "Über 42 Zeilen — done ✓"
    assert final["stopReason"] == "length"
    assert final["usage"]["input"] == 36 and final["usage"]["output"] == 16


async def test_request_body_and_headers(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "ok"}])
    tools = [{"name": "read", "description": "Read a file", "parameters": {"type": "object", "properties": {}}}]
    await run(
        responses_model(server),
        user_context(tools=tools),
        options(reasoning="xhigh", session_id="sess-42", max_tokens=4, temperature=0.2),
    )
    request = server.requests[0]
    assert request["path"] == "/v1/responses"
    body = request["body"]
    assert body["store"] is False and body["stream"] is True
    assert body["prompt_cache_key"] == "sess-42"
    assert body["reasoning"] == {"effort": "xhigh", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["max_output_tokens"] == 16  # the API's minimum
    assert body["temperature"] == 0.2
    assert body["input"][0] == {"role": "developer", "content": "You are terse."}
    assert body["tools"] == [{"type": "function", **tools[0]}]  # pi 1.6: no "strict" unless compat asks
    headers = request["headers"]
    assert headers["authorization"].startswith("Bearer sk-test")
    assert headers["session_id"] == "sess-42" and headers["x-client-request-id"] == "sess-42"


async def test_reasoning_off_follows_the_level_map(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "a"}, {"text": "b"}, {"text": "c"}])
    await run(responses_model(server), opts=options())  # gpt-5.4 cannot turn reasoning off: nothing sent
    await run(responses_model(server, thinkingLevelMap={}), opts=options())
    await run(responses_model(server, id="gpt-4.1", reasoning=False), opts=options(reasoning="high"))
    first, second, third = (r["body"] for r in server.requests)
    assert "reasoning" not in first and "include" not in first
    assert second["reasoning"] == {"effort": "none"}
    assert "reasoning" not in third and third["input"][0]["role"] == "system"


async def test_reasoning_items_are_replayed_on_the_next_request(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {
                "thinking": "Need the file.",
                "encrypted_content": "ENC-abc",
                "text": "Reading.",
                "phase": "commentary",
                "tool_calls": [{"name": "read", "arguments": {"path": "a"}, "id": "call_1"}],
            },
            {"text": "Done."},
        ]
    )
    model = responses_model(server)
    context = user_context()
    _, first = await run(model, context, options(reasoning="low"))
    result = {
        "role": "toolResult",
        "toolCallId": first["content"][2]["id"],
        "toolName": "read",
        "content": [{"type": "text", "text": "contents of a"}],
        "isError": False,
        "timestamp": 3,
    }
    context["messages"] += [first, result]
    _, second = await run(model, context, options(reasoning="low"))
    assert second["content"][0]["text"] == "Done."
    replay = server.requests[1]["body"]["input"]
    assert replay[2] == {
        "id": "rs_fake_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "Need the file."}],
        "encrypted_content": "ENC-abc",
    }
    assert replay[3]["id"] == "msg_fake_1" and replay[3]["phase"] == "commentary"
    assert replay[3]["content"] == [{"type": "output_text", "text": "Reading.", "annotations": []}]
    assert replay[4] == {
        "type": "function_call",
        "id": "fc_fake_1_0",
        "call_id": "call_1",
        "name": "read",
        "arguments": '{"path":"a"}',
    }
    assert replay[5] == {"type": "function_call_output", "call_id": "call_1", "output": "contents of a"}


async def test_arguments_done_replaces_the_streamed_buffer(server: FakeLLMServer) -> None:
    added = {"id": "fc_1", "type": "function_call", "call_id": "c1", "name": "bash", "arguments": ""}
    raw = [
        _ev("response.created", response={"id": "resp_1"}),
        _ev("response.output_item.added", output_index=0, item=added),
        _ev("response.function_call_arguments.delta", output_index=0, delta='{"command":"l'),
        _ev("response.function_call_arguments.done", output_index=0, arguments='{"command":"ls -la"}'),
        _ev("response.output_item.done", output_index=0, item={**added, "arguments": '{"command":"ls -la"}'}),
        _ev("response.completed", response={"id": "resp_1", "status": "completed"}),
    ]
    server.add_turns([{"raw": raw}])
    events, final = await run(responses_model(server))
    assert final["content"][0]["arguments"] == {"command": "ls -la"}
    deltas = [e["delta"] for e in events if e["type"] == "toolcall_delta"]
    assert deltas == ['{"command":"l', 's -la"}']
    assert final["stopReason"] == "toolUse"


async def test_encrypted_content_backfilled_from_the_final_response(server: FakeLLMServer) -> None:
    reasoning = {"id": "rs_9", "type": "reasoning", "summary": [{"type": "summary_text", "text": "t"}]}
    raw = [
        _ev("response.output_item.added", output_index=0, item={"id": "rs_9", "type": "reasoning", "summary": []}),
        _ev("response.output_item.done", output_index=0, item=reasoning),
        _ev(
            "response.completed",
            response={"status": "completed", "output": [{**reasoning, "encrypted_content": "LATE"}]},
        ),
    ]
    server.add_turns([{"raw": raw}])
    _, final = await run(responses_model(server))
    assert json.loads(final["content"][0]["thinkingSignature"])["encrypted_content"] == "LATE"
    assert final["content"][0]["thinking"] == "t"


async def test_incomplete_for_another_reason_is_an_error(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "partial", "finish_reason": "incomplete", "incomplete_reason": "content_filter"}])
    _, final = await run(responses_model(server))
    assert final["stopReason"] == "error"
    assert final["errorMessage"] == "Response incomplete: content_filter"
    assert final["content"][0]["text"] == "partial"


async def test_response_failed_and_error_event(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {"text": "half", "failed": {"code": "server_error", "message": "The model failed to respond."}},
            {"text": "x", "error_event": {"code": "rate_limit_exceeded", "message": "Rate limit reached"}},
        ]
    )
    _, failed = await run(responses_model(server))
    assert failed["errorMessage"] == "server_error: The model failed to respond. (provider: openai)"
    assert failed["content"][0]["text"] == "half"
    assert is_retryable_error(failed)
    _, errored = await run(responses_model(server))
    assert errored["errorMessage"].startswith("Error Code rate_limit_exceeded: Rate limit reached")
    assert len(server.requests) == 2  # nothing is retried once the body streamed


async def test_body_without_terminal_event_is_an_error(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "cut", "finish_reason": None}])
    _, final = await run(responses_model(server))
    assert final["stopReason"] == "error"
    assert "stream ended before a terminal response event" in final["errorMessage"]
    assert final["content"][0]["text"] == "cut"
    assert is_retryable_error(final)


async def test_unfinished_tool_call_is_refused(server: FakeLLMServer) -> None:
    added = {"id": "fc_1", "type": "function_call", "call_id": "c1", "name": "write", "arguments": ""}
    raw = [
        _ev("response.output_item.added", output_index=0, item=added),
        _ev("response.function_call_arguments.delta", output_index=0, delta='{"path":"a.py","content":"x'),
        _ev("response.completed", response={"status": "completed"}),
    ]
    server.add_turns([{"raw": raw}])
    _, final = await run(responses_model(server))
    assert final["stopReason"] == "error"
    assert "unfinished tool call: write (c1|fc_1)" in final["errorMessage"]
    assert final["content"][0]["arguments"] == {"path": "a.py", "content": "x"}


async def test_interleaved_items_stay_apart(server: FakeLLMServer) -> None:
    msg = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    call = {"id": "fc_1", "type": "function_call", "call_id": "c1", "name": "ls", "arguments": ""}
    raw = [
        _ev("response.output_item.added", output_index=0, item=msg),
        _ev("response.output_item.added", output_index=1, item=call),
        _ev("response.output_text.delta", output_index=0, delta="Hel"),
        _ev("response.function_call_arguments.delta", output_index=1, delta="{}"),
        _ev("response.output_text.delta", output_index=0, delta="lo"),
        _ev("response.output_text.delta", output_index=7, delta="stray"),
        _ev("response.output_item.done", output_index=1, item={**call, "arguments": "{}"}),
        _ev("response.output_item.done", output_index=0, item=msg),
        _ev("response.completed", response={"status": "completed"}),
    ]
    server.add_turns([{"raw": raw}])
    _, final = await run(responses_model(server))
    assert final["content"][0] == {"type": "text", "text": "Hello", "textSignature": '{"v":1,"id":"msg_1"}'}
    assert final["content"][1]["arguments"] == {}
    assert final["stopReason"] == "toolUse"


async def test_copilot_gpt_models_speak_responses(server: FakeLLMServer) -> None:
    from pi_cli.ai.models import get_model

    model = get_model("github-copilot", "gpt-6-sol")
    assert model is not None and model["api"] == "openai-responses"
    server.add_turns([{"text": "seen"}])
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    context = {"messages": [{"role": "user", "content": [{"type": "text", "text": "look"}, image], "timestamp": 1}]}
    await run({**model, "baseUrl": server.openai_base_url}, context, options(api_key="tid=1;exp=9"))
    request = server.requests[0]
    assert request["path"] == "/v1/responses"
    headers = request["headers"]
    assert headers["authorization"] == "Bearer tid=1;exp=9"
    assert headers["x-initiator"] == "user" and headers["copilot-vision-request"] == "true"
    assert headers["copilot-integration-id"] == "vscode-chat"
    assert "reasoning" not in request["body"]  # Copilot: no effort is sent while thinking is off
