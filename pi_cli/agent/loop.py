"""The two-loop agent (pi's ``agent-loop``, version "A" of spec/agent-core.md §2–§4).

The inner loop runs model call → tool batch → steering poll; the outer loop exists only for
follow-up messages, polled when the inner loop would stop. Everything the run produces is reported
through ``emit`` (awaited, so a consumer is a barrier) as pi-shaped event dicts.

Entry points: :func:`run_agent_loop` / :func:`run_agent_loop_continue` drive a sink and return the
new messages; :func:`agent_loop` / :func:`agent_loop_continue` return an :class:`AgentEventStream`
to iterate instead.

Where we differ from pi (documented, tested):

* ``continue`` never mutates the caller's message list (pi's shallow copy aliases it).
* Abort between turns: once the signal is aborted after a tool batch, the run ends as pi's does,
  with one more turn whose assistant message is ``aborted`` ("Request was aborted") — but that
  turn sends no request, and no hook or queue poll runs, so queued messages stay queued. After a
  tool-less turn the run simply ends (pi would poll the queues and start an aborted request).
* ``max_turns``: after that many model calls, if the run would go on (more tool results to
  answer, or messages queued according to ``has_queued_messages``), it ends after the current
  turn's ``turn_end`` with ``agent_end`` carrying an extra field ``reason: "max_turns"``. Queues
  are not polled, so nothing queued is consumed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any, cast

from pi_cli.agent.tool_exec import AfterHook, BeforeHook, execute_tool_calls, fail_truncated_tool_calls, resolve
from pi_cli.agent.types import AgentContext, AgentEvent, AgentEventSink, AgentMessage, NextTurnUpdate, TurnContext
from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.transport.provider_common import new_output
from pi_cli.ai.types import AssistantMessage, Context, Model, Tool, ToolCall

StreamFn = Callable[[Model, Context, StreamOptions], Any]  # returns a stream (or an awaitable of one)
_LLM_ROLES = frozenset(("user", "assistant", "toolResult"))


def default_convert_to_llm(messages: list[AgentMessage]) -> list[Any]:
    """Keep the three LLM roles; custom messages (notifications, bash runs …) are dropped."""
    return [m for m in messages if m.get("role") in _LLM_ROLES]


class LlmMessageFilter:
    """:func:`default_convert_to_llm` that remembers its previous call.

    A run converts a transcript that only grew since the last request, so when the previous
    input is a prefix of this one (checked at C speed: list equality tests identity first) only
    the new tail is filtered. Same result as the plain function; one instance per agent/config.
    """

    __slots__ = ("_input", "_output")

    def __init__(self) -> None:
        self._input: list[AgentMessage] = []
        self._output: list[Any] = []

    def __call__(self, messages: list[AgentMessage]) -> list[Any]:
        count = len(self._input)
        if count and len(messages) >= count and messages[count - 1] is self._input[-1]:
            if messages[:count] == self._input:
                output = self._output + default_convert_to_llm(messages[count:])
            else:
                output = default_convert_to_llm(messages)
        else:
            output = default_convert_to_llm(messages)
        self._input = list(messages)
        self._output = output
        return list(output)  # the caller may keep or change its list; ours stays intact


@dataclass(slots=True)
class AgentLoopConfig:
    """Everything one run needs besides the context. Hooks may be sync or async.

    ``stream_options`` is the per-request template: the loop fills in ``api_key`` (from
    ``get_api_key(provider)``, falling back to the template's) and ``signal`` on every call;
    ``reasoning`` is the thinking level (None = off) and ``session_id`` is forwarded as is.
    """

    model: Model
    convert_to_llm: Callable[[list[AgentMessage]], Any] = field(default_factory=LlmMessageFilter)
    transform_context: Callable[[list[AgentMessage], AbortSignal | None], Any] | None = None
    get_api_key: Callable[[str], Any] | None = None
    should_stop_after_turn: Callable[[TurnContext], Any] | None = None
    prepare_next_turn: Callable[[TurnContext], Any] | None = None  # -> NextTurnUpdate | None
    get_steering_messages: Callable[[], Any] | None = None
    get_follow_up_messages: Callable[[], Any] | None = None
    has_queued_messages: Callable[[], bool] | None = None  # only consulted by max_turns
    tool_execution: str = "parallel"
    before_tool_call: BeforeHook | None = None
    after_tool_call: AfterHook | None = None
    stream_options: StreamOptions = field(default_factory=StreamOptions)
    max_turns: int | None = None


def _default_stream_fn() -> StreamFn:
    from pi_cli.ai.stream import stream

    return cast(StreamFn, stream)


def _tool_defs(context: AgentContext) -> list[Tool]:
    return [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in context.tools]


async def stream_assistant_response(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: AgentEventSink,
    stream_fn: StreamFn,
) -> AssistantMessage:
    """One model call; the partial lives in ``context.messages`` while it streams (spec §2.3)."""
    messages = context.messages
    if config.transform_context is not None:
        messages = await resolve(config.transform_context(messages, signal))
    llm_messages = await resolve(config.convert_to_llm(messages))
    llm_context: Context = {"systemPrompt": context.system_prompt, "messages": llm_messages}
    if context.tools:
        llm_context["tools"] = _tool_defs(context)
    template = config.stream_options
    api_key = None
    if config.get_api_key is not None:
        api_key = await resolve(config.get_api_key(config.model["provider"]))
    options = replace(
        template,
        api_key=api_key or template.api_key,
        signal=signal,
        max_tokens=template.max_tokens or _default_max_tokens(config.model),
    )
    response = await resolve(stream_fn(config.model, llm_context, options))

    transcript = context.messages
    partial: AssistantMessage | None = None
    final: AssistantMessage | None = None
    open_blocks: dict[int, str] = {}  # contentIndex → block kind, between *_start and *_end
    async for event in response:
        kind = event["type"]
        if kind == "start":
            partial = event["partial"]
            transcript.append(partial)
            await emit({"type": "message_start", "message": {**partial}})
        elif kind == "done":
            final = event["message"]
        elif kind == "error":
            final = event["error"]
        elif partial is not None:  # content events count only after ``start``
            partial = event["partial"]
            transcript[-1] = partial
            opens = _BLOCK_EVENTS.get(kind)  # None for the deltas, the bulk of the events
            if opens is not None:
                _track_block(open_blocks, event, *opens)
            await emit({"type": "message_update", "message": {**partial}, "assistantMessageEvent": event})
    if final is None:
        final = await response.result()
    assert final is not None
    # pi 1.6 records the thinking level the request was made with on the finished message.
    # (A virtual model's router records the physical model's level itself: kept.)
    final.setdefault("thinkingLevel", options.reasoning or "off")
    if final.get("stopReason") == "aborted" and open_blocks and partial is not None:
        # As pi: an aborted block still gets its *_end (with the partial content) before message_end.
        for index, block_kind in sorted(open_blocks.items()):
            closing = _block_end(block_kind, index, final)
            if closing is not None:
                await emit({"type": "message_update", "message": {**final}, "assistantMessageEvent": closing})
    if partial is not None:
        transcript[-1] = final
    else:
        transcript.append(final)
        await emit({"type": "message_start", "message": {**final}})
    await emit({"type": "message_end", "message": final})
    return final


# A block's start and end events → (block kind, True when it opens the block).
_BLOCK_EVENTS: dict[str, tuple[str, bool]] = {
    f"{block}_{phase}": (block, phase == "start")
    for block in ("text", "thinking", "toolcall")
    for phase in ("start", "end")
}


def _track_block(open_blocks: dict[int, str], event: Any, block: str, opens: bool) -> None:
    index = event.get("contentIndex")
    if not isinstance(index, int):
        return
    if opens:
        open_blocks[index] = block
    else:
        open_blocks.pop(index, None)


def _block_end(block: str, index: int, message: AssistantMessage) -> Any:
    """The ``*_end`` event that closes content block ``index`` of ``message`` (None if it is gone)."""
    content = message.get("content") or []
    if index >= len(content):
        return None
    item: Any = content[index]
    if block == "toolcall":
        return {"type": "toolcall_end", "contentIndex": index, "toolCall": item, "partial": message}
    text = item.get("text", "") if block == "text" else item.get("thinking", "")
    return {"type": f"{block}_end", "contentIndex": index, "content": text, "partial": message}


def aborted_reply(model: Model, reasoning: str | None = None) -> AssistantMessage:
    """The assistant message of a turn whose request an abort stopped before it was sent.

    pi 1.6 makes that request and its already-aborted signal fails it at once, so the message
    carries the AbortError's text, a ``durationMs`` of about nothing and the thinking level.
    """
    reply = new_output(model)
    reply["stopReason"] = "aborted"
    reply["errorMessage"] = "This operation was aborted"
    reply["durationMs"] = 0
    reply["thinkingLevel"] = reasoning or "off"
    return reply


# pi's agent calls streamSimple, which asks for min(model.maxTokens, 32000) output tokens unless told.
MAX_TOKENS_CAP = 32_000


def _default_max_tokens(model: Any) -> int | None:
    limit = model.get("maxTokens") if isinstance(model, dict) else None
    return min(limit, MAX_TOKENS_CAP) if isinstance(limit, int) and limit > 0 else None


async def _poll(getter: Callable[[], Any] | None) -> list[AgentMessage]:
    if getter is None:
        return []
    return list(await resolve(getter()) or [])


async def run_loop(
    context: AgentContext,
    new_messages: list[AgentMessage],
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: AgentEventSink,
    stream_fn: StreamFn,
) -> None:
    """The inner/outer loop of spec §2.2 (plus our abort and ``max_turns`` rules, see module doc)."""
    first = True
    turns = 0
    pending = await _poll(config.get_steering_messages)
    while True:
        more_tools = True
        while more_tools or pending:
            if first:
                first = False
            else:
                await emit({"type": "turn_start"})
            for message in pending:
                await emit({"type": "message_start", "message": message})
                await emit({"type": "message_end", "message": message})
                context.messages.append(message)
                new_messages.append(message)
            pending = []

            reply = await stream_assistant_response(context, config, signal, emit, stream_fn)
            turns += 1
            new_messages.append(reply)
            if reply["stopReason"] == "error" or reply["stopReason"] == "aborted":
                await emit({"type": "turn_end", "message": reply, "toolResults": []})
                await emit({"type": "agent_end", "messages": new_messages})
                return

            calls: list[ToolCall] = [b for b in reply["content"] if b["type"] == "toolCall"]
            results: list[Any] = []
            more_tools = False
            if calls:
                if reply["stopReason"] == "length":
                    batch = await fail_truncated_tool_calls(calls, emit)
                else:
                    batch = await execute_tool_calls(
                        context,
                        reply,
                        calls,
                        mode=config.tool_execution,
                        before=config.before_tool_call,
                        after=config.after_tool_call,
                        signal=signal,
                        emit=emit,
                    )
                results = batch.messages
                more_tools = not batch.terminate
                context.messages.extend(results)
                new_messages.extend(results)
            await emit({"type": "turn_end", "message": reply, "toolResults": results})

            if signal is not None and signal.aborted and not calls:  # no request after an abort
                await emit({"type": "agent_end", "messages": new_messages})
                return
            if signal is not None and signal.aborted:
                # pi ends an aborted batch with one more turn whose request the abort stops at once,
                # so the run's last message says "aborted". We make that turn without any request,
                # and without polling the queues: queued messages stay queued (never lost).
                await emit({"type": "turn_start"})
                reply = aborted_reply(config.model, config.stream_options.reasoning)
                context.messages.append(reply)
                new_messages.append(reply)
                await emit({"type": "message_start", "message": {**reply}})
                await emit({"type": "message_end", "message": reply})
                await emit({"type": "turn_end", "message": reply, "toolResults": []})
                await emit({"type": "agent_end", "messages": new_messages})
                return

            if config.prepare_next_turn is not None or config.should_stop_after_turn is not None:
                turn = TurnContext(reply, results, context, new_messages)
                if config.prepare_next_turn is not None:
                    update = await resolve(config.prepare_next_turn(turn))
                    if update is not None:
                        context, config = _apply_update(update, context, config)
                        turn = TurnContext(reply, results, context, new_messages)
                if config.should_stop_after_turn is not None and await resolve(config.should_stop_after_turn(turn)):
                    await emit({"type": "agent_end", "messages": new_messages})
                    return

            if config.max_turns is not None and turns >= config.max_turns:
                queued = config.has_queued_messages is not None and config.has_queued_messages()
                if more_tools or queued:
                    await emit({"type": "agent_end", "messages": new_messages, "reason": "max_turns"})
                    return
                break  # nothing would follow anyway; skip the polls
            pending = await _poll(config.get_steering_messages)
        else:  # the inner loop ran dry: only follow-ups can restart it
            follow_ups = await _poll(config.get_follow_up_messages)
            if follow_ups:
                pending = follow_ups
                continue
        break
    await emit({"type": "agent_end", "messages": new_messages})


def _apply_update(
    update: NextTurnUpdate | dict[str, Any], context: AgentContext, config: AgentLoopConfig
) -> tuple[AgentContext, AgentLoopConfig]:
    get = update.get if isinstance(update, dict) else lambda key: getattr(update, key, None)
    new_context = get("context") or context
    model = get("model")
    level = get("thinking_level") if not isinstance(update, dict) else update.get("thinkingLevel")
    if model is None and level is None:
        return new_context, config
    options = config.stream_options
    if level is not None:
        options = replace(options, reasoning=None if level == "off" else level)
    return new_context, replace(config, model=model or config.model, stream_options=options)


async def run_agent_loop(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    emit: AgentEventSink,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> list[AgentMessage]:
    """Start a run with ``prompts``; the caller's context is not modified. Returns the new messages."""
    new_messages: list[AgentMessage] = list(prompts)
    current = AgentContext(context.system_prompt, [*context.messages, *prompts], list(context.tools))
    await emit({"type": "agent_start"})
    await emit({"type": "turn_start"})
    for prompt in prompts:
        await emit({"type": "message_start", "message": prompt})
        await emit({"type": "message_end", "message": prompt})
    await run_loop(current, new_messages, config, signal, emit, stream_fn or _default_stream_fn())
    return new_messages


def check_continuable(context: AgentContext) -> None:
    """Raise pi's errors for a context a run cannot continue from."""
    if not context.messages:
        raise ValueError("Cannot continue: no messages in context")
    if context.messages[-1].get("role") == "assistant":
        raise ValueError("Cannot continue from message role: assistant")


async def run_agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    emit: AgentEventSink,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> list[AgentMessage]:
    """Continue from the context's last (non-assistant) message without adding one.

    Unlike pi, the caller's message list is copied, never mutated.
    """
    check_continuable(context)
    new_messages: list[AgentMessage] = []
    current = AgentContext(context.system_prompt, list(context.messages), list(context.tools))
    await emit({"type": "agent_start"})
    await emit({"type": "turn_start"})
    await run_loop(current, new_messages, config, signal, emit, stream_fn or _default_stream_fn())
    return new_messages


_END = object()


class AgentEventStream:
    """Events of a run as an async iterator, plus ``await result()`` for the new messages.

    Pushing never waits for the consumer (no backpressure, as in pi). If the run raises, the
    exception is re-raised to the iterating consumer after the events already queued.
    """

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[list[AgentMessage]] | None = None

    async def push(self, event: AgentEvent) -> None:
        self._queue.put_nowait(event)

    def _start(self, coro: Any) -> AgentEventStream:
        self._task = asyncio.ensure_future(coro)
        self._task.add_done_callback(lambda _t: self._queue.put_nowait(_END))
        return self

    def __aiter__(self) -> AsyncIterator[AgentEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[AgentEvent]:
        while True:
            item = await self._queue.get()
            if item is _END:
                assert self._task is not None
                if not self._task.cancelled() and self._task.exception() is not None:
                    raise cast(BaseException, self._task.exception())
                return
            yield item

    async def result(self) -> list[AgentMessage]:
        assert self._task is not None
        return await self._task


def agent_loop(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> AgentEventStream:
    """:func:`run_agent_loop` as an event stream (must be called with a running event loop)."""
    stream = AgentEventStream()
    return stream._start(run_agent_loop(prompts, context, config, stream.push, signal, stream_fn))


def agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> AgentEventStream:
    """:func:`run_agent_loop_continue` as an event stream; raises at once if nothing to continue."""
    check_continuable(context)
    stream = AgentEventStream()
    return stream._start(run_agent_loop_continue(context, config, stream.push, signal, stream_fn))
