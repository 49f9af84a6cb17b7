"""The streamed answers of the fake LLM server: one scripted turn as OpenAI or Anthropic SSE events.

Pure functions of a turn (see the script format in ``fake_llm_server.py``) and the request; the
server in ``fake_llm_server.py`` decides how the events are written (pacing, splits, stalls).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

Turn = dict[str, Any]


def _pieces(text: str, size: int) -> Iterator[str]:
    size = max(1, size)
    for start in range(0, len(text), size):
        yield text[start : start + size]


def dumps(value: Any) -> str:
    """Compact JSON, as the real APIs send it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _args_text(call: dict[str, Any]) -> str:
    args = call.get("arguments", {})
    return args if isinstance(args, str) else dumps(args)


def _usage_numbers(turn: Turn, request_bytes: int, answer_chars: int) -> dict[str, int]:
    given = turn.get("usage") or {}
    return {
        "input": int(given.get("input", request_bytes // 4)),
        "output": int(given.get("output", (answer_chars + 3) // 4)),
        "cache_read": int(given.get("cache_read", 0)),
        "cache_write": int(given.get("cache_write", 0)),
        "reasoning": int(given.get("reasoning", -1)),  # -1: not reported (OpenAI and Anthropic shapes)
    }


def _raw_usage_extras(turn: Turn, u: dict[str, int], details_key: str, tokens_key: str) -> dict[str, Any]:
    """Reasoning tokens (when the turn gives them) and the turn's ``usage_extra`` fields (e.g.
    OpenRouter's ``cost``/``is_byok``), to merge into a raw usage object."""
    extra: dict[str, Any] = {}
    if u["reasoning"] >= 0:
        extra[details_key] = {tokens_key: u["reasoning"]}
    extra.update(turn.get("usage_extra") or {})
    return extra


def _answer_chars(turn: Turn) -> int:
    total = len(turn.get("text", "")) * int(turn.get("text_repeat", 1)) + len(turn.get("thinking", ""))
    return total + sum(len(_args_text(c)) for c in turn.get("tool_calls", []))


# --- OpenAI chat completions -----------------------------------------------------------------


def openai_events(turn: Turn, request: dict[str, Any], number: int, request_bytes: int) -> list[str]:
    """The ``data:`` payloads (without the ``data: `` prefix) of one OpenAI streamed answer."""
    rid = turn.get("id", f"chatcmpl-fake-{number}")
    model = turn.get("model", request.get("model", "fake"))
    size = int(turn.get("chunk_size", 8))
    head = f'{{"id":{dumps(rid)},"object":"chat.completion.chunk","created":0,"model":{dumps(model)},'
    # Template strings keep a 20,000-chunk answer cheap to generate.
    delta_prefix = head + '"choices":[{"index":0,"delta":{'
    delta_suffix = '},"finish_reason":null}],"usage":null}'
    out = [delta_prefix + '"role":"assistant","content":""' + delta_suffix]
    field = dumps(turn.get("reasoning_field", "reasoning_content"))
    for piece in _pieces(turn.get("thinking", ""), size):
        out.append(f"{delta_prefix}{field}:{dumps(piece)}{delta_suffix}")
    text = turn.get("text", "") * int(turn.get("text_repeat", 1))
    for piece in _pieces(text, size):
        out.append(f'{delta_prefix}"content":{dumps(piece)}{delta_suffix}')
    calls = turn.get("tool_calls", [])
    per_call: list[list[str]] = []
    for index, call in enumerate(calls):
        first = {
            "index": index,
            "id": call.get("id", f"call_{number}_{index}"),
            "type": "function",
            "function": {"name": call["name"], "arguments": ""},
        }
        frags = [f'{delta_prefix}"tool_calls":[{dumps(first)}]{delta_suffix}']
        for piece in _pieces(_args_text(call), size):
            frag = {"index": index, "function": {"arguments": piece}}
            frags.append(f'{delta_prefix}"tool_calls":[{dumps(frag)}]{delta_suffix}')
        per_call.append(frags)
    if turn.get("interleave_tools"):
        longest = max((len(f) for f in per_call), default=0)
        for position in range(longest):
            out.extend(frags[position] for frags in per_call if position < len(frags))
    else:
        for frags in per_call:
            out.extend(frags)
    if "error_event" in turn:
        out.append(dumps({"error": turn["error_event"]}))
        return out
    finish = turn.get("finish_reason", "tool_calls" if calls else "stop")
    if finish is not None:
        out.append(head + f'"choices":[{{"index":0,"delta":{{}},"finish_reason":{dumps(finish)}}}],"usage":null}}')
    if turn.get("usage", {}) is not None:
        u = _usage_numbers(turn, request_bytes, _answer_chars(turn))
        prompt = u["input"] + u["cache_read"] + u["cache_write"]
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": u["output"],
            "total_tokens": prompt + u["output"],
            "prompt_tokens_details": {
                "cached_tokens": u["cache_read"] + u["cache_write"],
                "cache_write_tokens": u["cache_write"],
            },
            **_raw_usage_extras(turn, u, "completion_tokens_details", "reasoning_tokens"),
        }
        out.append(head + f'"choices":[],"usage":{dumps(usage)}}}')
    if turn.get("done", True):
        out.append("[DONE]")
    return out


# --- Anthropic messages ----------------------------------------------------------------------


def anthropic_events(turn: Turn, request: dict[str, Any], number: int, request_bytes: int) -> list[tuple[str, str]]:
    """``(event name, data JSON)`` pairs of one Anthropic streamed answer."""
    size = int(turn.get("chunk_size", 8))
    u = _usage_numbers(turn, request_bytes, _answer_chars(turn))
    out: list[tuple[str, str]] = []

    def emit(name: str, payload: dict[str, Any]) -> None:
        out.append((name, dumps({"type": name, **payload})))

    emit(
        "message_start",
        {
            "message": {
                "id": turn.get("id", f"msg_fake_{number}"),
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": turn.get("model", request.get("model", "fake")),
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": u["input"],
                    "output_tokens": 1,
                    "cache_read_input_tokens": u["cache_read"],
                    "cache_creation_input_tokens": u["cache_write"],
                },
            }
        },
    )
    index = 0
    if "redacted_thinking" in turn:
        emit(
            "content_block_start",
            {"index": index, "content_block": {"type": "redacted_thinking", "data": turn["redacted_thinking"]}},
        )
        emit("content_block_stop", {"index": index})
        index += 1
    if turn.get("thinking"):
        emit(
            "content_block_start",
            {"index": index, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        )
        for piece in _pieces(turn["thinking"], size):
            emit("content_block_delta", {"index": index, "delta": {"type": "thinking_delta", "thinking": piece}})
        signature = turn.get("thinking_signature", "sig-1")
        if signature is not None:
            emit("content_block_delta", {"index": index, "delta": {"type": "signature_delta", "signature": signature}})
        emit("content_block_stop", {"index": index})
        index += 1
    text = turn.get("text", "") * int(turn.get("text_repeat", 1))
    if text:
        emit("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}})
        for piece in _pieces(text, size):
            emit("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": piece}})
        emit("content_block_stop", {"index": index})
        index += 1
    calls = turn.get("tool_calls", [])
    for call_number, call in enumerate(calls):
        emit(
            "content_block_start",
            {
                "index": index,
                "content_block": {
                    "type": "tool_use",
                    "id": call.get("id", f"toolu_{number}_{call_number}"),
                    "name": call["name"],
                    "input": {},
                },
            },
        )
        for piece in _pieces(_args_text(call), size):
            emit("content_block_delta", {"index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})
        emit("content_block_stop", {"index": index})
        index += 1
    if "error_event" in turn:
        emit("error", {"error": turn["error_event"]})
        return out
    stop = turn.get("finish_reason", "tool_use" if calls else "end_turn")
    emit(
        "message_delta",
        {
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {
                "output_tokens": u["output"],
                **_raw_usage_extras(turn, u, "output_tokens_details", "thinking_tokens"),
            },
        },
    )
    emit("message_stop", {})
    return out
