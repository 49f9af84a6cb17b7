"""OpenAI chat completions provider (``api: "openai-completions"``) over httpx with our own SSE parsing.

``stream(model, context, options)`` returns an :class:`AssistantMessageEventStream` and never
raises: HTTP errors, broken connections, malformed chunks, timeouts and aborts end in one terminal
``error`` event (stopReason ``error``/``aborted``, partial content kept). ``start`` is emitted
exactly once, first, before the request is sent.

Chunk handling follows pi (see spec/ai-layer.md §2.2): one text block and one thinking block at
most (later text appends to the text block), tool calls keyed by ``index`` (then ``id``, then the
last open call), arguments re-parsed best-effort with a throttle, usage from the ``choices: []``
chunk or ``choices[0].usage``, a stream with no ``finish_reason`` is an error unless the compat flag
``supportsFinishReason`` is false. The hot path per text chunk is one string scan (the chunk repeats
the previous one but for its text, see :mod:`~pi_cli.ai.transport.json_templates`), a few dict
reads, an in-place string append and one event dict.
"""

from __future__ import annotations

import json
from typing import Any

from pi_cli.ai.partial_json import StreamingArgs
from pi_cli.ai.requests.openai_compat import resolve_compat
from pi_cli.ai.requests.openai_completions import build_request
from pi_cli.ai.transport.http_client import ProviderError
from pi_cli.ai.transport.http_errors import format_stream_error
from pi_cli.ai.transport.json_templates import TemplateDecoder
from pi_cli.ai.transport.provider_common import apply_cost, apply_reported_cost, is_openrouter, new_usage
from pi_cli.ai.transport.provider_run import sse_stream
from pi_cli.ai.transport.sse import SSEEvent
from pi_cli.ai.types import AssistantMessage, AssistantMessageEvent, Model, StopReason

_REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
# Strings that change from one chunk to the next (see json_templates): text first, the hot path.
_HOLES = [
    ('"content":"', ("choices", 0, "delta", "content")),
    *((f'"{name}":"', ("choices", 0, "delta", name)) for name in _REASONING_FIELDS),
    ('"arguments":"', ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")),
]


def map_finish_reason(reason: str) -> tuple[StopReason, str | None]:
    """pi's mapping; unknown reasons are errors naming the raw value."""
    if reason in ("stop", "end"):
        return "stop", None
    if reason == "length":
        return "length", None
    if reason in ("tool_calls", "function_call"):
        return "toolUse", None
    return "error", f"Provider finish_reason: {reason}"


def _as_text(content: Any) -> str:
    """Text of a ``content`` that arrived as a list of parts (or another non-string shape)."""
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


class _ToolState:
    __slots__ = ("args", "block", "index")

    def __init__(self, block: dict[str, Any], index: int) -> None:
        self.block = block
        self.index = index
        self.args = StreamingArgs()


class ChunkParser:
    """Turns chunks into events, filling ``output`` in place (an
    :class:`~pi_cli.ai.transport.provider_run.EventParser` for :func:`run_sse`)."""

    def __init__(self, output: AssistantMessage, model: Model) -> None:
        self.output = output
        self.model = model
        self.done = False  # ``data: [DONE]`` arrived
        self._json = TemplateDecoder(_HOLES)
        self.content: list[Any] = output["content"]
        self.text_block: dict[str, Any] | None = None
        self.text_index = -1
        self.thinking_block: dict[str, Any] | None = None
        self.thinking_index = -1
        self.thinking_field = ""
        self.tools_by_index: dict[Any, _ToolState] = {}
        self.tools_by_id: dict[str, _ToolState] = {}
        self.last_tool: _ToolState | None = None
        self.tools: list[_ToolState] = []
        self.finish_reason: str | None = None
        self.finish_error: str | None = None

    # -- EventParser ------------------------------------------------------------------------

    def feed(self, sse: SSEEvent) -> list[AssistantMessageEvent]:
        data = sse.data
        if self.done or not data:
            return []
        if data == "[DONE]":
            self.done = True
            return []
        chunk = self.decode(data)
        return self.feed_chunk(chunk) if isinstance(chunk, dict) else []

    def decode(self, data: str) -> Any:
        """One event's JSON (the object may be reused for the next event: see json_templates)."""
        try:
            return self._json.loads(data)
        except ValueError as exc:
            raise ProviderError(
                f"Could not parse SSE chunk from {self.model['provider']}: {exc}: {data[:200]}"
            ) from None

    def complete(self) -> bool:
        return self.done

    def answered(self) -> bool:
        return self.finish_reason is not None  # a break after the answer keeps the answer

    def finish(self) -> list[AssistantMessageEvent]:
        if self.finish_reason is None and resolve_compat(self.model)["supportsFinishReason"]:
            raise ProviderError(f"Stream ended without finish_reason (provider: {self.model['provider']})")
        return self.end_events()

    def stop_error(self) -> str | None:
        return self.finish_error

    def describe_failure(self, exc: Exception, message: str) -> str:
        return message

    # -- chunks -----------------------------------------------------------------------------

    def feed_chunk(self, chunk: dict[str, Any]) -> list[AssistantMessageEvent]:
        """Apply one parsed chunk object."""
        output = self.output
        events: list[AssistantMessageEvent] = []
        if chunk.get("error"):
            raise ProviderError(format_stream_error(chunk["error"], self.model["provider"]))
        if "responseId" not in output and chunk.get("id"):
            output["responseId"] = chunk["id"]
            reported = chunk.get("model")
            if reported and reported != self.model["id"]:
                output["responseModel"] = reported
        choices = chunk.get("choices")
        choice = choices[0] if choices else None
        usage = chunk.get("usage") or (choice.get("usage") if choice else None)
        if usage:
            self._usage(usage)
        if not choice:
            return events
        finish = choice.get("finish_reason")
        if finish:
            self.finish_reason = finish
            output["rawStopReason"] = finish
            output["stopReason"], self.finish_error = map_finish_reason(finish)
        delta = choice.get("delta")
        if not delta:
            return events
        text = delta.get("content")
        if text and type(text) is not str:
            text = _as_text(text)
        if text:
            block = self.text_block
            if block is None:
                block = self.text_block = {"type": "text", "text": ""}
                self.text_index = len(self.content)
                self.content.append(block)
                events.append({"type": "text_start", "contentIndex": self.text_index, "partial": output})
            grown = block.pop("text")  # pop first: the append below then resizes the string in place
            grown += text
            block["text"] = grown
            events.append({"type": "text_delta", "contentIndex": self.text_index, "delta": text, "partial": output})
        if len(delta) > 1 or text is None:
            self._rest(delta, events)
        return events

    def _rest(self, delta: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        output = self.output
        field = self.thinking_field
        reasoning = delta.get(field) if field else None
        if not reasoning and not field:
            for name in _REASONING_FIELDS:
                if delta.get(name) and isinstance(delta[name], str):
                    field, reasoning = name, delta[name]
                    break
        if reasoning and isinstance(reasoning, str):
            block = self.thinking_block
            if block is None:
                block = self.thinking_block = {"type": "thinking", "thinking": "", "thinkingSignature": field}
                self.thinking_field = field
                self.thinking_index = len(self.content)
                self.content.append(block)
                events.append({"type": "thinking_start", "contentIndex": self.thinking_index, "partial": output})
            grown = block.pop("thinking")
            grown += reasoning
            block["thinking"] = grown
            events.append(
                {"type": "thinking_delta", "contentIndex": self.thinking_index, "delta": reasoning, "partial": output}
            )
        calls = delta.get("tool_calls")
        if calls:
            for call in calls:
                self._tool_call(call, events)
        details = delta.get("reasoning_details")
        if isinstance(details, list):
            for detail in details:
                if isinstance(detail, dict) and detail.get("type") == "reasoning.encrypted":
                    state = self.tools_by_id.get(detail.get("id") or "")
                    if state is not None:
                        state.block["thoughtSignature"] = json.dumps(detail)

    def _tool_call(self, call: dict[str, Any], events: list[AssistantMessageEvent]) -> None:
        index = call.get("index")
        call_id = call.get("id")
        state = self.tools_by_index.get(index) if index is not None else None
        if state is None and call_id:
            state = self.tools_by_id.get(call_id)
        if state is None and index is None and not call_id:
            state = self.last_tool
        function = call.get("function") or {}
        if state is None:
            block: dict[str, Any] = {
                "type": "toolCall",
                "id": call_id or "",
                "name": function.get("name") or "",
                "arguments": {},
            }
            state = _ToolState(block, len(self.content))
            self.tools.append(state)
            self.content.append(block)
            if index is not None:
                self.tools_by_index[index] = state
            if call_id:
                self.tools_by_id[call_id] = state
            events.append({"type": "toolcall_start", "contentIndex": state.index, "partial": self.output})
        else:
            if call_id and not state.block["id"]:
                state.block["id"] = call_id
                self.tools_by_id[call_id] = state
            if function.get("name") and not state.block["name"]:
                state.block["name"] = function["name"]
        self.last_tool = state
        fragment = function.get("arguments") or ""
        if type(fragment) is not str:  # some servers send the arguments already parsed
            fragment = json.dumps(fragment, ensure_ascii=False)
        if fragment:
            state.args.append(fragment)
            state.block["arguments"] = state.args.update()
        events.append(
            {"type": "toolcall_delta", "contentIndex": state.index, "delta": fragment, "partial": self.output}
        )

    def _usage(self, raw: dict[str, Any]) -> None:
        details = raw.get("prompt_tokens_details") or {}
        cache_read = int(details.get("cached_tokens") or raw.get("prompt_cache_hit_tokens") or 0)
        cache_write = int(details.get("cache_write_tokens") or 0)
        if cache_write > 0:
            cache_read = max(0, cache_read - cache_write)
        completion = raw.get("completion_tokens_details") or {}
        usage = new_usage(  # a new object, as pi 1.6 makes one per usage chunk
            max(0, int(raw.get("prompt_tokens") or 0) - cache_read - cache_write),
            int(raw.get("completion_tokens") or 0),
            cache_read,
            cache_write,
            int(completion.get("reasoning_tokens") or raw.get("reasoning_tokens") or 0),
            0,  # apply_cost sums it
        )
        apply_cost(self.model, usage)
        if is_openrouter(self.model):
            apply_reported_cost(usage, raw)
        self.output["usage"] = usage

    def finalize_args(self) -> None:
        """Final parse of every tool call's arguments (also used on failure, without events)."""
        for state in self.tools:
            state.block["arguments"] = state.args.final()

    def end_events(self) -> list[AssistantMessageEvent]:
        """``*_end`` for every block, in content order."""
        events: list[AssistantMessageEvent] = []
        tools = {state.index: state for state in self.tools}
        for position, block in enumerate(self.content):
            kind = block["type"]
            if kind == "text":
                events.append(
                    {"type": "text_end", "contentIndex": position, "content": block["text"], "partial": self.output}
                )
            elif kind == "thinking":
                events.append(
                    {
                        "type": "thinking_end",
                        "contentIndex": position,
                        "content": block["thinking"],
                        "partial": self.output,
                    }
                )
            else:
                state = tools.get(position)
                if state is not None:
                    block["arguments"] = state.args.final()
                events.append(
                    {"type": "toolcall_end", "contentIndex": position, "toolCall": block, "partial": self.output}
                )
        return events


# One request of this API; see the module docstring for the contract.
stream = sse_stream("openai-completions", build_request, ChunkParser, "openai-sdk")
