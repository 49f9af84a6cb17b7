"""Request building for Anthropic messages (``anthropic-messages``), pure for golden tests.

Follows pi: system prompt as text blocks; user text/images; assistant text, signed thinking
(``thinking`` + ``signature``), redacted thinking (``redacted_thinking`` with the stored data),
unsigned thinking as plain text (e.g. cut off by an abort), tool calls as ``tool_use``; consecutive
tool results merged into one user message of ``tool_result`` blocks. Prompt caching marks
(``cache_control: ephemeral``, ``ttl: 1h`` with ``PI_CACHE_RETENTION=long``) go on the system
blocks, the last tool and the last block of the final message when it is a user message.
"""

from __future__ import annotations

import os
from typing import Any, cast

from pi_cli.ai.options import StreamOptions
from pi_cli.ai.requests.copilot import base_url as copilot_base_url
from pi_cli.ai.requests.copilot import is_copilot
from pi_cli.ai.requests.copilot import request_headers as copilot_headers
from pi_cli.ai.transform import transform_messages
from pi_cli.ai.transport.provider_common import safe_tool_id
from pi_cli.ai.types import Context, Model

API_VERSION = "2023-06-01"
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 16384, "max": 16384}
_ADAPTIVE_MARKERS = ("opus-4-6", "opus-4-7", "sonnet-4-6")


# A Claude Pro/Max login's token only serves requests that present themselves as Claude Code: its
# identity line first in the system prompt, its beta flags, and its tool names' casing.
CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
CLAUDE_CODE_VERSION = "2.1.322"
OAUTH_BETAS = ("claude-code-20250219", "oauth-2025-04-20")
_CLAUDE_CODE_TOOLS = {
    name.lower(): name
    for name in ("Read", "Write", "Edit", "Bash", "Grep", "Glob", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode",
                 "KillShell", "NotebookEdit", "Skill", "Task", "TaskOutput", "TodoWrite", "WebFetch", "WebSearch")
}  # fmt: skip


def is_oauth_token(api_key: str | None) -> bool:
    """Whether ``api_key`` is a subscription login's access token rather than an API key."""
    return bool(api_key) and "sk-ant-oat" in str(api_key)


def claude_code_name(name: str) -> str:
    """``name`` in Claude Code's casing when it is one of Claude Code's tools (``read`` → ``Read``)."""
    return _CLAUDE_CODE_TOOLS.get(name.lower(), name)


def is_adaptive(model: Model) -> bool:
    """Models that take ``thinking: {type: adaptive}`` plus an effort instead of a token budget."""
    return any(marker in model["id"] for marker in _ADAPTIVE_MARKERS)


def _tool_id(tool_id: str) -> str:
    return safe_tool_id(tool_id, 64)


def _cache_mark() -> dict[str, str]:
    if os.environ.get("PI_CACHE_RETENTION") == "long":
        return {"type": "ephemeral", "ttl": "1h"}
    return {"type": "ephemeral"}


def _user_blocks(content: str | list[Any]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content.strip() else []
    blocks: list[dict[str, Any]] = []
    for block in content:
        if block.get("type") == "text" and block.get("text", "").strip():
            blocks.append({"type": "text", "text": block["text"]})
        elif block.get("type") == "image":
            blocks.append(
                {"type": "image", "source": {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}}
            )
    return blocks


def _assistant_blocks(content: list[Any], oauth: bool = False) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            if block.get("text", "").strip():
                blocks.append({"type": "text", "text": block["text"]})
        elif kind == "thinking":
            signature = block.get("thinkingSignature")
            if block.get("redacted"):
                if signature:
                    blocks.append({"type": "redacted_thinking", "data": signature})
            elif signature:
                blocks.append({"type": "thinking", "thinking": block.get("thinking", ""), "signature": signature})
            elif block.get("thinking", "").strip():
                blocks.append({"type": "text", "text": block["thinking"]})
        elif kind == "toolCall":
            blocks.append(
                {
                    "type": "tool_use",
                    "id": _tool_id(block["id"]),
                    "name": claude_code_name(block["name"]) if oauth else block["name"],
                    "input": block.get("arguments") or {},
                }
            )
    return blocks


def _tool_result_block(result: dict[str, Any]) -> dict[str, Any]:
    texts = [b["text"] for b in result["content"] if b.get("type") == "text"]
    images = [b for b in result["content"] if b.get("type") == "image"]
    content: Any
    if not images:
        content = "\n".join(texts)
    else:
        content = [{"type": "text", "text": t} for t in texts] or [{"type": "text", "text": "(see attached image)"}]
        content += [
            {"type": "image", "source": {"type": "base64", "media_type": i["mimeType"], "data": i["data"]}}
            for i in images
        ]
    return {
        "type": "tool_result",
        "tool_use_id": _tool_id(result["toolCallId"]),
        "content": content,
        "is_error": bool(result.get("isError")),
    }


def convert_messages(model: Model, context: Context, oauth: bool = False) -> list[dict[str, Any]]:
    """The ``messages`` array (user/assistant alternation as Anthropic wants it)."""
    out: list[dict[str, Any]] = []
    for message in transform_messages(context["messages"], model):
        role = message["role"]
        if role == "user":
            blocks = _user_blocks(message["content"])
            if blocks:
                out.append({"role": "user", "content": blocks})
        elif role == "assistant":
            blocks = _assistant_blocks(cast(list[Any], message["content"]), oauth)
            if blocks:
                out.append({"role": "assistant", "content": blocks})
        else:
            block = _tool_result_block(cast(dict[str, Any], message))
            previous = out[-1] if out else None
            if previous and previous["role"] == "user" and previous.get("_tool_results"):
                previous["content"].append(block)
            else:
                out.append({"role": "user", "content": [block], "_tool_results": True})
    for entry in out:
        entry.pop("_tool_results", None)
    return out


def _thinking(body: dict[str, Any], model: Model, options: StreamOptions) -> bool:
    """Add thinking parameters; True when thinking is on."""
    if not model.get("reasoning"):
        return False
    level = options.reasoning
    if level in (None, "off"):
        body["thinking"] = {"type": "disabled"}
        return False
    assert level is not None
    mapping = model.get("thinkingLevelMap") or {}
    if is_adaptive(model):
        effort = mapping.get(level) or {"minimal": "low", "xhigh": "high", "max": "high"}.get(level, level)
        body["thinking"] = {"type": "adaptive", "display": "summarized"}
        body["output_config"] = {"effort": effort}
        return True
    budget = THINKING_BUDGETS[level]
    max_tokens = min(body["max_tokens"] + budget, model["maxTokens"])
    if max_tokens <= budget:
        budget = max(1024, max_tokens - 1024)
    body["max_tokens"] = max_tokens
    body["thinking"] = {"type": "enabled", "budget_tokens": budget, "display": "summarized"}
    return True


def build_request(model: Model, context: Context, options: StreamOptions) -> tuple[str, dict[str, str], dict[str, Any]]:
    """``(url, headers, body)`` for one streamed messages request."""
    compat = model.get("compat") or {}
    oauth = is_oauth_token(options.api_key)
    body: dict[str, Any] = {
        "model": model["id"],
        "messages": convert_messages(model, context, oauth),
        "stream": True,
        "max_tokens": options.max_tokens or max(1, model["maxTokens"] // 3),
    }
    mark = _cache_mark()
    system = context.get("systemPrompt")
    system_blocks = [{"type": "text", "text": CLAUDE_CODE_IDENTITY, "cache_control": mark}] if oauth else []
    if system:
        system_blocks.append({"type": "text", "text": system, "cache_control": mark})
    if system_blocks:
        body["system"] = system_blocks
    thinking_on = _thinking(body, model, options)
    if options.temperature is not None and not thinking_on:
        body["temperature"] = options.temperature
    tools = context.get("tools")
    eager = compat.get("supportsEagerToolInputStreaming") is not False
    if tools:
        body["tools"] = []
        for tool in tools:
            params = tool["parameters"] or {}
            entry: dict[str, Any] = {
                "name": claude_code_name(tool["name"]) if oauth else tool["name"],
                "description": tool["description"],
                "input_schema": {
                    "type": "object",
                    "properties": params.get("properties", {}),
                    "required": params.get("required", []),
                },
            }
            if eager:
                entry["eager_input_streaming"] = True
            body["tools"].append(entry)
        body["tools"][-1]["cache_control"] = mark
    messages = body["messages"]
    if messages and messages[-1]["role"] == "user" and messages[-1]["content"]:
        messages[-1]["content"][-1]["cache_control"] = mark
    headers = {
        "content-type": "application/json",
        "accept": "application/json",
        "anthropic-version": API_VERSION,
        "anthropic-dangerous-direct-browser-access": "true",
    }
    betas = list(OAUTH_BETAS) if oauth else []
    if oauth:
        headers["authorization"] = f"Bearer {options.api_key}"
        headers["user-agent"] = f"claude-cli/{CLAUDE_CODE_VERSION}"
        headers["x-app"] = "cli"
    elif options.api_key and is_copilot(model):
        headers["authorization"] = f"Bearer {options.api_key}"
        headers.update(copilot_headers(context["messages"]))
    elif options.api_key:
        headers["x-api-key"] = options.api_key
    if thinking_on and not is_adaptive(model) and compat.get("interleavedThinking") is not False:
        betas.append("interleaved-thinking-2025-05-14")
    if tools and not eager:
        betas.append("fine-grained-tool-streaming-2025-05-14")
    if betas:
        headers["anthropic-beta"] = ",".join(betas)
    headers.update(model.get("headers") or {})
    headers.update(options.headers)
    base = copilot_base_url(model, options.api_key) if is_copilot(model) else model["baseUrl"]
    return base.rstrip("/") + "/v1/messages", headers, body
