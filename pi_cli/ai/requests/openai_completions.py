"""Request building for OpenAI chat completions (``openai-completions``), kept pure for golden tests.

:func:`build_request` returns ``(url, headers, body)``; nothing here touches the network. The
message conversion follows pi: system prompt as ``developer`` (reasoning model + supported) or
``system``; assistant text joined into one string; thinking replayed under the delta field it came
in (its signature) or as text; tool results as ``tool`` messages, with their images in a following
user message; an assistant bridge turn when the server needs one between a tool result and a user.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, cast

from pi_cli.ai.options import StreamOptions
from pi_cli.ai.requests.copilot import openai_endpoint
from pi_cli.ai.requests.openai_compat import resolve_compat
from pi_cli.ai.transform import transform_messages
from pi_cli.ai.transport.provider_common import safe_tool_id
from pi_cli.ai.types import Context, Model

BRIDGE_TEXT = "I have processed the tool results."
TOOL_IMAGES_TEXT = "Attached image(s) from tool result:"


def _compact_json(value: Any) -> str:
    """``JSON.stringify`` form (no spaces, non-ASCII kept): replayed tool-call arguments match pi's bytes."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _tool_id(tool_id: str, compat: dict[str, Any]) -> str:
    """``[A-Za-z0-9_-]``, at most 40 characters; Mistral wants exactly 9 alphanumerics."""
    if compat.get("requiresMistralToolIds"):
        return mistral_tool_id(tool_id)
    return safe_tool_id(tool_id, 40)


def mistral_tool_id(tool_id: str) -> str:
    """A deterministic 9-character alphanumeric id (calls and their results map alike)."""
    plain = "".join(ch for ch in tool_id if ch.isascii() and ch.isalnum())
    if len(plain) == 9:
        return plain
    digest = hashlib.sha1(tool_id.encode()).hexdigest()
    return (plain[:5] + digest)[:9] if len(plain) > 9 else (plain + digest)[:9]


def _user_parts(content: list[Any], vision: bool) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in content:
        if block.get("type") == "text":
            parts.append({"type": "text", "text": block["text"]})
        elif block.get("type") == "image" and vision:
            url = f"data:{block['mimeType']};base64,{block['data']}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def convert_messages(model: Model, context: Context, compat: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``messages`` array of the request body."""
    vision = "image" in model.get("input", ["text"])
    out: list[dict[str, Any]] = []
    system = context.get("systemPrompt")
    if system:
        role = "developer" if model.get("reasoning") and compat["supportsDeveloperRole"] else "system"
        out.append({"role": role, "content": system})
    last_role = ""
    for message in transform_messages(context["messages"], model):
        role = message["role"]
        if compat["requiresAssistantAfterToolResult"] and last_role == "toolResult" and role == "user":
            out.append({"role": "assistant", "content": BRIDGE_TEXT})
        if role == "user":
            content = message["content"]
            if isinstance(content, str):
                if not content.strip():
                    continue
                out.append({"role": "user", "content": content})
            else:
                parts = _user_parts(cast(list[Any], content), vision)
                if not parts:
                    continue
                out.append({"role": "user", "content": parts})
        elif role == "assistant":
            entry = _assistant(cast(dict[str, Any], message), compat)
            if entry is None:
                continue
            out.append(entry)
        else:
            result = cast(dict[str, Any], message)
            texts = [b["text"] for b in result["content"] if b.get("type") == "text"]
            images = [b for b in result["content"] if b.get("type") == "image"]
            text = "\n".join(texts) if texts else ("(see attached image)" if images else "")
            entry = {"role": "tool", "tool_call_id": _tool_id(result["toolCallId"], compat), "content": text}
            if compat["requiresToolResultName"] and result.get("toolName"):
                entry["name"] = result["toolName"]
            out.append(entry)
            if images and vision:
                out.append(
                    {
                        "role": "user",
                        "content": [{"type": "text", "text": TOOL_IMAGES_TEXT}, *_user_parts(images, True)],
                    }
                )
        last_role = role
    return out


def _assistant(message: dict[str, Any], compat: dict[str, Any]) -> dict[str, Any] | None:
    texts = [b["text"] for b in message["content"] if b.get("type") == "text" and b.get("text", "").strip()]
    thinking = [b for b in message["content"] if b.get("type") == "thinking" and b.get("thinking", "").strip()]
    calls = [b for b in message["content"] if b.get("type") == "toolCall"]
    entry: dict[str, Any] = {"role": "assistant", "content": None}
    if thinking and compat["requiresThinkingAsText"]:
        texts.insert(0, "\n".join(b["thinking"] for b in thinking))
    elif thinking:
        field = thinking[0].get("thinkingSignature")
        if field and field.isidentifier():
            entry[field] = "\n".join(b["thinking"] for b in thinking)
    if texts:
        entry["content"] = "".join(texts)
    if calls:
        entry["tool_calls"] = [
            {
                "id": _tool_id(c["id"], compat),
                "type": "function",
                "function": {"name": c["name"], "arguments": _compact_json(c.get("arguments") or {})},
            }
            for c in calls
        ]
    if compat["requiresReasoningContentOnAssistantMessages"] and "reasoning_content" not in entry:
        entry["reasoning_content"] = ""
    if entry["content"] is None and not calls:
        return None
    if entry["content"] is None and compat["requiresAssistantAfterToolResult"]:
        entry["content"] = ""
    return entry


def _has_tool_history(context: Context) -> bool:
    for message in context["messages"]:
        if message["role"] == "toolResult":
            return True
        if message["role"] == "assistant" and any(b.get("type") == "toolCall" for b in message["content"]):
            return True
    return False


def _reasoning_value(model: Model, level: str) -> str | None:
    mapping = model.get("thinkingLevelMap") or {}
    if level in mapping:
        return mapping[level]
    return "high" if level in ("xhigh", "max") else level


def _apply_thinking(body: dict[str, Any], model: Model, options: StreamOptions, compat: dict[str, Any]) -> None:
    if not model.get("reasoning"):
        return
    level = options.reasoning if options.reasoning not in (None, "off") else None
    value = _reasoning_value(model, level) if level else None
    fmt = compat["thinkingFormat"]
    if fmt == "openrouter":
        body["reasoning"] = {"effort": value or "none"}
    elif fmt == "deepseek":
        body["thinking"] = {"type": "enabled" if value else "disabled"}
        if value and compat["supportsReasoningEffort"]:
            body["reasoning_effort"] = value
    elif fmt in ("zai", "qwen"):
        body["enable_thinking"] = bool(value)
    elif fmt == "qwen-chat-template":
        body["chat_template_kwargs"] = {"enable_thinking": bool(value), "preserve_thinking": True}
    elif value and compat["supportsReasoningEffort"]:
        body["reasoning_effort"] = value


def _mark_cache(body: dict[str, Any]) -> None:
    """Anthropic-style ``cache_control`` on the system text, last tool and last text part."""
    mark = {"type": "ephemeral"}
    messages = body["messages"]
    if messages and messages[0]["role"] in ("system", "developer") and isinstance(messages[0]["content"], str):
        messages[0]["content"] = [{"type": "text", "text": messages[0]["content"], "cache_control": mark}]
    if body.get("tools"):
        body["tools"][-1]["cache_control"] = mark
    for message in reversed(messages):
        if message["role"] in ("user", "assistant"):
            content = message.get("content")
            if isinstance(content, str) and content:
                message["content"] = [{"type": "text", "text": content, "cache_control": mark}]
            elif isinstance(content, list):
                for part in reversed(content):
                    if part.get("type") == "text":
                        part["cache_control"] = mark
                        break
            break


def build_request(model: Model, context: Context, options: StreamOptions) -> tuple[str, dict[str, str], dict[str, Any]]:
    """``(url, headers, body)`` for one streamed chat-completions request."""
    compat = resolve_compat(model)
    body: dict[str, Any] = {"model": model["id"], "messages": convert_messages(model, context, compat), "stream": True}
    if compat["supportsUsageInStreaming"]:
        body["stream_options"] = {"include_usage": True}
    if compat["supportsStore"]:
        body["store"] = False
    if options.max_tokens:
        body[compat["maxTokensField"]] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    tools = context.get("tools")
    if tools:
        body["tools"] = []
        for tool in tools:
            function: dict[str, Any] = {
                "name": tool["name"],
                "description": tool["description"],
                "parameters": tool["parameters"],
            }
            if compat["supportsStrictMode"]:
                function["strict"] = False
            body["tools"].append({"type": "function", "function": function})
    elif _has_tool_history(context):
        body["tools"] = []
    base_url, headers = openai_endpoint(model, options, context["messages"])
    if options.session_id and "api.openai.com" in base_url:
        body["prompt_cache_key"] = options.session_id
    _apply_thinking(body, model, options, compat)
    if compat["cacheControlFormat"] == "anthropic":
        _mark_cache(body)
    if compat["sendSessionAffinityHeaders"] and options.session_id:
        for name in ("session_id", "x-client-request-id", "x-session-affinity"):
            headers[name] = options.session_id
    headers.update(options.headers)
    return f"{base_url}/chat/completions", headers, body
