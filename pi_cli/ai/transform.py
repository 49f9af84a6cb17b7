"""History transform applied before any provider serialises a context (pi's transformMessages).

* Images sent to a model without image input become one text placeholder per run of images.
* Assistant turns produced by another provider/api/model: thinking becomes plain text (empty
  thinking dropped), redacted thinking is dropped, ``thoughtSignature`` removed, and tool-call ids
  pass through the provider's ``normalize_id`` (matching tool results are rewritten to the same id).
  Same-model turns are kept as they are, signed thinking included.
* Assistant turns that ended in ``error`` or ``aborted`` are dropped, with their tool results.
* A tool call without a result before the next assistant/user message (or at the end) gets a
  synthetic ``No result provided`` error result, so every provider sees paired calls and results.
Input messages are never mutated; changed ones are shallow copies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from pi_cli.ai.types import AssistantMessage, Message, Model, ToolResultMessage, now_ms

IMAGE_PLACEHOLDER = "(image omitted: model does not support images)"
NO_RESULT_TEXT = "No result provided"


def _strip_images(content: list[Any]) -> list[Any]:
    out: list[Any] = []
    for block in content:
        if block.get("type") == "image":
            if not (out and out[-1].get("type") == "text" and out[-1].get("text") == IMAGE_PLACEHOLDER):
                out.append({"type": "text", "text": IMAGE_PLACEHOLDER})
        else:
            out.append(block)
    return out


def _same_model(message: AssistantMessage, model: Model) -> bool:
    return (
        message.get("provider") == model["provider"]
        and message.get("api") == model["api"]
        and message.get("model") == model["id"]
    )


def transform_messages(
    messages: list[Message], model: Model, normalize_id: Callable[[str], str] | None = None
) -> list[Message]:
    """The replayable history for ``model`` (see the module docstring)."""
    vision = "image" in model.get("input", ["text"])
    id_map: dict[str, str] = {}
    dropped_calls: set[str] = set()
    out: list[Message] = []
    pending: dict[str, str] = {}  # tool call id -> tool name, awaiting a result

    def flush_pending() -> None:
        for call_id, name in pending.items():
            synthetic: ToolResultMessage = {
                "role": "toolResult",
                "toolCallId": call_id,
                "toolName": name,
                "content": [{"type": "text", "text": NO_RESULT_TEXT}],
                "isError": True,
                "timestamp": now_ms(),
            }
            out.append(synthetic)
        pending.clear()

    for message in messages:
        role = message["role"]
        if role == "user":
            flush_pending()
            content = message["content"]
            if not vision and isinstance(content, list) and any(b.get("type") == "image" for b in content):
                message = cast(Message, {**message, "content": _strip_images(content)})
            out.append(message)
        elif role == "toolResult":
            result = cast(ToolResultMessage, message)
            if result["toolCallId"] in dropped_calls:
                continue
            new_id = id_map.get(result["toolCallId"], result["toolCallId"])
            pending.pop(new_id, None)
            if new_id != result["toolCallId"] or (
                not vision and any(b.get("type") == "image" for b in result["content"])
            ):
                result = cast(
                    ToolResultMessage,
                    {
                        **result,
                        "toolCallId": new_id,
                        "content": result["content"] if vision else _strip_images(result["content"]),
                    },
                )
            out.append(result)
        else:
            assistant = cast(AssistantMessage, message)
            if assistant.get("stopReason") in ("error", "aborted"):
                for block in assistant["content"]:
                    if block.get("type") == "toolCall":
                        dropped_calls.add(cast(dict[str, Any], block)["id"])
                continue
            flush_pending()
            if not _same_model(assistant, model):
                assistant = _foreign_assistant(assistant, normalize_id, id_map)
            for block in assistant["content"]:
                if block.get("type") == "toolCall":
                    call = cast(dict[str, Any], block)
                    pending[call["id"]] = call["name"]
            out.append(assistant)
    flush_pending()
    return out


def _foreign_assistant(
    message: AssistantMessage, normalize_id: Callable[[str], str] | None, id_map: dict[str, str]
) -> AssistantMessage:
    content: list[Any] = []
    for block in message["content"]:
        kind = block.get("type")
        if kind == "thinking":
            thinking = cast(dict[str, Any], block)
            if thinking.get("redacted") or not thinking.get("thinking", "").strip():
                continue
            content.append({"type": "text", "text": thinking["thinking"]})
        elif kind == "toolCall":
            call = dict(cast(dict[str, Any], block))
            call.pop("thoughtSignature", None)
            if normalize_id is not None:
                new_id = normalize_id(call["id"])
                if new_id != call["id"]:
                    id_map[call["id"]] = new_id
                    call["id"] = new_id
            content.append(call)
        else:
            content.append(block)
    return cast(AssistantMessage, {**message, "content": content})
