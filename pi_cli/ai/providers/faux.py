"""The faux provider: scripted assistant replies played back through the real stream protocol.

Tests register one with :func:`register_faux_provider`, which routes a fresh, unique ``api`` id to
it, and queue replies (FIFO, one per request). A reply is an :class:`AssistantMessage` (build it
with :func:`faux_assistant`, :func:`faux_text`, :func:`faux_thinking`, :func:`faux_tool_call`) or a
callable ``(context, options, call_index) -> AssistantMessage`` that may be async: a test controls
timing by having it await an ``asyncio.Event``. While such a callable is pending, an abort of the
request's signal ends the request at once with ``stopReason "aborted"``.

Playback emits ``start``, then per block ``*_start``, deltas of a few 4-character "tokens" and
``*_end``, then ``done`` (or ``error`` when the scripted reply has stopReason error/aborted). The
abort signal is checked before every chunk; an abort keeps the partial content and ends with an
``error`` event whose message has ``stopReason "aborted"``. Between chunks playback yields to the
event loop once, or sleeps ``chars / 4 / tokens_per_second`` seconds when pacing is set.
Usage is estimated as ceil(chars / 4) of the serialised prompt and reply; with a ``session_id``
prompt caching is simulated (shared prefix with the session's previous prompt → ``cacheRead``).

The offline demo model (api ``"faux"``) is :mod:`pi_cli.ai.providers.faux_demo`, built on these
builders.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

from pi_cli.ai import stream as stream_registry
from pi_cli.ai.event_stream import AssistantMessageEventStream
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.providers.faux_playback import (
    ABORTED_TEXT,
    Pacing,
    UsageEstimator,
    clone_reply,
    error_message_for,
    play,
    race_abort,
)
from pi_cli.ai.types import (
    AssistantContent,
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    empty_usage,
    now_ms,
)

FauxResponseFactory: TypeAlias = Callable[
    [Context, StreamOptions, int], "AssistantMessage | Awaitable[AssistantMessage]"
]
FauxResponse: TypeAlias = "AssistantMessage | FauxResponseFactory"

NO_MORE_RESPONSES = "No more faux responses queued"


# --- builders -------------------------------------------------------------------------------


def faux_text(text: str) -> TextContent:
    """A text block for a scripted reply."""
    return {"type": "text", "text": text}


def faux_thinking(thinking: str) -> ThinkingContent:
    """A thinking block for a scripted reply."""
    return {"type": "thinking", "thinking": thinking}


def faux_tool_call(name: str, args: dict[str, Any], id: str | None = None) -> ToolCall:
    """A toolCall block; without ``id`` a unique one is generated."""
    return {"type": "toolCall", "id": id or f"call_{uuid.uuid4().hex[:12]}", "name": name, "arguments": args}


def faux_assistant(
    content: str | AssistantContent | Sequence[AssistantContent],
    stop_reason: StopReason | None = None,
    error_message: str | None = None,
    response_id: str | None = None,
) -> AssistantMessage:
    """A scripted assistant reply. A string becomes one text block.

    ``stop_reason`` defaults to ``"toolUse"`` when the content holds a tool call, else ``"stop"``.
    ``api``/``provider``/``model`` are overwritten with the serving model's at playback time.
    """
    if isinstance(content, str):
        blocks: list[AssistantContent] = [faux_text(content)]
    elif isinstance(content, dict):
        blocks = [content]
    else:
        blocks = list(content)
    if stop_reason is None:
        stop_reason = "toolUse" if any(b["type"] == "toolCall" for b in blocks) else "stop"
    message: AssistantMessage = {
        "role": "assistant",
        "content": blocks,
        "api": "faux",
        "provider": "faux",
        "model": "faux-1",
        "usage": empty_usage(),
        "stopReason": stop_reason,
        "timestamp": now_ms(),
    }
    if error_message is not None:
        message["errorMessage"] = error_message
    if response_id is not None:
        message["responseId"] = response_id
    return message


def make_model(model_id: str, name: str, api: str, provider: str, reasoning: bool = False) -> Model:
    """A zero-cost local model record."""
    return {
        "id": model_id,
        "name": name,
        "api": api,
        "provider": provider,
        "baseUrl": "http://localhost:0",
        "reasoning": reasoning,
        "input": ["text", "image"],
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
        "contextWindow": 128_000,
        "maxTokens": 16_384,
    }


# --- the scripted provider ------------------------------------------------------------------


@dataclass(slots=True)
class FauxRequest:
    """One recorded request: what the loop sent."""

    model: Model
    context: Context
    options: StreamOptions


class FauxProvider:
    """A registered scripted provider. See the module docstring for the playback contract."""

    def __init__(
        self,
        api: str,
        provider: str,
        models: list[Model],
        pacing: Pacing,
    ) -> None:
        self.api = api
        self.provider = provider
        self.models = models
        self.pacing = pacing
        self.call_count = 0
        self.requests: list[FauxRequest] = []
        self._queue: list[FauxResponse] = []
        self._usage = UsageEstimator()

    @property
    def tokens_per_second(self) -> float | None:
        return self.pacing.tokens_per_second

    @tokens_per_second.setter
    def tokens_per_second(self, value: float | None) -> None:
        self.pacing.tokens_per_second = value

    def model(self, id: str | None = None) -> Model:
        """The first model, or the one named ``id`` (KeyError if unknown)."""
        if id is None:
            return self.models[0]
        for model in self.models:
            if model["id"] == id:
                return model
        raise KeyError(f"faux provider has no model {id!r}")

    def set_responses(self, responses: Sequence[FauxResponse]) -> None:
        self._queue = list(responses)

    def append_responses(self, responses: Sequence[FauxResponse]) -> None:
        self._queue.extend(responses)

    @property
    def pending_count(self) -> int:
        """Responses still queued."""
        return len(self._queue)

    def unregister(self) -> None:
        stream_registry.unregister_api(self.api)

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        """The registered stream function (never raises: failures become an ``error`` event)."""
        index = self.call_count
        self.call_count += 1
        recorded: Context = {**context, "messages": list(context["messages"])}
        self.requests.append(FauxRequest(model, recorded, options))
        step = self._queue.pop(0) if self._queue else None
        return AssistantMessageEventStream(self._run(step, model, context, options, index))

    async def _run(
        self, step: FauxResponse | None, model: Model, context: Context, options: StreamOptions, index: int
    ) -> AsyncIterator[AssistantMessageEvent]:
        signal = options.signal
        if step is None:
            yield {"type": "error", "reason": "error", "error": error_message_for(model, NO_MORE_RESPONSES)}
            return
        try:
            if callable(step):
                produced = step(context, options, index)
                if inspect.isawaitable(produced):
                    result = await race_abort(produced, signal)
                    if result is None:
                        yield {
                            "type": "error",
                            "reason": "aborted",
                            "error": error_message_for(model, ABORTED_TEXT, "aborted"),
                        }
                        return
                    produced = result
                reply = produced
            else:
                reply = step
            final = clone_reply(reply)
        except Exception as exc:  # a factory failing is a provider error, never a raise
            yield {"type": "error", "reason": "error", "error": error_message_for(model, str(exc) or repr(exc))}
            return
        final["api"], final["provider"], final["model"] = model["api"], model["provider"], model["id"]
        self._usage.apply(final, context, options.session_id)
        async for event in play(final, signal, self.pacing):
            yield event


def register_faux_provider(
    *,
    api: str | None = None,
    provider: str = "faux",
    models: Sequence[str | Model] | None = None,
    tokens_per_second: float | None = None,
    token_size: tuple[int, int] = (3, 5),
    responses: Sequence[FauxResponse] | None = None,
) -> FauxProvider:
    """Register a scripted provider under a unique api id (or ``api``) and return its handle.

    ``models`` are ids (or full Model dicts, whose api/provider are overwritten); default one model
    ``faux-1`` named "Faux Model". ``token_size`` is (min, max) tokens of 4 chars per chunk.
    Call ``unregister()`` when done.
    """
    api_id = api or f"faux-{uuid.uuid4().hex[:10]}"
    built: list[Model] = []
    for entry in models or ["faux-1"]:
        if isinstance(entry, str):
            name = "Faux Model" if entry == "faux-1" else entry
            built.append(make_model(entry, name, api_id, provider))
        else:
            built.append(cast(Model, {**entry, "api": api_id, "provider": provider}))
    low, high = token_size
    low = max(1, min(low, high))
    pacing = Pacing(tokens_per_second=tokens_per_second, token_size=(low, max(low, high)))
    handle = FauxProvider(api_id, provider, built, pacing)
    if responses:
        handle.set_responses(responses)
    stream_registry.register_api(api_id, handle.stream)
    return handle
