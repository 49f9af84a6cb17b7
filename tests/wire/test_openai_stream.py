"""OpenAI chat-completions streaming semantics against the fake server (spec §7 framing + OA cases)."""

from __future__ import annotations

import json

from pi_cli.ai.overflow import is_retryable_error
from pi_cli.ai.stream import stream

from .helpers import API_KEY, FakeLLMServer, oa, openai_model, options, run, types_of, user_context


async def test_text_stream_usage_cost_and_ids(server: FakeLLMServer) -> None:
    server.add_turns(
        [{"text": "Hello there, world", "chunk_size": 5, "usage": {"input": 100, "output": 9, "cache_read": 40}}]
    )
    events, final = await run(openai_model(server))
    kinds = types_of(events)
    assert kinds[:2] == ["start", "text_start"]  # role-only first chunk opened nothing
    assert kinds.count("text_start") == 1 and kinds.count("text_end") == 1
    assert "".join(e["delta"] for e in events if e["type"] == "text_delta") == "Hello there, world"
    assert final["content"] == [{"type": "text", "text": "Hello there, world"}]
    assert final["stopReason"] == "stop"
    usage = final["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["totalTokens"]) == (100, 9, 40, 149)
    assert abs(usage["cost"]["total"] - (100 * 2 + 9 * 8 + 40 * 0.5) / 1e6) < 1e-12
    assert final["responseId"] == "chatcmpl-fake-1"


async def test_utf8_split_across_writes(server: FakeLLMServer) -> None:
    text = "naïve café 😀 — 日本語 é"
    server.add_turns([{"text": text, "chunk_size": 3, "split_bytes": 1}])
    _, final = await run(openai_model(server))
    assert final["content"][0]["text"] == text
    assert "\ufffd" not in final["content"][0]["text"]


async def test_crlf_and_bare_cr_line_endings(server: FakeLLMServer) -> None:
    server.add_turns(
        [{"text": "same result", "newline": "\r\n", "split_bytes": 7}, {"text": "same result", "newline": "\r"}]
    )
    _, first = await run(openai_model(server))
    _, second = await run(openai_model(server))
    assert first["content"] == second["content"] == [{"type": "text", "text": "same result"}]


async def test_comments_multiline_data_and_no_space(server: FakeLLMServer) -> None:
    chunk = json.dumps({"id": "c9", "choices": [{"index": 0, "delta": {"content": "two"}, "finish_reason": None}]})
    head, tail = chunk[:12], chunk[12:]  # split at whitespace: the joining "\n" keeps the JSON valid
    server.add_turns(
        [
            {
                "raw": [
                    ": ping\n\n",
                    ": OPENROUTER PROCESSING\n\n",
                    oa({"content": "one "}),
                    f"data: {head}\ndata: {tail}\n\n",
                    "data:" + json.dumps({"choices": [{"index": 0, "delta": {"content": "!"}}]}) + "\n\n",
                    oa(finish="stop"),
                    "data: [DONE]\n\n",
                ]
            }
        ]
    )
    _, final = await run(openai_model(server))
    assert final["content"][0]["text"] == "one two!"
    assert final["stopReason"] == "stop"


async def test_malformed_json_chunk_is_an_error_keeping_text(server: FakeLLMServer) -> None:
    server.add_turns([{"raw": [oa({"content": "kept"}), "data: {not json\n\n", oa(finish="stop")]}])
    _, final = await run(openai_model(server))
    assert final["stopReason"] == "error"
    assert "Could not parse" in final["errorMessage"]
    assert final["content"][0]["text"] == "kept"


async def test_json_error_body_with_200_status(server: FakeLLMServer) -> None:
    server.add_turns(
        [{"raw": json.dumps({"error": {"message": "model overloaded, try later"}}), "content_type": "application/json"}]
    )
    _, final = await run(openai_model(server))
    assert final["stopReason"] == "error"
    assert "model overloaded, try later" in final["errorMessage"]


async def test_usage_only_in_final_chunk_with_cache(server: FakeLLMServer) -> None:
    usage = {"prompt_tokens": 900, "completion_tokens": 40, "prompt_tokens_details": {"cached_tokens": 768}}
    server.add_turns(
        [
            {
                "raw": [
                    oa({"role": "assistant", "content": ""}, usage=None),
                    oa({"content": "x"}),
                    oa(finish="stop"),
                    oa(no_choices=True, usage=usage),
                    "data: [DONE]\n\n",
                ]
            }
        ]
    )
    _, final = await run(openai_model(server))
    assert final["usage"]["input"] == 132 and final["usage"]["cacheRead"] == 768 and final["usage"]["output"] == 40
    assert final["usage"]["cost"]["total"] > 0


async def test_usage_in_choice_and_empty_first_choices(server: FakeLLMServer) -> None:
    moonshot_usage = {"prompt_tokens": 50, "completion_tokens": 5}
    first = {"id": "c2", "choices": [], "prompt_filter_results": [{"prompt_index": 0}]}
    last = {"id": "c2", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop", "usage": moonshot_usage}]}
    server.add_turns(
        [
            {
                "raw": [
                    f"data: {json.dumps(first)}\n\n",
                    oa({"content": "hi"}),
                    f"data: {json.dumps(last)}\n\n",
                    "data: [DONE]\n\n",
                ]
            }
        ]
    )
    _, final = await run(openai_model(server))
    assert final["content"][0]["text"] == "hi"
    assert (final["usage"]["input"], final["usage"]["output"]) == (50, 5)


async def test_tool_arguments_in_one_char_fragments(server: FakeLLMServer) -> None:
    args = {"path": "src/caf\u00e9.py", "content": 'line "one"\n\ttab \\ back \u00e9'}
    raw_args = json.dumps(args)  # ASCII escapes: \u00e9, \n, \", \\ all split across fragments
    server.add_turns([{"tool_calls": [{"name": "write", "arguments": raw_args, "id": "call_w"}], "chunk_size": 1}])
    seen_paths: set[str] = set()
    count = 0
    s = stream(openai_model(server), user_context(), options())  # type: ignore[arg-type]
    async for event in s:
        if event["type"] == "toolcall_delta":
            count += 1
            args_now = event["partial"]["content"][0]["arguments"]  # type: ignore[typeddict-item]
            assert isinstance(args_now, dict)
            seen_paths.add(args_now.get("path", ""))
    assert count == len(raw_args) + 1  # the opening fragment carries "" arguments
    assert "src/caf" in seen_paths  # arguments grow visibly while streaming
    final = await s.result()
    assert final["content"][0] == {"type": "toolCall", "id": "call_w", "name": "write", "arguments": args}
    assert final["stopReason"] == "toolUse"


async def test_parallel_tool_calls_interleaved_by_index(server: FakeLLMServer) -> None:
    calls = [
        {"name": "read", "arguments": {"path": "a.txt"}, "id": "call_a"},
        {"name": "ls", "arguments": {"path": "dir/sub"}, "id": "call_b"},
    ]
    server.add_turns([{"text": "Let me look.", "tool_calls": calls, "interleave_tools": True, "chunk_size": 4}])
    events, final = await run(openai_model(server))
    blocks = final["content"]
    assert [b["type"] for b in blocks] == ["text", "toolCall", "toolCall"]
    assert [(b["id"], b["name"], b["arguments"]) for b in blocks[1:]] == [
        ("call_a", "read", {"path": "a.txt"}),
        ("call_b", "ls", {"path": "dir/sub"}),
    ]
    ends = [e["contentIndex"] for e in events if e["type"] == "toolcall_end"]
    assert ends == [1, 2]


async def test_fragments_without_index_route_by_id_then_last(server: FakeLLMServer) -> None:
    start = {"tool_calls": [{"id": "call_x", "type": "function", "function": {"name": "bash", "arguments": ""}}]}
    by_id = {"tool_calls": [{"id": "call_x", "function": {"arguments": '{"command":'}}]}
    anon = {"tool_calls": [{"function": {"arguments": ' "ls"}'}}]}
    server.add_turns([{"raw": [oa(start), oa(by_id), oa(anon), oa(finish="tool_calls"), "data: [DONE]\n\n"]}])
    _, final = await run(openai_model(server))
    assert len(final["content"]) == 1
    assert final["content"][0]["arguments"] == {"command": "ls"}


async def test_length_mid_tool_call_keeps_best_effort_args(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {
                "tool_calls": [{"name": "write", "arguments": '{"path": "a.py", "content": "print(1'}],
                "finish_reason": "length",
            }
        ]
    )
    events, final = await run(openai_model(server))
    assert final["stopReason"] == "length"
    assert events[-1]["type"] == "done" and events[-1]["reason"] == "length"
    assert "toolcall_end" in types_of(events)
    assert final["content"][0]["arguments"] == {"path": "a.py", "content": "print(1"}


async def test_finish_reason_mapping(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {"text": "a", "finish_reason": "function_call"},
            {"text": "b", "finish_reason": "content_filter"},
            {"text": "c", "finish_reason": "weird_reason"},
        ]
    )
    _, first = await run(openai_model(server))
    _, second = await run(openai_model(server))
    _, third = await run(openai_model(server))
    assert first["stopReason"] == "toolUse"
    assert second["stopReason"] == "error" and second["errorMessage"] == "Provider finish_reason: content_filter"
    assert third["stopReason"] == "error" and "weird_reason" in third["errorMessage"]
    assert second["content"][0]["text"] == "b"


async def test_missing_done_after_finish_reason_is_fine(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "complete", "done": False}, {"text": "complete", "drop_after": 3}])
    _, final = await run(openai_model(server))
    assert final["stopReason"] == "stop" and final["content"][0]["text"] == "complete"
    # connection torn down after finish_reason arrived (usage chunk lost): the answer still stands
    _, dropped = await run(openai_model(server))
    assert dropped["stopReason"] == "stop"


async def test_no_finish_reason_and_no_done_is_an_error(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "cut off", "finish_reason": None, "usage": None, "done": False}])
    _, final = await run(openai_model(server))
    assert final["stopReason"] == "error"
    assert "Stream ended without finish_reason" in final["errorMessage"]
    assert final["content"][0]["text"] == "cut off"
    assert is_retryable_error(final)


async def test_no_finish_reason_allowed_by_compat(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "fine", "finish_reason": None}])
    _, final = await run(openai_model(server, compat={"supportsFinishReason": False}))
    assert final["stopReason"] == "stop"


async def test_bytes_after_done_are_ignored(server: FakeLLMServer) -> None:
    server.add_turns([{"raw": [oa({"content": "ok"}), oa(finish="stop"), "data: [DONE]\n\n", "data: {garbage\n\n"]}])
    _, final = await run(openai_model(server))
    assert final["stopReason"] == "stop" and final["content"][0]["text"] == "ok"


async def test_two_identical_reasoning_fields_make_one_block(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {
                "raw": [
                    oa({"reasoning_content": "think ", "reasoning": "think "}),
                    oa({"reasoning_content": "more", "reasoning": "more"}),
                    oa({"content": "answer"}),
                    oa(finish="stop"),
                    "data: [DONE]\n\n",
                ]
            }
        ]
    )
    _, final = await run(openai_model(server))
    thinking = {"type": "thinking", "thinking": "think more", "thinkingSignature": "reasoning_content"}
    assert final["content"][0] == thinking
    assert final["content"][1]["text"] == "answer"


async def test_mid_stream_error_object(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {
                "text": "partial",
                "error_event": {"message": "Upstream error", "code": 502, "metadata": {"raw": "backend exploded"}},
            }
        ]
    )
    _, final = await run(openai_model(server))
    assert final["stopReason"] == "error"
    assert "Upstream error" in final["errorMessage"] and "backend exploded" in final["errorMessage"]
    assert final["content"][0]["text"] == "partial"
    assert is_retryable_error(final)


async def test_null_content_with_tool_calls_in_finish_chunk(server: FakeLLMServer) -> None:
    call = {"index": 0, "id": "call_f", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    server.add_turns(
        [
            {
                "raw": [
                    oa({"role": "assistant", "content": None}),
                    oa({"content": None, "tool_calls": [call]}, finish="tool_calls"),
                    "data: [DONE]\n\n",
                ]
            }
        ]
    )
    _, final = await run(openai_model(server))
    assert final["content"] == [{"type": "toolCall", "id": "call_f", "name": "ls", "arguments": {}}]
    assert final["stopReason"] == "toolUse"


async def test_drop_mid_stream_is_retryable_error(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "abcdefghij", "chunk_size": 2, "drop_after": 3}])
    _, final = await run(openai_model(server))
    assert final["stopReason"] == "error"
    assert final["content"][0]["text"] == "abcd"
    assert is_retryable_error(final)
    assert API_KEY not in json.dumps(final)


async def test_odd_server_shapes_content_parts_and_parsed_arguments(server: FakeLLMServer) -> None:
    parts = {"content": [{"type": "text", "text": "from "}, {"type": "text", "text": "parts"}]}
    call = {"index": 0, "id": "call_o", "type": "function", "function": {"name": "ls", "arguments": {"path": "."}}}
    server.add_turns(
        [
            {
                "raw": [
                    oa(parts),
                    oa({"reasoning": {"unexpected": "object"}}),
                    oa({"tool_calls": [call]}),
                    oa(finish="tool_calls"),
                    "data: [DONE]\n\n",
                ]
            }
        ]
    )
    _, final = await run(openai_model(server))
    assert final["content"][0] == {"type": "text", "text": "from parts"}
    assert final["content"][1]["arguments"] == {"path": "."}
    assert [b["type"] for b in final["content"]] == ["text", "toolCall"]
