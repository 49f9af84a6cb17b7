"""The fake LLM server's OpenAI Responses answers: one scripted turn as ``response.*`` SSE events.

Served for any path ending in ``/responses`` (use ``server.openai_base_url`` as the model's
``baseUrl``). The common turn keys (``text``, ``thinking``, ``tool_calls``, ``usage``,
``chunk_size``, ``id``, ``model``, ``text_repeat``) mean what they mean for the other formats;
``thinking`` arrives as a reasoning item's summary. Keys of this format:

======================= ======================================================================
``encrypted_content``   the reasoning item's ``encrypted_content`` (default ``"enc-<N>"``;
                        ``null`` = none)
``phase``               the message item's ``phase`` (e.g. ``"final_answer"``)
``finish_reason``       the final ``status`` (default ``completed``); ``null`` = no terminal
                        event at all (the body just ends)
``incomplete_reason``   with ``finish_reason: "incomplete"``: ``incomplete_details.reason``
``error_event``         after the content, an ``error`` event ``{"type":"error", **value}``
``failed``              after the content, ``response.failed`` whose ``response.error`` is this
======================= ======================================================================

Every event is ``event: <type>`` + ``data: <json with "type" and "sequence_number">``.
"""

from __future__ import annotations

from typing import Any

from fake_llm_events import Turn, _answer_chars, _args_text, _pieces, _usage_numbers, dumps


def responses_events(turn: Turn, request: dict[str, Any], number: int, request_bytes: int) -> list[tuple[str, str]]:
    """``(event name, data JSON)`` pairs of one streamed Responses answer."""
    size = int(turn.get("chunk_size", 8))
    out: list[tuple[str, str]] = []
    rid = turn.get("id", f"resp_fake_{number}")
    model = turn.get("model", request.get("model", "fake"))

    def emit(name: str, payload: dict[str, Any]) -> None:
        out.append((name, dumps({"type": name, "sequence_number": len(out), **payload})))

    def response(status: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"id": rid, "object": "response", "model": model, "status": status, "output": [], **(extra or {})}

    emit("response.created", {"response": response("in_progress")})
    emit("response.in_progress", {"response": response("in_progress")})
    position = 0
    final_items: list[dict[str, Any]] = []
    if turn.get("thinking"):
        item_id = f"rs_fake_{number}"
        emit(
            "response.output_item.added",
            {"output_index": position, "item": {"id": item_id, "type": "reasoning", "summary": []}},
        )
        emit(
            "response.reasoning_summary_part.added",
            {
                "item_id": item_id,
                "output_index": position,
                "summary_index": 0,
                "part": {"type": "summary_text", "text": ""},
            },
        )
        for piece in _pieces(turn["thinking"], size):
            emit(
                "response.reasoning_summary_text.delta",
                {"item_id": item_id, "output_index": position, "summary_index": 0, "delta": piece},
            )
        emit(
            "response.reasoning_summary_text.done",
            {"item_id": item_id, "output_index": position, "summary_index": 0, "text": turn["thinking"]},
        )
        emit(
            "response.reasoning_summary_part.done",
            {
                "item_id": item_id,
                "output_index": position,
                "summary_index": 0,
                "part": {"type": "summary_text", "text": turn["thinking"]},
            },
        )
        item: dict[str, Any] = {
            "id": item_id,
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": turn["thinking"]}],
        }
        encrypted = turn.get("encrypted_content", f"enc-{number}")
        if encrypted is not None:
            item["encrypted_content"] = encrypted
        emit("response.output_item.done", {"output_index": position, "item": item})
        final_items.append(item)
        position += 1
    text = turn.get("text", "") * int(turn.get("text_repeat", 1))
    if text:
        item_id = f"msg_fake_{number}"
        head: dict[str, Any] = {
            "id": item_id,
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        if turn.get("phase"):
            head["phase"] = turn["phase"]
        emit("response.output_item.added", {"output_index": position, "item": head})
        emit(
            "response.content_part.added",
            {
                "item_id": item_id,
                "output_index": position,
                "content_index": 0,
                "part": {"type": "output_text", "text": "", "annotations": []},
            },
        )
        for piece in _pieces(text, size):
            emit(
                "response.output_text.delta",
                {"item_id": item_id, "output_index": position, "content_index": 0, "delta": piece},
            )
        emit(
            "response.output_text.done",
            {"item_id": item_id, "output_index": position, "content_index": 0, "text": text},
        )
        part = {"type": "output_text", "text": text, "annotations": []}
        emit(
            "response.content_part.done",
            {"item_id": item_id, "output_index": position, "content_index": 0, "part": part},
        )
        item = {**head, "status": "completed", "content": [part]}
        emit("response.output_item.done", {"output_index": position, "item": item})
        final_items.append(item)
        position += 1
    for call_number, call in enumerate(turn.get("tool_calls", [])):
        item_id = f"fc_fake_{number}_{call_number}"
        call_id = call.get("id", f"call_{number}_{call_number}")
        args = _args_text(call)
        head = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "call_id": call_id,
            "name": call["name"],
            "arguments": "",
        }
        emit("response.output_item.added", {"output_index": position, "item": head})
        for piece in _pieces(args, size):
            emit(
                "response.function_call_arguments.delta", {"item_id": item_id, "output_index": position, "delta": piece}
            )
        emit("response.function_call_arguments.done", {"item_id": item_id, "output_index": position, "arguments": args})
        item = {**head, "status": "completed", "arguments": args}
        emit("response.output_item.done", {"output_index": position, "item": item})
        final_items.append(item)
        position += 1
    if "error_event" in turn:
        emit("error", dict(turn["error_event"]))
        return out
    if "failed" in turn:
        emit("response.failed", {"response": response("failed", {"error": turn["failed"]})})
        return out
    status = turn.get("finish_reason", "completed")
    if status is None:
        return out
    u = _usage_numbers(turn, request_bytes, _answer_chars(turn))
    prompt = u["input"] + u["cache_read"] + u["cache_write"]
    usage = {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": u["cache_read"]},
        "output_tokens": u["output"],
        "output_tokens_details": {"reasoning_tokens": len(turn.get("thinking", "")) // 4},
        "total_tokens": prompt + u["output"],
    }
    extra: dict[str, Any] = {"output": final_items, "usage": usage}
    if turn.get("incomplete_reason"):
        extra["incomplete_details"] = {"reason": turn["incomplete_reason"]}
    name = "response.incomplete" if status == "incomplete" else "response.completed"
    emit(name, {"response": response(status, extra)})
    return out
