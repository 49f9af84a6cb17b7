"""Error text for failed provider requests, in pi's ``"<status> <message>"`` shape, minus secrets.

The agent layer classifies errors with regexes over this text (overflow, retryable), so the status
comes first, as pi's SDK-formatted messages do. The provider is named at the end of the first line.
Whatever quoted text ends up in an error is passed through :func:`redact` so that API keys, bearer
tokens and ``key=`` query parameters never reach the UI, logs or session files.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from typing import Any

BODY_EXCERPT_CHARS = 1000
MAX_PROVIDER_ERROR_BODY_CHARS = 4000  # pi-ai's cap on a quoted error body

_SECRET_PATTERNS = [
    # header lines or JSON members naming a credential
    re.compile(
        r"(?i)((?:authorization|x-api-key|api[-_]?key|x-goog-api-key)[\"']?\s*[:=]\s*[\"']?)(?:bearer\s+)?[^\s\"',}&]+"
    ),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)([?&](?:key|api_key|apikey|access_token|token)=)[^&\s\"']+"),
    re.compile(r"()\bsk-[A-Za-z0-9_-]{12,}"),
    re.compile(r"()\bAIza[0-9A-Za-z_-]{30,}"),  # Google API keys
    re.compile(r"()\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),  # JWTs (login access tokens)
]


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Replace known secrets and anything shaped like a credential with ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + "***", text)
    return text


def _excerpt(text: str) -> str:
    text = text.strip()
    return text if len(text) <= BODY_EXCERPT_CHARS else text[:BODY_EXCERPT_CHARS] + "…"


def format_http_error(
    status: int, body: str, provider: str, *, style: str = "openai", secrets: Iterable[str | None] = (),
    content_type: str = "", reason: str = "",
) -> str:  # fmt: skip
    """The error text of a non-2xx response, by the provider's ``style``.

    pi 1.6.0's exact texts (each with the key hint after a 401, pi_cli's addition):
    ``"openai-sdk"`` (openai-completions, :func:`openai_sdk_error`), ``"responses-sdk"`` (the same
    behind ``"<provider> API error (<status>): "``), ``"anthropic-sdk"`` (:func:`anthropic_sdk_error`)
    and ``"google-sdk"`` (:func:`google_sdk_error`, which needs the response's ``content_type`` and
    ``reason`` phrase). The older ``"<status> <message> (provider: <name>)"`` form remains for
    ``style="openai"`` (``error.message`` of a JSON body; OpenRouter's ``error.metadata.raw`` on a new
    line), ``"anthropic"`` (the whole body) and ``"codex"`` (pi's ChatGPT usage-limit wording).
    """
    sdk_text = {
        "openai-sdk": lambda: openai_sdk_error(status, body),
        "responses-sdk": lambda: openai_sdk_error(status, body, prefix=f"{_responses_name(provider)} API error"),
        "anthropic-sdk": lambda: anthropic_sdk_error(status, body),
        "google-sdk": lambda: google_sdk_error(status, body, content_type, reason),
    }.get(style)
    if sdk_text is not None:
        hint = _auth_hint(provider) if status == 401 else ""
        return redact(sdk_text() + hint, secrets)
    text = body.strip()
    raw_extra = ""
    if not text:
        message = "status code (no body)"
    else:
        message = _excerpt(text)
        if style in ("openai", "codex"):
            parsed = _json_or_none(text)
            if isinstance(parsed, list) and len(parsed) == 1:  # Google's streaming endpoints wrap it
                parsed = parsed[0]
            error = parsed.get("error") if isinstance(parsed, dict) else None
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                message = _excerpt(error["message"])
                metadata = error.get("metadata")
                if isinstance(metadata, dict) and metadata.get("raw"):
                    raw_extra = "\n" + _excerpt(str(metadata["raw"]))
            elif isinstance(error, str):
                message = _excerpt(error)
            elif isinstance(parsed, dict) and isinstance(parsed.get("message"), str):
                message = _excerpt(parsed["message"])
    if style == "codex":
        message = _codex_limit(status, text) or message
    hint = _auth_hint(provider) if status == 401 else ""
    return redact(f"{status} {message} (provider: {provider}){hint}{raw_extra}", secrets)


def openai_sdk_error(status: int, body: str, prefix: str | None = None) -> str:
    """pi's ``errorMessage`` for an HTTP error of the ``openai`` SDK (openai-completions; with
    ``prefix``, openai-responses).

    The SDK's message is ``"<status> <error.message>"`` (``error`` being the JSON body's ``error``
    member; a body that is not JSON is quoted whole); pi-ai's ``formatProviderError`` then shows
    ``"<status>: <compact JSON of error>"`` when that object is not already in the message, e.g.
    ``500: {"message":"fake error 500"}``. With ``prefix`` either form reads
    ``"<prefix> (<status>): <message or JSON>"``. No provider suffix, as pi.
    """
    lead = f"{prefix} ({status}): " if prefix is not None else ""
    parsed = _json_or_none(body) if body.strip() else None
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if parsed is None and body.strip():
        text: str | None = body
    elif isinstance(error, dict) and isinstance(error.get("message"), str) and error["message"]:
        text = error["message"]
    elif isinstance(error, dict) and error.get("message"):
        text = _js_json(error["message"])
    elif error not in (None, "", 0, False):
        text = _js_json(error)
    else:
        text = None
    message = f"{status} {text}" if text else f"{status} status code (no body)"
    if not isinstance(error, dict) or not error:
        return lead + message
    detail = _js_json(error)
    if len(detail) > MAX_PROVIDER_ERROR_BODY_CHARS:
        cut = len(detail) - MAX_PROVIDER_ERROR_BODY_CHARS
        detail = f"{detail[:MAX_PROVIDER_ERROR_BODY_CHARS]}... [truncated {cut} chars]"
    if detail in message:
        return lead + message
    return lead + detail if prefix is not None else f"{status}: {detail}"


def _responses_name(provider: str) -> str:
    return "OpenAI" if provider == "openai" else provider


def anthropic_sdk_error(status: int, body: str) -> str:
    """pi's ``errorMessage`` for an HTTP error of the Anthropic SDK: ``"<status> <msg>"``, ``msg``
    being the JSON body's own ``message`` string if it has one, else the whole body as compact JSON
    (so ``overloaded_error`` stays visible), or the text of a body that is not JSON;
    ``"<status> status code (no body)"`` when empty."""
    parsed = _json_or_none(body) if body.strip() else None
    if parsed is None:
        text = body
    elif isinstance(parsed, dict) and parsed.get("message"):
        message = parsed["message"]
        text = message if isinstance(message, str) else _js_json(message)
    elif parsed in ("", 0, False):  # a falsy JSON value counts as no body
        text = body
    else:
        text = _js_json(parsed)
    return f"{status} {text}" if text else f"{status} status code (no body)"


def google_sdk_error(status: int, body: str, content_type: str, reason: str) -> str:
    """pi's ``errorMessage`` for an HTTP error of ``@google/genai``: the JSON body re-serialised
    compactly when the response says ``application/json``, else the SDK's wrapper
    ``{"error":{"message":<text>,"code":<status>,"status":<reason phrase>}}``."""
    if "application/json" in content_type:
        parsed = _json_or_none(body)
        if parsed is not None:
            return _js_json(parsed)
    return _js_json({"error": {"message": body, "code": status, "status": reason}})


def _js_json(value: Any) -> str:
    """``JSON.stringify(value)``: compact, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _codex_limit(status: int, body: str) -> str | None:
    """pi's wording when a ChatGPT plan's usage limit is reached (Codex answers 429 / a limit code)."""
    parsed = _json_or_none(body)
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if not isinstance(error, dict):
        return None
    code = str(error.get("code") or error.get("type") or "")
    if status != 429 and not re.search(r"usage_limit_reached|usage_not_included|rate_limit_exceeded", code, re.I):
        return None
    plan = f" ({str(error['plan_type']).lower()} plan)" if error.get("plan_type") else ""
    when = ""
    if isinstance(error.get("resets_at"), int | float):
        minutes = max(0, round((error["resets_at"] - time.time()) / 60))
        when = f" Try again in ~{minutes} min."
    return f"You have hit your ChatGPT usage limit{plan}.{when}"


def _auth_hint(provider: str) -> str:
    """What to fix after a 401: the environment variable to set, or where a custom key lives."""
    from pi_cli.ai.models import env_var_name  # lazy: the catalogue module is not needed otherwise

    name = env_var_name(provider)
    if name:
        return f". Check the API key: set {name} (or store a key for {provider} in auth.json)"
    return f'. Check the API key of provider "{provider}" (models.json apiKey, or auth.json)'


def format_stream_error(error: Any, provider: str, secrets: Iterable[str | None] = ()) -> str:
    """Message for an ``{"error": ...}`` object that arrived inside a 200 stream (OpenAI style)."""
    if isinstance(error, dict):
        message = error.get("message") or json.dumps(error, ensure_ascii=False)
        code = error.get("code")
        head = f"{code} {message}" if isinstance(code, int) else str(message)
        metadata = error.get("metadata")
        if isinstance(metadata, dict) and metadata.get("raw"):
            head += "\n" + _excerpt(str(metadata["raw"]))
    else:
        head = str(error)
    return redact(f"{_excerpt(head)} (provider: {provider})", secrets)


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
