"""OpenAI Codex provider (``api: "openai-codex-responses"``): the Responses stream of ChatGPT's backend.

A ChatGPT Plus/Pro login's models (provider ``openai-codex``) answer in the Responses format, so
the events are read by :class:`~pi_cli.ai.providers.openai_responses.ResponsesParser`; Codex adds
its own terminal ``response.done`` (read as ``response.completed``, unknown statuses dropped) and
words its failures as pi does: ``Codex error: <message>`` for an ``error`` event, the bare message
of a ``response.failed``. Requests go over SSE (pi's fallback transport; no WebSocket here).
"""

from __future__ import annotations

from typing import Any

from pi_cli.ai.providers.openai_responses import ResponsesParser
from pi_cli.ai.requests.openai_codex import build_request
from pi_cli.ai.transport.http_client import ProviderError
from pi_cli.ai.transport.provider_run import sse_stream
from pi_cli.ai.types import AssistantMessage, AssistantMessageEvent, Model

API = "openai-codex-responses"
_STATUSES = frozenset(("completed", "incomplete", "failed", "cancelled", "queued", "in_progress"))


class CodexParser(ResponsesParser):
    """Responses events with Codex's terminal event and error wording."""

    def __init__(self, output: AssistantMessage, model: Model) -> None:
        super().__init__(output, model, "OpenAI Codex")

    def _completed(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        response = dict(event.get("response") or {})
        if response.get("status") not in _STATUSES:
            response.pop("status", None)
        return super()._completed({**event, "response": response})

    def _error(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        detail = event.get("message") or event.get("code") or "unknown error"
        raise ProviderError(f"Codex error: {detail} (provider: {self.model['provider']})")

    def _failed(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        self.terminal = True
        error = (event.get("response") or {}).get("error") or {}
        message = error.get("message") if isinstance(error, dict) else None
        raise ProviderError(f"{message or 'Codex response failed'} (provider: {self.model['provider']})")


# One request of this API; see the module docstring for the contract.
stream = sse_stream(API, build_request, CodexParser, "codex")
