"""Anthropic messages streaming semantics against the fake server (spec §7 AN cases)."""

from __future__ import annotations

import json

import pytest

from pi_cli.ai.overflow import is_retryable_error

from .helpers import AN_START, AN_STOP, FakeLLMServer, an, an_end, an_text_block, anthropic_model, run, types_of


async def test_thinking_signature_text_and_tool_use(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {
                "thinking": "Let me think about it.",
                "thinking_signature": "EqQBsig==",
                "text": "Reading.",
                "tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}, "id": "toolu_1"}],
                "usage": {"input": 12, "output": 57, "cache_read": 5, "cache_write": 3},
                "chunk_size": 4,
            }
        ]
    )
    events, final = await run(anthropic_model(server))
    assert [b["type"] for b in final["content"]] == ["thinking", "text", "toolCall"]
    assert final["content"][0] == {
        "type": "thinking",
        "thinking": "Let me think about it.",
        "thinkingSignature": "EqQBsig==",
    }
    assert final["content"][2] == {"type": "toolCall", "id": "toolu_1", "name": "read", "arguments": {"path": "a.txt"}}
    assert final["stopReason"] == "toolUse"
    usage = final["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"]) == (12, 57, 5, 3)
    assert usage["totalTokens"] == 77
    assert final["responseId"] == "msg_fake_1"
    kinds = types_of(events)
    assert kinds.index("thinking_end") < kinds.index("text_start") < kinds.index("toolcall_start")


async def test_signature_split_across_deltas_is_joined(server: FakeLLMServer) -> None:
    start = an(
        "content_block_start", {"index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}
    )
    deltas = [
        an("content_block_delta", {"index": 0, "delta": {"type": "thinking_delta", "thinking": "hm"}}),
        an("content_block_delta", {"index": 0, "delta": {"type": "signature_delta", "signature": "AB"}}),
        an("content_block_delta", {"index": 0, "delta": {"type": "signature_delta", "signature": "CD"}}),
    ]
    server.add_turns([{"raw": [AN_START, start, *deltas, an("content_block_stop", {"index": 0}), *an_end()]}])
    _, final = await run(anthropic_model(server))
    assert final["content"][0]["thinkingSignature"] == "ABCD"


async def test_redacted_thinking(server: FakeLLMServer) -> None:
    server.add_turns([{"redacted_thinking": "opaque-data", "text": "done"}])
    _, final = await run(anthropic_model(server))
    assert final["content"][0] == {
        "type": "thinking",
        "thinking": "[Reasoning redacted]",
        "thinkingSignature": "opaque-data",
        "redacted": True,
    }


async def test_input_json_with_raw_tab_and_bad_escape_is_repaired(server: FakeLLMServer) -> None:
    start = an(
        "content_block_start",
        {"index": 0, "content_block": {"type": "tool_use", "id": "toolu_r", "name": "bash", "input": {}}},
    )
    parts = ['{"command": "printf \'a', "\tb\\", "H'\"}"]
    deltas = [
        an("content_block_delta", {"index": 0, "delta": {"type": "input_json_delta", "partial_json": p}}) for p in parts
    ]
    server.add_turns([{"raw": [AN_START, start, *deltas, an("content_block_stop", {"index": 0}), *an_end("tool_use")]}])
    _, final = await run(anthropic_model(server))
    assert final["content"][0]["arguments"] == {"command": "printf 'a\tb\\H'"}


async def test_large_tool_input_in_many_deltas(server: FakeLLMServer) -> None:
    content = "x = 'quoted \"value\"'\n" * 12500  # ~250 kB in ~5,000 deltas
    server.add_turns(
        [{"tool_calls": [{"name": "write", "arguments": {"path": "big.py", "content": content}}], "chunk_size": 55}]
    )
    _, final = await run(anthropic_model(server))
    assert final["content"][0]["arguments"]["content"] == content  # (a quadratic re-parse would take minutes)


async def test_ping_and_unknown_events_ignored(server: FakeLLMServer) -> None:
    ping = 'event: ping\ndata: {"type": "ping"}\n\n'
    unknown = 'event: future_event\ndata: {"type": "future_event", "x": 1}\n\n'
    server.add_turns([{"raw": [ping, AN_START, ping, *an_text_block(0, "hi"), unknown, ping, *an_end()]}])
    _, final = await run(anthropic_model(server))
    assert final["content"] == [{"type": "text", "text": "hi"}] and final["stopReason"] == "stop"


async def test_error_event_mid_stream(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {"text": "some text", "error_event": {"type": "overloaded_error", "message": "Overloaded"}},
            {"text": "not used"},
        ]
    )
    _, final = await run(anthropic_model(server))
    assert final["stopReason"] == "error"
    assert "overloaded_error" in final["errorMessage"]
    assert final["content"][0]["text"] == "some text"
    assert len(server.requests) == 1  # no ai-layer retry once the body streamed
    assert is_retryable_error(final)


async def test_socket_closed_after_message_start(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "never arrives", "drop_after": 1}, {"raw": [AN_START]}])
    _, final = await run(anthropic_model(server))
    assert final["stopReason"] == "error"
    assert "ended before message_stop" in final["errorMessage"]
    assert final["usage"]["input"] > 0  # message_start usage survives
    _, clean_eof = await run(anthropic_model(server))
    assert "ended before message_stop" in clean_eof["errorMessage"]


async def test_final_event_without_blank_line_is_dispatched(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {
                "raw": [
                    AN_START,
                    *an_text_block(0, "end"),
                    an("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
                    an("message_stop", {}, blank=False),
                ]
            }
        ]
    )
    _, final = await run(anthropic_model(server))
    assert final["stopReason"] == "stop" and final["content"][0]["text"] == "end"


async def test_message_delta_null_usage_keeps_start_values(server: FakeLLMServer) -> None:
    delta = an(
        "message_delta",
        {
            "delta": {"stop_reason": "end_turn"},
            "usage": {"input_tokens": None, "output_tokens": 9, "cache_read_input_tokens": None},
        },
    )
    server.add_turns([{"raw": [AN_START, *an_text_block(0, "x"), delta, AN_STOP]}])
    _, final = await run(anthropic_model(server))
    usage = final["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"]) == (12, 9, 5, 3)


@pytest.mark.parametrize(
    ("reason", "stop", "error"),
    [
        ("max_tokens", "length", None),
        ("refusal", "error", "refusal"),
        ("pause_turn", "stop", None),
        ("stop_sequence", "stop", None),
        ("mystery", "error", "Unhandled stop reason: mystery"),
    ],
)
async def test_stop_reason_mapping(server: FakeLLMServer, reason: str, stop: str, error: str | None) -> None:
    server.add_turns([{"text": "t", "finish_reason": reason}])
    _, final = await run(anthropic_model(server))
    assert final["stopReason"] == stop
    if error:
        assert error in final["errorMessage"]


async def test_initial_text_in_block_start_is_kept(server: FakeLLMServer) -> None:
    start = an("content_block_start", {"index": 0, "content_block": {"type": "text", "text": "Hello"}})
    delta = an("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": ", world"}})
    server.add_turns([{"raw": [AN_START, start, delta, an("content_block_stop", {"index": 0}), *an_end()]}])
    _, final = await run(anthropic_model(server))
    assert final["content"][0]["text"] == "Hello, world"


async def test_delta_for_unknown_index_is_ignored(server: FakeLLMServer) -> None:
    stray = an("content_block_delta", {"index": 7, "delta": {"type": "text_delta", "text": "stray"}})
    server.add_turns([{"raw": [AN_START, stray, *an_text_block(0, "real"), *an_end()]}])
    _, final = await run(anthropic_model(server))
    assert final["content"] == [{"type": "text", "text": "real"}]


async def test_unparseable_event_is_an_error(server: FakeLLMServer) -> None:
    broken = 'event: content_block_delta\ndata: {"type": "content_block_delta", "index": [\n\n'
    server.add_turns([{"raw": [AN_START, *an_text_block(0, "kept"), broken, *an_end()]}])
    _, final = await run(anthropic_model(server))
    assert final["stopReason"] == "error"
    assert "Could not parse Anthropic SSE event content_block_delta" in final["errorMessage"]
    assert final["content"][0]["text"] == "kept"


async def test_overloaded_529_then_success(server: FakeLLMServer) -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.add_turns([{"status": 529, "body": body}, {"text": "recovered"}])
    _, final = await run(anthropic_model(server))
    assert final["content"][0]["text"] == "recovered"
    assert json.dumps(server.requests[1]["body"]) == json.dumps(server.requests[0]["body"])
