"""The fake LLM server's Gemini answers: one scripted turn as ``streamGenerateContent`` SSE chunks.

Served for any path containing ``:streamGenerateContent`` (use ``server.google_base_url``,
``http://127.0.0.1:PORT/v1beta``, as the model's ``baseUrl``). Each ``data:`` line is a whole
GenerateContentResponse, as Google sends with ``alt=sse``. The common turn keys (``text``,
``thinking``, ``tool_calls``, ``usage``, ``chunk_size``, ``id``, ``model``, ``text_repeat``) mean
what they mean for the other formats; ``thinking`` streams as ``thought: true`` parts, and every
function call arrives whole in one chunk. Keys of this format:

======================= ======================================================================
``thought_signature``   signature on the last thinking part (default ``"c2lnLTE="``); each
                        tool call may carry its own ``thought_signature``
``text_signature``      signature on the last text part (none by default)
``finish_reason``       ``finishReason`` of the last chunk (default ``STOP``); ``null`` = none
``error_event``         after the content, a ``{"error": value}`` chunk
======================= ======================================================================
"""

from __future__ import annotations

from typing import Any

from fake_llm_events import Turn, _answer_chars, _pieces, _usage_numbers, dumps


def google_events(turn: Turn, request: dict[str, Any], number: int, request_bytes: int) -> list[str]:
    """The ``data:`` payloads of one streamed Gemini answer."""
    size = int(turn.get("chunk_size", 8))
    rid = turn.get("id", f"fake-response-{number}")
    model = turn.get("model", request.get("model", "gemini-fake"))
    out: list[str] = []

    def chunk(parts: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> None:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        body: dict[str, Any] = {"candidates": [candidate], "modelVersion": model, "responseId": rid}
        if extra:
            candidate.update(extra.get("candidate", {}))
            body.update(extra.get("top", {}))
        out.append(dumps(body))

    thinking_pieces = list(_pieces(turn.get("thinking", ""), size))
    for position, piece in enumerate(thinking_pieces):
        part: dict[str, Any] = {"text": piece, "thought": True}
        signature = turn.get("thought_signature", "c2lnLTE=")
        if position == len(thinking_pieces) - 1 and signature:
            part["thoughtSignature"] = signature
        chunk([part])
    text_pieces = list(_pieces(turn.get("text", "") * int(turn.get("text_repeat", 1)), size))
    for position, piece in enumerate(text_pieces):
        part = {"text": piece}
        if position == len(text_pieces) - 1 and turn.get("text_signature"):
            part["thoughtSignature"] = turn["text_signature"]
        chunk([part])
    for call in turn.get("tool_calls", []):
        args = call.get("arguments", {})
        function: dict[str, Any] = {"name": call["name"], "args": args}
        if call.get("id"):
            function["id"] = call["id"]
        part = {"functionCall": function}
        if call.get("thought_signature"):
            part["thoughtSignature"] = call["thought_signature"]
        chunk([part])
    if "error_event" in turn:
        out.append(dumps({"error": turn["error_event"]}))
        return out
    reason = turn.get("finish_reason", "STOP")
    u = _usage_numbers(turn, request_bytes, _answer_chars(turn))
    thoughts = (len(turn.get("thinking", "")) + 3) // 4
    usage = {
        "promptTokenCount": u["input"] + u["cache_read"],
        "cachedContentTokenCount": u["cache_read"],
        "candidatesTokenCount": max(0, u["output"] - thoughts),
        "thoughtsTokenCount": thoughts,
        "totalTokenCount": u["input"] + u["cache_read"] + u["output"],
    }
    extra: dict[str, Any] = {"top": {"usageMetadata": usage}}
    if reason is not None:
        extra["candidate"] = {"finishReason": reason}
    chunk([], extra)
    return out
