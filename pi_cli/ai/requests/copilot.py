"""GitHub Copilot's request details, shared by the chat-completions and messages builders.

A Copilot token (``tid=…;exp=…;proxy-ep=proxy.<host>;…``) names the API host of the account's plan;
requests go to ``https://api.<host>`` (the catalogue's ``baseUrl`` otherwise). ``X-Initiator`` tells
Copilot whether the user or the agent started the request (agent turns are billed differently),
and ``Openai-Intent`` marks it as a coding conversation, as Copilot's own clients do.
:func:`openai_endpoint` is the common start of both OpenAI builders (Copilot or not).
"""

from __future__ import annotations

import re
from typing import Any

from pi_cli.ai.options import StreamOptions
from pi_cli.ai.types import Model

PROVIDER = "github-copilot"
_PROXY = re.compile(r"(?:^|;)proxy-ep=([^;]+)")


def is_copilot(model: Model) -> bool:
    return model.get("provider") == PROVIDER


def base_url(model: Model, api_key: str | None) -> str:
    """The API base for this token (``proxy.`` host → ``api.`` host), else the model's own."""
    match = _PROXY.search(api_key or "")
    if match:
        return "https://" + re.sub(r"^proxy\.", "api.", match.group(1))
    return str(model["baseUrl"])


def _has_images(messages: list[Any]) -> bool:
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ("user", "toolResult"):
            continue
        content = message.get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "image" for b in content):
            return True
    return False


def request_headers(messages: list[Any]) -> dict[str, str]:
    """``X-Initiator`` (``user`` when the last message is the user's), ``Openai-Intent``, and
    ``Copilot-Vision-Request: true`` when the conversation carries an image (Copilot refuses images
    without it)."""
    last = messages[-1] if messages else None
    initiator = "user" if isinstance(last, dict) and last.get("role") == "user" else "agent"
    headers = {"X-Initiator": initiator, "Openai-Intent": "conversation-edits"}
    if _has_images(messages):
        headers["Copilot-Vision-Request"] = "true"
    return headers


def openai_endpoint(model: Model, options: StreamOptions, messages: list[Any]) -> tuple[str, dict[str, str]]:
    """The base URL (no trailing ``/``) and first headers of a streamed request to an OpenAI API
    (chat completions, responses): JSON in, an event stream out, the key as a bearer token, the
    model's own headers, then Copilot's when the model is Copilot's. The caller adds its session
    headers and, last, ``options.headers``."""
    copilot = is_copilot(model)
    url = (base_url(model, options.api_key) if copilot else model["baseUrl"]).rstrip("/")
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if options.api_key:
        headers["authorization"] = f"Bearer {options.api_key}"
    headers.update(model.get("headers") or {})
    if copilot:
        headers.update(request_headers(messages))
    return url, headers
