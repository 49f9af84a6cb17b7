"""Request building for ChatGPT's Codex backend (``openai-codex-responses``), pure for golden tests.

The ``openai-codex`` provider is reached with a ChatGPT Plus/Pro login: the access token is a JWT
whose ``https://api.openai.com/auth`` claim names the ChatGPT account, sent as
``chatgpt-account-id``. The body is a Responses request (same ``input`` items as
``openai-responses``) with the system prompt as ``instructions``, ``store: false``, encrypted
reasoning always included, low text verbosity and parallel tool calls, as pi sends it; the URL is
``{baseUrl}/codex/responses``.
"""

from __future__ import annotations

import base64
import binascii
import json
import platform
from typing import Any

from pi_cli.ai.models import clamp_thinking_level
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.requests.openai_responses import PROMPT_CACHE_KEY_MAX, convert_input
from pi_cli.ai.transport.http_client import ProviderError
from pi_cli.ai.types import Context, Model

JWT_CLAIM = "https://api.openai.com/auth"
DEFAULT_INSTRUCTIONS = "You are a helpful assistant."


def account_id(token: str | None) -> str:
    """The ChatGPT account id inside an access token; a one-line error when it has none."""
    try:
        payload = (token or "").split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        found = claims[JWT_CLAIM]["chatgpt_account_id"]
    except (IndexError, KeyError, TypeError, ValueError, binascii.Error):
        found = None
    if not isinstance(found, str) or not found:
        raise ProviderError(
            "The OpenAI Codex token carries no ChatGPT account id: log in again with /login openai-codex"
        )
    return found


def codex_url(base_url: str) -> str:
    """``…/codex/responses`` from a base URL that may already end in ``/codex`` or the full path."""
    base = (base_url or "https://chatgpt.com/backend-api").rstrip("/")
    if base.endswith("/codex/responses"):
        return base
    return f"{base}/responses" if base.endswith("/codex") else f"{base}/codex/responses"


def build_request(model: Model, context: Context, options: StreamOptions) -> tuple[str, dict[str, str], dict[str, Any]]:
    """``(url, headers, body)`` for one streamed Codex request."""
    body: dict[str, Any] = {
        "model": model["id"],
        "store": False,
        "stream": True,
        "instructions": context.get("systemPrompt") or DEFAULT_INSTRUCTIONS,
        "input": convert_input(model, context, include_system=False),
        "text": {"verbosity": "low"},
        "include": ["reasoning.encrypted_content"],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
    }
    if options.session_id:
        body["prompt_cache_key"] = options.session_id[:PROMPT_CACHE_KEY_MAX]
    if options.temperature is not None:
        body["temperature"] = options.temperature
    tools = context.get("tools")
    if tools:
        body["tools"] = [
            {
                "type": "function",
                "name": t["name"],
                "description": t["description"],
                "parameters": t["parameters"],
                "strict": None,
            }
            for t in tools
        ]
    level = clamp_thinking_level(model, options.reasoning) if options.reasoning else None
    if level and level != "off":
        effort = (model.get("thinkingLevelMap") or {}).get(level) or level
        body["reasoning"] = {"effort": effort, "summary": "auto"}
    headers = dict(model.get("headers") or {})
    headers.update(options.headers)
    headers.update(
        {
            "authorization": f"Bearer {options.api_key or ''}",
            "chatgpt-account-id": account_id(options.api_key),
            "originator": "pi",
            "user-agent": f"pi ({platform.system().lower()} {platform.release()}; {platform.machine()})",
            "openai-beta": "responses=experimental",
            "accept": "text/event-stream",
            "content-type": "application/json",
        }
    )
    if options.session_id:
        headers["session_id"] = options.session_id
        headers["x-client-request-id"] = options.session_id
    return codex_url(model["baseUrl"]), headers, body
