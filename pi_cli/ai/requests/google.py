"""Request building for Gemini's native API (``google-generative-ai``), pure for golden tests.

:func:`build_request` returns ``(url, headers, body)`` for
``POST {baseUrl}/models/{id}:streamGenerateContent?alt=sse`` with the key in ``x-goog-api-key``
(never in the URL, so it cannot leak through a logged address). Conversion follows pi:

* user text → ``{"text"}`` parts, images → ``inlineData``; assistant turns → ``role: "model"``;
* thinking from the same provider+model is replayed as ``{"thought": true, "text"}`` with its
  ``thoughtSignature``; a signature on text or on a function call rides along on that part; only
  valid base64 signatures from the same model are sent back (others would be rejected);
* tool results → ``functionResponse`` (``{"output"}`` or ``{"error"}``), consecutive results merged
  into one user turn; images nested in the response for Gemini 3+, else a following user turn;
  Gemini 3+ (and Claude/gpt-oss behind Google) get call ids echoed;
* tools → ``functionDeclarations`` with the JSON schema as ``parametersJsonSchema``, string/number
  ``const`` rewritten to a one-value ``enum`` (Gemini ignores ``const``);
* thinking → ``thinkingConfig``: ``thinkingLevel`` for Gemini 3+/Gemma 4, a token budget for 2.x,
  and the lowest setting (hidden) when thinking is off.
"""

from __future__ import annotations

import re
from typing import Any, cast
from urllib.parse import quote

from pi_cli.ai.models import clamp_thinking_level
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.transform import transform_messages
from pi_cli.ai.types import Context, Model

_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_GEMINI_MAJOR = re.compile(r"^gemini(?:-live)?-(\d+)")
_LEVEL_MODELS = re.compile(r"gemini-3(?:\.\d+)?-(?:pro|flash)|gemini-(?:[4-9]|[1-9]\d)|gemma-?4")
_NAME_MAPS = frozenset(("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"))
_SUBSCHEMAS = frozenset(
    (
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "items",
        "prefixItems",
        "additionalItems",
        "unevaluatedItems",
        "contains",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "contentSchema",
    )
)
# Thinking budgets (tokens) of Gemini 2.5 models, by pi level; other models let Google decide (-1).
_BUDGETS = {
    "2.5-pro": {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768},
    "2.5-flash-lite": {"minimal": 512, "low": 2048, "medium": 8192, "high": 24576},
    "2.5-flash": {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576},
}


def gemini_major(model_id: str) -> int | None:
    match = _GEMINI_MAJOR.match(model_id.lower())
    return int(match.group(1)) if match else None


def requires_call_ids(model_id: str) -> bool:
    """Models that want ``id`` on function calls and responses (Gemini 3+, Claude, gpt-oss)."""
    major = gemini_major(model_id)
    return model_id.startswith(("claude-", "gpt-oss-")) or (major is not None and major >= 3)


def uses_thinking_level(model: Model) -> bool:
    """Gemini 3+/Gemma 4 take a discrete ``thinkingLevel``; 2.x takes ``thinkingBudget``."""
    model_id = model["id"].lower()
    return bool(_LEVEL_MODELS.search(model_id)) or model_id in ("gemini-flash-latest", "gemini-flash-lite-latest")


def _signature(same_model: bool, signature: Any) -> str | None:
    if not same_model or not isinstance(signature, str) or not signature or len(signature) % 4:
        return None
    return signature if _BASE64.match(signature) else None


def const_as_enum(schema: Any, name_map: bool = False) -> Any:
    """The schema with string/number ``const`` values turned into one-value ``enum`` lists."""
    if isinstance(schema, list):
        return [const_as_enum(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if name_map or key in _SUBSCHEMAS:
            out[key] = const_as_enum(value)
        elif key in _NAME_MAPS:
            out[key] = const_as_enum(value, True)
        else:
            out[key] = value
    if not name_map and "const" in out and "enum" not in out:
        value = out["const"]
        if isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
            del out["const"]
            out["enum"] = [value]
    return out


def _inline(block: dict[str, Any]) -> dict[str, Any]:
    return {"inlineData": {"mimeType": block["mimeType"], "data": block["data"]}}


def convert_contents(model: Model, context: Context) -> list[dict[str, Any]]:
    """The ``contents`` array of the request body."""
    with_ids = requires_call_ids(model["id"])

    def normalize(tool_id: str) -> str:
        return _ID_UNSAFE.sub("_", tool_id)[:64] if with_ids else tool_id

    vision = "image" in model.get("input", ["text"])
    major = gemini_major(model["id"])
    nested_images = major is None or major >= 3
    contents: list[dict[str, Any]] = []
    for message in transform_messages(context["messages"], model, normalize):
        role = message["role"]
        if role == "user":
            content = message["content"]
            if isinstance(content, str):
                contents.append({"role": "user", "parts": [{"text": content}]})
            elif content:
                parts = [
                    {"text": cast(Any, b)["text"]} if b.get("type") == "text" else _inline(cast(Any, b))
                    for b in content
                ]
                contents.append({"role": "user", "parts": parts})
        elif role == "assistant":
            parts = _model_parts(model, cast(dict[str, Any], message), with_ids)
            if parts:
                contents.append({"role": "model", "parts": parts})
        else:
            result = cast(dict[str, Any], message)
            text = "\n".join(b["text"] for b in result["content"] if b.get("type") == "text")
            images = [b for b in result["content"] if b.get("type") == "image"] if vision else []
            value = text if text.strip() else ("(see attached image)" if images else "")
            response: dict[str, Any] = {
                "name": result["toolName"],
                "response": {"error": value} if result.get("isError") else {"output": value},
            }
            if images and nested_images:
                response["parts"] = [_inline(b) for b in images]
            if with_ids:
                response["id"] = result["toolCallId"]
            last = contents[-1] if contents else None
            if last and last["role"] == "user" and any("functionResponse" in p for p in last["parts"]):
                last["parts"].append({"functionResponse": response})
            else:
                contents.append({"role": "user", "parts": [{"functionResponse": response}]})
            if images and not nested_images:
                contents.append({"role": "user", "parts": [{"text": "Tool result image:"}, *map(_inline, images)]})
    return contents


def _model_parts(model: Model, message: dict[str, Any], with_ids: bool) -> list[dict[str, Any]]:
    same = message.get("provider") == model["provider"] and message.get("model") == model["id"]
    parts: list[dict[str, Any]] = []
    for block in message["content"]:
        kind = block.get("type")
        if kind == "text":
            signature = _signature(same, block.get("textSignature"))
            if not block.get("text", "").strip() and not signature:
                continue  # an empty part matters only when it carries a signature
            part: dict[str, Any] = {"text": block.get("text", "")}
            if signature:
                part["thoughtSignature"] = signature
            parts.append(part)
        elif kind == "thinking":
            signature = _signature(same, block.get("thinkingSignature"))
            empty = not block.get("thinking", "").strip()
            if same and not (empty and not signature):
                part = {"thought": True, "text": block.get("thinking", "")}
                if signature:
                    part["thoughtSignature"] = signature
                parts.append(part)
            elif not same and not empty:
                parts.append({"text": block["thinking"]})
        elif kind == "toolCall":
            call: dict[str, Any] = {"name": block["name"], "args": block.get("arguments") or {}}
            if with_ids:
                call["id"] = block["id"]
            part = {"functionCall": call}
            signature = _signature(same, block.get("thoughtSignature"))
            if signature:
                part["thoughtSignature"] = signature
            parts.append(part)
    return parts


def _level(model: Model, level: str) -> str:
    """A pi level through the model's ``thinkingLevelMap`` to Google's upper-case name."""
    mapped = (model.get("thinkingLevelMap") or {}).get(level)
    resolved = mapped.lower() if isinstance(mapped, str) else level
    return resolved.upper() if resolved in ("minimal", "low", "medium", "high") else "HIGH"


def thinking_config(model: Model, level: str | None) -> dict[str, Any] | None:
    """``generationConfig.thinkingConfig`` for a pi level (``None``/``off``: thinking hidden)."""
    if not model.get("reasoning"):
        return None
    chosen = clamp_thinking_level(model, level) if level and level != "off" else "off"
    if chosen == "off":
        if not uses_thinking_level(model):
            return {"thinkingBudget": 0}
        lowest = clamp_thinking_level(model, "off")
        return {"thinkingBudget": 0} if lowest == "off" else {"thinkingLevel": _level(model, lowest)}
    if chosen in ("xhigh", "max"):
        chosen = "high"
    if uses_thinking_level(model):
        return {"includeThoughts": True, "thinkingLevel": _level(model, chosen)}
    for marker, budgets in _BUDGETS.items():
        if marker in model["id"]:
            return {"includeThoughts": True, "thinkingBudget": budgets[chosen]}
    return {"includeThoughts": True, "thinkingBudget": -1}


def build_request(model: Model, context: Context, options: StreamOptions) -> tuple[str, dict[str, str], dict[str, Any]]:
    """``(url, headers, body)`` for one ``streamGenerateContent`` request."""
    body: dict[str, Any] = {"contents": convert_contents(model, context)}
    system = context.get("systemPrompt")
    if system:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    tools = context.get("tools")
    if tools:
        declarations = [
            {
                "name": tool["name"],
                "description": tool["description"],
                "parametersJsonSchema": const_as_enum(tool["parameters"]),
            }
            for tool in tools
        ]
        body["tools"] = [{"functionDeclarations": declarations}]
    generation: dict[str, Any] = {}
    if options.temperature is not None:
        generation["temperature"] = options.temperature
    if options.max_tokens:
        generation["maxOutputTokens"] = options.max_tokens
    thinking = thinking_config(model, options.reasoning)
    if thinking is not None:
        generation["thinkingConfig"] = thinking
    if generation:
        body["generationConfig"] = generation
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if options.api_key:
        headers["x-goog-api-key"] = options.api_key
    headers.update(model.get("headers") or {})
    headers.update(options.headers)
    base = model["baseUrl"].rstrip("/")
    return f"{base}/models/{quote(model['id'], safe='.-_')}:streamGenerateContent?alt=sse", headers, body
