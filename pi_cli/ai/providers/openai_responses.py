"""OpenAI Responses provider (``api: "openai-responses"``) over httpx with our own SSE parsing.

Same contract as the other providers (``stream()`` never raises; ``start`` first; one terminal
event; partial content kept). Events (pi's reading, spec/ai-layer.md §2.2), keyed by
``output_index`` so interleaved items cannot mix:

* ``response.created`` → response id; ``response.output_item.added`` opens a block: ``reasoning``
  → thinking, ``message`` → text, ``function_call`` → tool call with id ``"<call_id>|<item_id>"``;
* ``response.reasoning_summary_text.delta`` / ``reasoning_text.delta`` → thinking deltas (a
  finished summary part adds a blank line); ``output_text.delta`` / ``refusal.delta`` → text;
  ``function_call_arguments.delta`` → best-effort arguments, ``.done`` replaces the buffer;
* ``response.output_item.done`` closes the block: a reasoning item's JSON (with its
  ``encrypted_content``) becomes the thinking signature so the next request can replay it, a
  message's id (and phase) the text signature, a call's final arguments are parsed;
* ``response.completed`` / ``response.incomplete`` → usage (input excludes cached tokens), stop
  reason from ``status`` (``incomplete`` + ``max_output_tokens`` → length, other incompletes are
  errors), ``toolUse`` when a call was made; ``error`` / ``response.failed`` → error;
* a body that ends with no terminal response event is an error, as is a finished response whose
  tool call never got its ``output_item.done``.
"""

from __future__ import annotations

import json
from typing import Any

from pi_cli.ai.models import calculate_cost
from pi_cli.ai.partial_json import StreamingArgs
from pi_cli.ai.requests.openai_responses import build_request
from pi_cli.ai.transport.http_client import ProviderError
from pi_cli.ai.transport.provider_common import new_usage
from pi_cli.ai.transport.provider_run import sse_stream
from pi_cli.ai.transport.sse import SSEEvent
from pi_cli.ai.types import AssistantMessage, AssistantMessageEvent, Model, StopReason

API = "openai-responses"


def map_status(status: str | None, incomplete_reason: str | None) -> tuple[StopReason, str | None]:
    """pi's mapping of a final response ``status``; the second item is an error message, if any."""
    if status in (None, "", "completed", "in_progress", "queued"):
        return "stop", None
    if status == "incomplete":
        if incomplete_reason == "max_output_tokens":
            return "length", None
        detail = f"Response incomplete: {incomplete_reason}" if incomplete_reason else None
        return "error", detail or "Response incomplete without a provider reason"
    if status in ("failed", "cancelled"):
        return "error", f"Response {status}"
    return "error", f"Unhandled stop reason: {status}"


class _Slot:
    __slots__ = ("args", "block", "index", "kind")

    def __init__(self, kind: str, block: dict[str, Any], index: int) -> None:
        self.kind = kind
        self.block = block
        self.index = index
        self.args: StreamingArgs | None = None


class ResponsesParser:
    """Applies Responses stream events to ``output`` (see the module docstring)."""

    def __init__(self, output: AssistantMessage, model: Model, provider_label: str = "OpenAI Responses") -> None:
        self.output = output
        self.model = model
        self.label = provider_label
        self.content: list[Any] = output["content"]
        self.slots: dict[Any, _Slot] = {}
        self.calls: list[_Slot] = []
        self.unfinished: set[int] = set()  # content indexes of calls still open
        self.reasoning_by_id: dict[str, dict[str, Any]] = {}
        self.terminal = False
        self.problem: str | None = None

    # -- EventParser ------------------------------------------------------------------------

    def feed(self, sse: SSEEvent) -> list[AssistantMessageEvent]:
        data = sse.data
        if not data or data == "[DONE]":
            return []
        try:
            event = json.loads(data)
        except ValueError as exc:
            raise ProviderError(
                f"Could not parse SSE event from {self.model['provider']}: {exc}: {data[:200]}"
            ) from None
        if not isinstance(event, dict):
            return []
        kind = event.get("type") or sse.event
        handler = _HANDLERS.get(kind)
        return getattr(self, handler)(event) if handler is not None else []  # by name: subclasses override

    def complete(self) -> bool:
        return self.terminal

    def answered(self) -> bool:
        return self.terminal

    def finish(self) -> list[AssistantMessageEvent]:
        if not self.terminal:
            raise ProviderError(
                f"{self.label} stream ended before a terminal response event (provider: {self.model['provider']})"
            )
        if self.output["stopReason"] == "toolUse":
            for slot in self.calls:
                if slot.index in self.unfinished:
                    block = slot.block
                    raise ProviderError(
                        f"{self.label} stream completed with an unfinished tool call: {block['name']} ({block['id']})"
                    )
        return []

    def stop_error(self) -> str | None:
        return self.problem

    def describe_failure(self, exc: Exception, message: str) -> str:
        return message

    def finalize_args(self) -> None:
        for slot in self.calls:
            if slot.args is not None and slot.args.text:
                slot.block["arguments"] = slot.args.final()

    # -- events -----------------------------------------------------------------------------

    def _created(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        response = event.get("response") or {}
        if response.get("id"):
            self.output["responseId"] = response["id"]
        return []

    def _item_added(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        slot = self._open(event.get("output_index"), event.get("item") or {})
        return [] if slot is None else [self._start_event(slot)]

    def _start_event(self, slot: _Slot) -> AssistantMessageEvent:
        kind: Any = {"thinking": "thinking_start", "text": "text_start", "toolCall": "toolcall_start"}[slot.kind]
        return {"type": kind, "contentIndex": slot.index, "partial": self.output}

    def _open(self, position: Any, item: dict[str, Any]) -> _Slot | None:
        kind = item.get("type")
        block: dict[str, Any]
        if kind == "reasoning":
            block, slot_kind = {"type": "thinking", "thinking": ""}, "thinking"
        elif kind == "message":
            block, slot_kind = {"type": "text", "text": ""}, "text"
            if item.get("phase") == "final_answer":
                self.output["stopReason"] = "stop"
        elif kind == "function_call":
            call_id = f"{item.get('call_id')}|{item.get('id')}"
            block = {"type": "toolCall", "id": call_id, "name": item.get("name") or "", "arguments": {}}
            slot_kind = "toolCall"
        else:
            return None
        slot = _Slot(slot_kind, block, len(self.content))
        self.content.append(block)
        self.slots[position] = slot
        if slot_kind == "toolCall":
            slot.args = StreamingArgs()
            if item.get("arguments"):
                slot.args.append(item["arguments"])
                block["arguments"] = slot.args.update()
            self.calls.append(slot)
            self.unfinished.add(slot.index)
        return slot

    def _slot(self, event: dict[str, Any], kind: str) -> _Slot | None:
        slot = self.slots.get(event.get("output_index"))
        return slot if slot is not None and slot.kind == kind else None

    def _append(self, slot: _Slot | None, field: str, delta: Any) -> list[AssistantMessageEvent]:
        if slot is None or not isinstance(delta, str):
            return []
        block = slot.block
        grown = block.pop(field)  # pop first: the append below then resizes the string in place
        grown += delta
        block[field] = grown
        kind: Any = "thinking_delta" if field == "thinking" else "text_delta"
        return [{"type": kind, "contentIndex": slot.index, "delta": delta, "partial": self.output}]

    def _thinking_delta(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        return self._append(self._slot(event, "thinking"), "thinking", event.get("delta"))

    def _summary_part_done(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        return self._append(self._slot(event, "thinking"), "thinking", "\n\n")

    def _text_delta(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        return self._append(self._slot(event, "text"), "text", event.get("delta"))

    def _args_delta(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        slot = self._slot(event, "toolCall")
        delta = event.get("delta")
        if slot is None or slot.args is None or not isinstance(delta, str):
            return []
        slot.args.append(delta)
        slot.block["arguments"] = slot.args.update()
        return [{"type": "toolcall_delta", "contentIndex": slot.index, "delta": delta, "partial": self.output}]

    def _args_done(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        slot = self._slot(event, "toolCall")
        final = event.get("arguments")
        if slot is None or slot.args is None or not isinstance(final, str):
            return []
        return self._replace_args(slot, final)

    def _replace_args(self, slot: _Slot, final: str) -> list[AssistantMessageEvent]:
        assert slot.args is not None
        previous = slot.args.text
        slot.args = StreamingArgs()
        slot.args.append(final)
        slot.block["arguments"] = slot.args.final()
        if final.startswith(previous) and len(final) > len(previous):
            delta = final[len(previous) :]
            return [{"type": "toolcall_delta", "contentIndex": slot.index, "delta": delta, "partial": self.output}]
        return []

    def _item_done(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        item = event.get("item") or {}
        kind = item.get("type")
        position = event.get("output_index")
        if kind == "message" and item.get("phase") == "final_answer":
            self.output["stopReason"] = "stop"
        slot = self.slots.get(position)
        events: list[AssistantMessageEvent] = []
        if slot is None:  # a done without its added (a lenient server): open the block now
            slot = self._open(position, item)
            if slot is None:
                return []
            events.append(self._start_event(slot))
        block = slot.block
        if kind == "reasoning" and slot.kind == "thinking":
            summary = "\n\n".join(str(s.get("text", "")) for s in item.get("summary") or [] if isinstance(s, dict))
            texts = "\n\n".join(str(c.get("text", "")) for c in item.get("content") or [] if isinstance(c, dict))
            block["thinking"] = summary or texts or block["thinking"]
            block["thinkingSignature"] = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
            if item.get("id"):
                self.reasoning_by_id[item["id"]] = block
            content = block["thinking"]
            events.append(
                {"type": "thinking_end", "contentIndex": slot.index, "content": content, "partial": self.output}
            )
        elif kind == "message" and slot.kind == "text":
            parts = [p for p in item.get("content") or [] if isinstance(p, dict)]
            if parts:  # the item's own text wins; without parts the streamed text stands
                block["text"] = "".join(
                    str(p.get("text") or "") if p.get("type") == "output_text" else str(p.get("refusal") or "")
                    for p in parts
                )
            signature: dict[str, Any] = {"v": 1, "id": item.get("id")}
            if item.get("phase"):
                signature["phase"] = item["phase"]
            block["textSignature"] = json.dumps(signature, separators=(",", ":"))
            events.append(
                {"type": "text_end", "contentIndex": slot.index, "content": block["text"], "partial": self.output}
            )
        elif kind == "function_call" and slot.kind == "toolCall":
            if isinstance(item.get("arguments"), str) and item["arguments"]:
                events.extend(self._replace_args(slot, item["arguments"]))
            elif slot.args is not None:
                block["arguments"] = slot.args.final()
            self.unfinished.discard(slot.index)
            call: Any = block
            events.append(
                {"type": "toolcall_end", "contentIndex": slot.index, "toolCall": call, "partial": self.output}
            )
        else:
            return events
        del self.slots[position]
        return events

    def _completed(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        self.terminal = True
        response = event.get("response") or {}
        self._backfill_signatures(response.get("output") or [])
        if response.get("id"):
            self.output["responseId"] = response["id"]
        raw = response.get("usage")
        if isinstance(raw, dict):
            details = raw.get("input_tokens_details") or {}
            cached = int(details.get("cached_tokens") or 0)
            written = int(details.get("cache_write_tokens") or 0)
            self.output["usage"] = new_usage(  # the total is the provider's own, as pi 1.6 keeps it
                max(0, int(raw.get("input_tokens") or 0) - cached - written),
                int(raw.get("output_tokens") or 0),
                cached,
                written,
                int((raw.get("output_tokens_details") or {}).get("reasoning_tokens") or 0),
                int(raw.get("total_tokens") or 0),
            )
        calculate_cost(self.model, self.output["usage"])
        details = response.get("incomplete_details") or {}
        reason = details.get("reason") if isinstance(details, dict) else None
        status = response.get("status")
        if status is not None:
            self.output["rawStopReason"] = f"{status}.{reason}" if isinstance(reason, str) and reason else status
        self.output["stopReason"], self.problem = map_status(status, reason)
        if self.output["stopReason"] == "stop" and self.calls:
            self.output["stopReason"] = "toolUse"
        return []

    def _backfill_signatures(self, items: list[Any]) -> None:
        """Some servers send ``encrypted_content`` only in the final response: copy it over."""
        for item in items:
            if not isinstance(item, dict) or item.get("type") != "reasoning" or not item.get("encrypted_content"):
                continue
            block = self.reasoning_by_id.get(item.get("id") or "")
            if block is None:
                continue
            stored = json.loads(block["thinkingSignature"])
            if not stored.get("encrypted_content"):
                stored["encrypted_content"] = item["encrypted_content"]
                block["thinkingSignature"] = json.dumps(stored, ensure_ascii=False, separators=(",", ":"))

    def _error(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        error: dict[str, Any] = event["error"] if isinstance(event.get("error"), dict) else event
        code = error.get("code") or error.get("type") or "unknown"
        raise ProviderError(
            f"Error Code {code}: {error.get('message') or 'no message'} (provider: {self.model['provider']})"
        )

    def _failed(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        self.terminal = True
        response = event.get("response") or {}
        if response.get("status") is not None:
            self.output["rawStopReason"] = response["status"]
        error = response.get("error")
        details = response.get("incomplete_details") or {}
        if isinstance(error, dict):
            text = f"{error.get('code') or 'unknown'}: {error.get('message') or 'no message'}"
        elif isinstance(details, dict) and details.get("reason"):
            text = f"incomplete: {details['reason']}"
        else:
            text = "Unknown error (no error details in response)"
        raise ProviderError(f"{text} (provider: {self.model['provider']})")


_HANDLERS: dict[str, str] = {
    "response.created": "_created",
    "response.output_item.added": "_item_added",
    "response.reasoning_summary_text.delta": "_thinking_delta",
    "response.reasoning_text.delta": "_thinking_delta",
    "response.reasoning_summary_part.done": "_summary_part_done",
    "response.output_text.delta": "_text_delta",
    "response.refusal.delta": "_text_delta",
    "response.function_call_arguments.delta": "_args_delta",
    "response.function_call_arguments.done": "_args_done",
    "response.output_item.done": "_item_done",
    "response.completed": "_completed",
    "response.incomplete": "_completed",
    "response.done": "_completed",  # Codex's name for the terminal event
    "response.failed": "_failed",
    "error": "_error",
}


# One request of this API; see the module docstring for the contract.
stream = sse_stream(API, build_request, ResponsesParser, "responses-sdk")
