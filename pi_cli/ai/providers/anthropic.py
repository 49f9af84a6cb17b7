"""Anthropic messages provider (``api: "anthropic-messages"``) over httpx with our own SSE parsing.

Same contract as the OpenAI provider: ``stream()`` never raises, ``start`` once and first, one
terminal event, partial content kept on error/abort. Event handling (spec/ai-layer.md §2.3):

* ``message_start`` → response id and usage (input excludes cache; cost computed at once, so an
  early abort still reports input);
* ``content_block_start`` → text (initial text kept) / thinking / ``redacted_thinking`` (shown as
  ``[Reasoning redacted]``, data kept as the signature, ``redacted: true``) / ``tool_use``; each
  block remembers Anthropic's ``index``; deltas for an unknown index are dropped;
* ``content_block_delta`` → ``text_delta``, ``thinking_delta``, ``signature_delta`` (appended to the
  signature, no event), ``input_json_delta`` (best-effort arguments);
* ``content_block_stop`` → ``*_end``; ``message_delta`` → stop reason and usage fields that are not
  null; ``message_stop`` ends the stream; ``ping`` and unknown events are ignored;
* ``event: error`` mid-stream → error whose text contains the raw event (e.g. ``overloaded_error``);
* the body ending without ``message_stop`` → "Anthropic stream ended before message_stop".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

import httpx

from pi_cli.ai.event_stream import AssistantMessageEventStream
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.partial_json import StreamingArgs, repair_json
from pi_cli.ai.requests.anthropic import build_request, is_oauth_token
from pi_cli.ai.transport.http_client import ProviderError
from pi_cli.ai.transport.json_templates import TemplateDecoder
from pi_cli.ai.transport.provider_common import apply_cost, apply_reported_cost, is_openrouter
from pi_cli.ai.transport.provider_run import run_sse
from pi_cli.ai.transport.sse import SSEEvent
from pi_cli.ai.types import AssistantMessage, AssistantMessageEvent, Context, Model, StopReason

REDACTED_TEXT = "[Reasoning redacted]"
# Strings that change from one delta event to the next (see json_templates).
_HOLES = [
    ('"text":"', ("delta", "text")),
    ('"thinking":"', ("delta", "thinking")),
    ('"partial_json":"', ("delta", "partial_json")),
]
_MESSAGE_EVENTS = {
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
}


def map_stop_reason(reason: str) -> tuple[StopReason, str | None]:
    """pi's mapping of Anthropic's ``stop_reason``; the second item is an error message, if any."""
    if reason in ("end_turn", "stop_sequence", "pause_turn"):
        return "stop", None
    if reason == "max_tokens":
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    if reason in ("refusal", "sensitive"):
        return "error", f"Anthropic stop_reason: {reason}"
    return "error", f"Unhandled stop reason: {reason}"


class _Block:
    __slots__ = ("args", "block", "content_index", "open")

    def __init__(self, block: dict[str, Any], content_index: int) -> None:
        self.block = block
        self.content_index = content_index
        self.args: StreamingArgs | None = None
        self.open = True


class EventParser:
    """Applies decoded Anthropic events to ``output`` and returns stream events (an
    :class:`~pi_cli.ai.transport.provider_run.EventParser` for :func:`run_sse`)."""

    def __init__(self, output: AssistantMessage, model: Model, tool_names: dict[str, str] | None = None) -> None:
        self.output = output
        self.model = model
        # Lower-cased wire name → our tool's name, when tools went out renamed (subscription logins).
        self.tool_names = tool_names or {}
        self.content: list[Any] = output["content"]
        self.blocks: dict[int, _Block] = {}
        self.started = False
        self.stopped = False
        self.problem: str | None = None
        self._json = TemplateDecoder(_HOLES)

    # -- EventParser ------------------------------------------------------------------------

    def feed(self, sse: SSEEvent) -> list[AssistantMessageEvent]:
        name = sse.event
        if name == "error":
            raise ProviderError(f"{sse.data[:1000]} (provider: {self.model['provider']})")
        if name and name not in _MESSAGE_EVENTS:
            return []  # ping and unknown events
        data = _parse_event_data(name or "message", sse.data, self._json.loads)
        if not name and data.get("type") not in _MESSAGE_EVENTS:
            if data.get("type") == "error":
                raise ProviderError(f"{sse.data[:1000]} (provider: {self.model['provider']})")
            return []
        return self.handle(name, data)

    def complete(self) -> bool:
        return self.stopped

    def answered(self) -> bool:
        return False  # a body that breaks before message_stop is an error, even after the text

    def finish(self) -> list[AssistantMessageEvent]:
        provider = self.model["provider"]
        if not self.started:
            raise ProviderError(f"Anthropic stream ended without message_start (provider: {provider})")
        if not self.stopped:
            raise ProviderError(f"Anthropic stream ended before message_stop (provider: {provider})")
        return self.close_open_blocks()

    def stop_error(self) -> str | None:
        return self.problem

    def describe_failure(self, exc: Exception, message: str) -> str:
        if isinstance(exc, httpx.TransportError) and self.started and not self.stopped:
            return f"Anthropic stream ended before message_stop ({message})"
        return message

    # -- events -----------------------------------------------------------------------------

    def handle(self, name: str, data: dict[str, Any]) -> list[AssistantMessageEvent]:
        kind = data.get("type") or name
        if kind == "content_block_delta":
            return self._delta(data)
        if kind == "message_start":
            self._message_start(data.get("message") or {})
        elif kind == "content_block_start":
            return self._block_start(data)
        elif kind == "content_block_stop":
            return self._block_stop(data.get("index"))
        elif kind == "message_delta":
            reason = (data.get("delta") or {}).get("stop_reason")
            if reason:
                self.output["rawStopReason"] = reason
                self.output["stopReason"], self.problem = map_stop_reason(reason)
            self._usage(data.get("usage") or {})
        elif kind == "message_stop":
            self.stopped = True
        return []

    def _message_start(self, message: dict[str, Any]) -> None:
        self.started = True
        if message.get("id"):
            self.output["responseId"] = message["id"]
        if message.get("model") and message["model"] != self.model["id"]:
            self.output["responseModel"] = message["model"]
        raw = message.get("usage") or {}
        long_write = (raw.get("cache_creation") or {}).get("ephemeral_1h_input_tokens")
        self.output["usage"]["cacheWrite1h"] = int(long_write or 0)  # pi 1.6 always records it here
        self._usage(raw)

    def _usage(self, raw: dict[str, Any]) -> None:
        usage = self.output["usage"]
        for wire, ours in (
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_input_tokens", "cacheRead"),
            ("cache_creation_input_tokens", "cacheWrite"),
        ):
            value = raw.get(wire)
            if value is not None:
                usage[ours] = int(value)  # type: ignore[literal-required]
        long_write = (raw.get("cache_creation") or {}).get("ephemeral_1h_input_tokens")
        if long_write is not None:
            usage["cacheWrite1h"] = int(long_write)
        thinking = (raw.get("output_tokens_details") or {}).get("thinking_tokens")
        if thinking is not None:  # reported only by some (a subset of output_tokens)
            usage["reasoning"] = int(thinking)
        apply_cost(self.model, usage)
        if raw and is_openrouter(self.model):
            apply_reported_cost(usage, raw)

    def _block_start(self, data: dict[str, Any]) -> list[AssistantMessageEvent]:
        raw = data.get("content_block") or {}
        kind = raw.get("type")
        block: dict[str, Any]
        event: Literal["text_start", "thinking_start", "toolcall_start"]
        if kind == "text":
            block, event = {"type": "text", "text": raw.get("text") or ""}, "text_start"
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": raw.get("thinking") or "", "thinkingSignature": ""}
            event = "thinking_start"
        elif kind == "redacted_thinking":
            block = {
                "type": "thinking",
                "thinking": REDACTED_TEXT,
                "thinkingSignature": raw.get("data") or "",
                "redacted": True,
            }
            event = "thinking_start"
        elif kind == "tool_use":
            block = {
                "type": "toolCall",
                "id": raw.get("id") or "",
                "name": self._tool_name(raw.get("name") or ""),
                "arguments": raw.get("input") if isinstance(raw.get("input"), dict) else {},
            }
            event = "toolcall_start"
        else:
            return []
        state = _Block(block, len(self.content))
        if kind == "tool_use":
            state.args = StreamingArgs()
        self.blocks[data.get("index", len(self.content))] = state
        self.content.append(block)
        return [{"type": event, "contentIndex": state.content_index, "partial": self.output}]

    def _tool_name(self, name: str) -> str:
        return self.tool_names.get(name.lower(), name) if self.tool_names else name

    def _delta(self, data: dict[str, Any]) -> list[AssistantMessageEvent]:
        state = self.blocks.get(data.get("index", -1))
        delta = data.get("delta") or {}
        if state is None:
            return []
        kind = delta.get("type")
        block = state.block
        if kind == "text_delta" and block["type"] == "text":
            text = delta.get("text") or ""
            grown = block.pop("text")
            grown += text
            block["text"] = grown
            return [{"type": "text_delta", "contentIndex": state.content_index, "delta": text, "partial": self.output}]
        if kind == "thinking_delta" and block["type"] == "thinking":
            text = delta.get("thinking") or ""
            grown = block.pop("thinking")
            grown += text
            block["thinking"] = grown
            return [
                {"type": "thinking_delta", "contentIndex": state.content_index, "delta": text, "partial": self.output}
            ]
        if kind == "signature_delta" and block["type"] == "thinking":
            block["thinkingSignature"] = block.get("thinkingSignature", "") + (delta.get("signature") or "")
            return []
        if kind == "input_json_delta" and state.args is not None:
            fragment = delta.get("partial_json") or ""
            state.args.append(fragment)
            block["arguments"] = state.args.update()
            return [
                {
                    "type": "toolcall_delta",
                    "contentIndex": state.content_index,
                    "delta": fragment,
                    "partial": self.output,
                }
            ]
        return []

    def _block_stop(self, index: Any) -> list[AssistantMessageEvent]:
        state = self.blocks.get(index)
        if state is None or not state.open:
            return []
        return [self._end(state)]

    def _end(self, state: _Block) -> AssistantMessageEvent:
        state.open = False
        block = state.block
        if block["type"] == "text":
            return {
                "type": "text_end",
                "contentIndex": state.content_index,
                "content": block["text"],
                "partial": self.output,
            }
        if block["type"] == "thinking":
            return {
                "type": "thinking_end",
                "contentIndex": state.content_index,
                "content": block["thinking"],
                "partial": self.output,
            }
        if state.args is not None and state.args.text:
            block["arguments"] = state.args.final()
        return {
            "type": "toolcall_end",
            "contentIndex": state.content_index,
            "toolCall": block,  # type: ignore[typeddict-item]
            "partial": self.output,
        }

    def close_open_blocks(self) -> list[AssistantMessageEvent]:
        return [self._end(state) for state in self.blocks.values() if state.open]

    def finalize_args(self) -> None:
        for state in self.blocks.values():
            if state.args is not None and state.args.text:
                state.block["arguments"] = state.args.final()


def _parse_event_data(name: str, data: str, loads: Callable[[str], Any] = json.loads) -> dict[str, Any]:
    try:
        value = loads(data)
    except ValueError:
        try:
            value = json.loads(repair_json(data), strict=False)
        except ValueError as exc:
            raise ProviderError(f"Could not parse Anthropic SSE event {name}: {exc}: {data[:200]}") from None
    if not isinstance(value, dict):
        raise ProviderError(f"Could not parse Anthropic SSE event {name}: not an object: {data[:200]}")
    return value


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    """Stream one messages request; see the module docstring for the contract."""
    options = options or StreamOptions()
    renamed = is_oauth_token(options.api_key)
    names = {t["name"].lower(): t["name"] for t in context.get("tools") or []} if renamed else None

    def make_parser(output: AssistantMessage, model: Model) -> EventParser:
        return EventParser(output, model, names)

    return AssistantMessageEventStream(
        run_sse(
            model,
            context,
            options,
            api="anthropic-messages",
            build_request=build_request,
            error_style="anthropic-sdk",
            make_parser=make_parser,
        )
    )
