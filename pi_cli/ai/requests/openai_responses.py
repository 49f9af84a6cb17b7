"""Request building for the OpenAI Responses API (``openai-responses``), pure for golden tests.

:func:`build_request` returns ``(url, headers, body)``. The conversion follows pi:

* the system prompt is the first ``input`` item, role ``developer`` for reasoning models;
* user text/images become ``input_text`` / ``input_image`` parts;
* an assistant turn becomes its items again: a thinking block's signature *is* the reasoning item
  (JSON, encrypted content included) and is replayed verbatim; text becomes a completed
  ``message`` item whose id comes from the text signature (``{"v":1,"id","phase"}``); a tool call
  becomes a ``function_call`` (our id is ``"<call_id>|<item_id>"``);
* tool results become ``function_call_output`` (text, or text + images for vision models);
* ``store: false`` always (the conversation is replayed, never kept server-side), the session id
  as ``prompt_cache_key``; reasoning models get ``reasoning.effort`` + ``summary: auto`` and ask
  for ``reasoning.encrypted_content`` when thinking is on, else the model's "off" effort.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, cast

from pi_cli.ai.options import StreamOptions
from pi_cli.ai.requests.copilot import openai_endpoint
from pi_cli.ai.transform import transform_messages
from pi_cli.ai.types import Context, Model

# Providers whose tool-call ids carry a Responses item id after "|" (pi's allow-list).
ITEM_ID_PROVIDERS = frozenset(("openai", "openai-codex", "opencode"))
MIN_OUTPUT_TOKENS = 16  # the API rejects smaller max_output_tokens
PROMPT_CACHE_KEY_MAX = 64
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def short_hash(text: str) -> str:
    """pi's ``shortHash``: a deterministic base-36 digest over UTF-16 code units."""

    def imul(a: int, b: int) -> int:
        return (a * b) & 0xFFFFFFFF

    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        unit = data[i] | (data[i + 1] << 8)
        h1 = imul(h1 ^ unit, 2654435761)
        h2 = imul(h2 ^ unit, 1597334677)
    h1 = imul(h1 ^ (h1 >> 16), 2246822507) ^ imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = imul(h2 ^ (h2 >> 16), 2246822507) ^ imul(h1 ^ (h1 >> 13), 3266489909)
    return _base36(h2 & 0xFFFFFFFF) + _base36(h1 & 0xFFFFFFFF)


def _base36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if not value:
            return out


def _id_part(part: str) -> str:
    return _ID_UNSAFE.sub("_", part)[:64].rstrip("_")


def normalizer(model: Model) -> Any:
    """The tool-call id rewrite for turns from another model (pi's ``normalizeToolCallId``).

    Only calls from elsewhere are rewritten; their item ids become ``fc_<hash>`` (the API wants
    ``fc_`` item ids, and one minted by another model must not pair with our reasoning items).
    """

    def normalize(tool_id: str) -> str:
        if model["provider"] not in ITEM_ID_PROVIDERS or "|" not in tool_id:
            return _id_part(tool_id)
        call_id, item_id = tool_id.split("|", 1)
        return f"{_id_part(call_id)}|{('fc_' + short_hash(item_id))[:64]}"

    return normalize


def _text_signature(signature: str | None) -> tuple[str | None, str | None]:
    """``(message id, phase)`` from a text block's signature (JSON v1, or a bare legacy id)."""
    if not signature:
        return None, None
    if signature.startswith("{"):
        try:
            parsed = json.loads(signature)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("v") == 1 and isinstance(parsed.get("id"), str):
            phase = parsed.get("phase")
            return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


def _image(block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "input_image", "detail": "auto", "image_url": f"data:{block['mimeType']};base64,{block['data']}"}


def _tool_output(model: Model, content: list[Any]) -> str | list[dict[str, Any]]:
    text = "\n".join(b["text"] for b in content if b.get("type") == "text")
    images = [b for b in content if b.get("type") == "image"]
    if not images or "image" not in model.get("input", ["text"]):
        return text if text.strip() else ("(see attached image)" if images else "(no tool output)")
    parts: list[dict[str, Any]] = [{"type": "input_text", "text": text}] if text.strip() else []
    return parts + [_image(b) for b in images]


def convert_input(model: Model, context: Context, include_system: bool = True) -> list[dict[str, Any]]:
    """The ``input`` array of the request body (Codex sends the system prompt as ``instructions``)."""
    items: list[dict[str, Any]] = []
    system = context.get("systemPrompt")
    if system and include_system:
        compat = model.get("compat") or {}
        developer = model.get("reasoning") and compat.get("supportsDeveloperRole") is not False
        items.append({"role": "developer" if developer else "system", "content": system})
    for index, message in enumerate(transform_messages(context["messages"], model, normalizer(model))):
        role = message["role"]
        if role == "user":
            content = message["content"]
            if isinstance(content, str):
                items.append({"role": "user", "content": [{"type": "input_text", "text": content}]})
            elif content:
                parts = [
                    {"type": "input_text", "text": cast(Any, b)["text"]}
                    if b.get("type") == "text"
                    else _image(cast(Any, b))
                    for b in content
                ]
                items.append({"role": "user", "content": parts})
        elif role == "assistant":
            items.extend(_assistant_items(model, cast(dict[str, Any], message), index))
        else:
            result = cast(dict[str, Any], message)
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": result["toolCallId"].split("|", 1)[0],
                    "output": _tool_output(model, result["content"]),
                }
            )
    return items


def _assistant_items(model: Model, message: dict[str, Any], index: int) -> list[dict[str, Any]]:
    same_route = message.get("provider") == model["provider"] and message.get("api") == model["api"]
    other_model = same_route and message.get("model") != model["id"]
    items: list[dict[str, Any]] = []
    text_count = 0
    for block in message["content"]:
        kind = block.get("type")
        if kind == "thinking":
            signature = block.get("thinkingSignature")
            if signature:
                try:
                    items.append(json.loads(signature))
                except ValueError:
                    pass  # not a reasoning item (a signature from another format): nothing to replay
        elif kind == "text":
            msg_id, phase = _text_signature(block.get("textSignature"))
            if not msg_id:
                msg_id = f"msg_pi_{index}" if text_count == 0 else f"msg_pi_{index}_{text_count}"
            elif len(msg_id) > 64:
                msg_id = "msg_" + short_hash(msg_id)
            text_count += 1
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": block["text"], "annotations": []}],
                "status": "completed",
                "id": msg_id,
            }
            if phase:
                item["phase"] = phase
            items.append(item)
        elif kind == "toolCall":
            call_id, _, item_id = block["id"].partition("|")
            call: dict[str, Any] = {"type": "function_call"}
            # An item id minted for another model's reasoning would fail OpenAI's pairing check.
            if item_id.startswith("fc_") and not other_model:
                call["id"] = item_id
            call.update(
                {
                    "call_id": call_id,
                    "name": block["name"],
                    "arguments": json.dumps(block.get("arguments") or {}, ensure_ascii=False, separators=(",", ":")),
                }
            )
            items.append(call)
    return items


def _reasoning(body: dict[str, Any], model: Model, options: StreamOptions) -> None:
    if not model.get("reasoning"):
        return
    level_map = model.get("thinkingLevelMap") or {}
    level = options.reasoning if options.reasoning not in (None, "off") else None
    if level:
        effort = level_map.get(level) or level
        body["reasoning"] = {"effort": effort, "summary": "auto"}
        body["include"] = ["reasoning.encrypted_content"]
    elif model["provider"] != "github-copilot" and not ("off" in level_map and level_map["off"] is None):
        body["reasoning"] = {"effort": level_map.get("off") or "none"}


def build_request(model: Model, context: Context, options: StreamOptions) -> tuple[str, dict[str, str], dict[str, Any]]:
    """``(url, headers, body)`` for one streamed Responses request."""
    long_cache = os.environ.get("PI_CACHE_RETENTION") == "long"
    compat = model.get("compat") or {}
    body: dict[str, Any] = {"model": model["id"], "input": convert_input(model, context), "stream": True}
    if options.session_id:
        body["prompt_cache_key"] = options.session_id[:PROMPT_CACHE_KEY_MAX]
    if long_cache and compat.get("supportsLongCacheRetention") is not False:
        body["prompt_cache_retention"] = "24h"
    body["store"] = False
    if options.max_tokens:
        body["max_output_tokens"] = max(options.max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    tools = context.get("tools")
    if tools:
        strict = {"strict": False} if (model.get("compat") or {}).get("supportsStrictMode") is True else {}
        body["tools"] = [
            {
                "type": "function",
                "name": tool["name"],
                "description": tool["description"],
                "parameters": tool["parameters"],
                **strict,  # pi 1.6 sends it only when the model's compat says the server supports it
            }
            for tool in tools
        ]
    _reasoning(body, model, options)
    base_url, headers = openai_endpoint(model, options, context["messages"])
    if options.session_id:
        if compat.get("sendSessionIdHeader") is not False:
            headers["session_id"] = options.session_id
        headers["x-client-request-id"] = options.session_id
    headers.update(options.headers)
    return f"{base_url}/responses", headers, body
