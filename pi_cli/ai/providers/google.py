"""Gemini provider (``api: "google-generative-ai"``): ``streamGenerateContent`` over SSE.

Same contract as the other providers. Every ``data:`` line is a whole GenerateContentResponse
(no sentinel); pi's reading (spec/ai-layer.md §2.2):

* parts of ``candidates[0].content`` in order: text with ``thought: true`` → thinking, other text →
  text; a change of kind closes the open block; a ``thoughtSignature`` is kept on the block it
  came with (the last non-empty one wins) so the next request can hand it back;
* a ``functionCall`` arrives whole: ``toolcall_start``, one delta with the JSON arguments,
  ``toolcall_end``; a missing or repeated id becomes ``<name>_<ms>_<n>``; its signature is kept
  as the call's ``thoughtSignature``;
* ``finishReason``: ``STOP`` → stop (→ toolUse after a call), ``MAX_TOKENS`` → length, anything
  else (safety, recitation, malformed call …) → error "Provider stopped with: <reason>";
* ``usageMetadata`` (the last one wins): input = prompt − cached, output = candidates + thoughts;
* ``{"error": …}`` in the stream → error; a body without any finish reason → error.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from pi_cli.ai.models import calculate_cost
from pi_cli.ai.requests.google import build_request
from pi_cli.ai.transport.http_client import ProviderError
from pi_cli.ai.transport.http_errors import format_stream_error
from pi_cli.ai.transport.provider_common import new_usage
from pi_cli.ai.transport.provider_run import sse_stream
from pi_cli.ai.transport.sse import SSEEvent
from pi_cli.ai.types import AssistantMessage, AssistantMessageEvent, Model, StopReason

API = "google-generative-ai"
_call_counter = itertools.count(1)


def map_finish_reason(reason: str) -> StopReason:
    """pi's mapping: STOP → stop, MAX_TOKENS (and CONTINUATION) → length, the rest → error."""
    if reason == "STOP":
        return "stop"
    if reason in ("MAX_TOKENS", "CONTINUATION"):
        return "length"
    return "error"


class GeminiParser:
    """Applies GenerateContentResponse chunks to ``output`` (see the module docstring)."""

    def __init__(self, output: AssistantMessage, model: Model) -> None:
        self.output = output
        self.model = model
        self.content: list[Any] = output["content"]
        self.block: dict[str, Any] | None = None  # the open text/thinking block
        self.block_index = -1
        self.finish_reason: str | None = None
        self.has_calls = False

    # -- EventParser ------------------------------------------------------------------------

    def feed(self, sse: SSEEvent) -> list[AssistantMessageEvent]:
        data = sse.data
        if not data:
            return []
        try:
            chunk = json.loads(data)
        except ValueError as exc:
            raise ProviderError(
                f"Could not parse SSE chunk from {self.model['provider']}: {exc}: {data[:200]}"
            ) from None
        if isinstance(chunk, list):  # a JSON-array stream (no alt=sse) carries the same objects
            return [event for item in chunk if isinstance(item, dict) for event in self._chunk(item)]
        return self._chunk(chunk) if isinstance(chunk, dict) else []

    def complete(self) -> bool:
        return False  # Gemini sends no terminal event: read to the end of the body

    def answered(self) -> bool:
        return self.finish_reason is not None  # the finishing chunk carries the usage too

    def finish(self) -> list[AssistantMessageEvent]:
        events = self._close()
        if self.finish_reason is None:
            raise ProviderError(f"Google stream ended without a finish reason (provider: {self.model['provider']})")
        return events

    def stop_error(self) -> str | None:
        if self.output["stopReason"] == "error":
            return f"Provider stopped with: {self.finish_reason}"
        return None

    def describe_failure(self, exc: Exception, message: str) -> str:
        return message

    def finalize_args(self) -> None:
        """Calls arrive whole, so there is nothing half-parsed to settle."""

    # -- chunks -----------------------------------------------------------------------------

    def _chunk(self, chunk: dict[str, Any]) -> list[AssistantMessageEvent]:
        if chunk.get("error"):
            raise ProviderError(format_stream_error(chunk["error"], self.model["provider"]))
        output = self.output
        if "responseId" not in output and chunk.get("responseId"):
            output["responseId"] = chunk["responseId"]
            version = chunk.get("modelVersion")
            if version and version != self.model["id"]:
                output["responseModel"] = version
        events: list[AssistantMessageEvent] = []
        candidates = chunk.get("candidates") or []
        candidate = candidates[0] if candidates and isinstance(candidates[0], dict) else {}
        for part in (candidate.get("content") or {}).get("parts") or []:
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("text"), str):
                self._text(part, events)
            if isinstance(part.get("functionCall"), dict):
                self._call(part, events)
        reason = candidate.get("finishReason")
        if reason:
            self.finish_reason = str(reason)
            output["rawStopReason"] = self.finish_reason
            output["stopReason"] = map_finish_reason(self.finish_reason)
            if self.has_calls and output["stopReason"] == "stop":
                output["stopReason"] = "toolUse"
        usage = chunk.get("usageMetadata")
        if isinstance(usage, dict):
            self._usage(usage)
        return events

    def _text(self, part: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        thinking = part.get("thought") is True
        field = "thinking" if thinking else "text"
        block = self.block
        if block is None or block["type"] != field:
            events.extend(self._close())
            block = self.block = {"type": "thinking", "thinking": ""} if thinking else {"type": "text", "text": ""}
            self.block_index = len(self.content)
            self.content.append(block)
            start = "thinking_start" if thinking else "text_start"
            events.append({"type": start, "contentIndex": self.block_index, "partial": self.output})  # type: ignore[typeddict-item]
        text = part["text"]
        grown = block.pop(field)
        grown += text
        block[field] = grown
        signature = part.get("thoughtSignature")
        if isinstance(signature, str) and signature:
            block["thinkingSignature" if thinking else "textSignature"] = signature
        kind = "thinking_delta" if thinking else "text_delta"
        events.append({"type": kind, "contentIndex": self.block_index, "delta": text, "partial": self.output})  # type: ignore[typeddict-item]

    def _close(self) -> list[AssistantMessageEvent]:
        block = self.block
        if block is None:
            return []
        self.block = None
        index = self.block_index
        if block["type"] == "text":
            return [{"type": "text_end", "contentIndex": index, "content": block["text"], "partial": self.output}]
        return [{"type": "thinking_end", "contentIndex": index, "content": block["thinking"], "partial": self.output}]

    def _call(self, part: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        events.extend(self._close())
        raw = part["functionCall"]
        name = str(raw.get("name") or "")
        given = raw.get("id")
        taken = {b["id"] for b in self.content if b["type"] == "toolCall"}
        call_id = given if isinstance(given, str) and given and given not in taken else None
        if call_id is None:
            call_id = f"{name}_{time.time_ns() // 1_000_000}_{next(_call_counter)}"
        args = raw.get("args") if isinstance(raw.get("args"), dict) else {}
        block: dict[str, Any] = {"type": "toolCall", "id": call_id, "name": name, "arguments": args}
        if isinstance(part.get("thoughtSignature"), str) and part["thoughtSignature"]:
            block["thoughtSignature"] = part["thoughtSignature"]
        self.content.append(block)
        self.has_calls = True
        index = len(self.content) - 1
        delta = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
        events.append({"type": "toolcall_start", "contentIndex": index, "partial": self.output})
        events.append({"type": "toolcall_delta", "contentIndex": index, "delta": delta, "partial": self.output})
        events.append({"type": "toolcall_end", "contentIndex": index, "toolCall": block, "partial": self.output})  # type: ignore[typeddict-item]

    def _usage(self, raw: dict[str, Any]) -> None:
        cached = int(raw.get("cachedContentTokenCount") or 0)
        thoughts = int(raw.get("thoughtsTokenCount") or 0)
        self.output["usage"] = new_usage(  # the total is Google's own, as pi 1.6 keeps it
            int(raw.get("promptTokenCount") or 0) - cached,
            int(raw.get("candidatesTokenCount") or 0) + thoughts,
            cached,
            0,
            thoughts,
            int(raw.get("totalTokenCount") or 0),
        )
        calculate_cost(self.model, self.output["usage"])


# One request of this API; see the module docstring for the contract.
stream = sse_stream(API, build_request, GeminiParser, "google-sdk")
