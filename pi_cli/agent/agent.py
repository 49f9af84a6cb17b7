"""The stateful :class:`Agent` around the loop (pi's ``Agent``, spec/agent-core.md §5).

It owns the transcript and queues, runs one loop at a time, and turns every loop event into
(1) a state update (the reducer) and then (2) a call to each subscribed listener, awaited in
subscription order. Events are therefore a barrier: when ``before_tool_call`` runs,
``agent.state.messages[-1]`` is already the assistant message; ``prompt()``/``continue_()``
resolve, and ``is_streaming`` turns False, only after the ``agent_end`` listeners finished.

Beyond pi (see :mod:`pi_cli.agent.loop` for the loop side):

* ``abort()`` never drops queued messages: whatever the run did not admit stays in
  ``steering_queue``/``follow_up_queue``, and ``clear_all_queues()`` hands it back (e.g. to put
  into the editor).
* ``max_turns`` caps model calls per run; a capped run's ``agent_end`` has ``reason: "max_turns"``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol, cast, runtime_checkable

from pi_cli.agent.hooks import NO_HOOKS, AgentHooks, chain_after, chain_before, chain_context, chain_next_turn
from pi_cli.agent.loop import (
    AgentLoopConfig,
    LlmMessageFilter,
    StreamFn,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_cli.agent.queues import MessageQueue, check_mode
from pi_cli.agent.tool_exec import AfterHook, BeforeHook, exception_text, resolve
from pi_cli.agent.types import AgentContext, AgentEvent, AgentMessage, AgentTool, QueueMode, TurnContext
from pi_cli.ai.abort import AbortController, AbortSignal
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.types import AssistantMessage, ImageContent, Model, ThinkingLevel, empty_usage, now_ms

Listener = Callable[[AgentEvent, AbortSignal | None], Any]

PLACEHOLDER_MODEL: Model = {
    "id": "unknown",
    "name": "unknown",
    "api": "unknown",
    "provider": "unknown",
    "baseUrl": "",
    "reasoning": False,
    "input": ["text"],
    "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
    "contextWindow": 0,
    "maxTokens": 0,
}

BUSY_PROMPT = (
    "Agent is already processing a prompt. Use steer() or follow_up() to queue messages, or wait for completion."
)
BUSY_CONTINUE = "Agent is already processing. Wait for completion before continuing."
BUSY_RESET = "Agent is already processing. Wait for completion before resetting."


@runtime_checkable
class DeferredMessages(Protocol):
    """Messages not decoded yet (a resumed huge session): readable one by one, or all at once.

    Assigned to ``AgentState.messages``, they are kept as they are until something asks for the
    list (a run, an edit): then :meth:`materialize` is called once and the list replaces them."""

    def __len__(self) -> int: ...
    def __getitem__(self, index: int, /) -> Any: ...
    def materialize(self) -> list[AgentMessage]: ...


class AgentState:
    """The agent's observable state. ``tools``/``messages`` assignments store a copy of the list
    (or, for :class:`DeferredMessages`, the object itself until the list is first asked for)."""

    def __init__(self, system_prompt: str, model: Model, thinking_level: ThinkingLevel) -> None:
        self.system_prompt = system_prompt
        self.model = model
        self.thinking_level: ThinkingLevel = thinking_level
        self._tools: list[AgentTool] = []
        self._messages: list[AgentMessage] = []
        self._deferred: DeferredMessages | None = None
        self.is_streaming = False
        self.streaming_message: AgentMessage | None = None
        self.pending_tool_calls: frozenset[str] = frozenset()  # replaced, never mutated
        self.error_message: str | None = None

    @property
    def tools(self) -> list[AgentTool]:
        return self._tools

    @tools.setter
    def tools(self, tools: Sequence[AgentTool]) -> None:
        self._tools = list(tools)

    @property
    def messages(self) -> list[AgentMessage]:
        if self._deferred is not None:
            self._messages, self._deferred = self._deferred.materialize(), None
        return self._messages

    @messages.setter
    def messages(self, messages: Sequence[AgentMessage] | DeferredMessages) -> None:
        if isinstance(messages, DeferredMessages):
            self._messages, self._deferred = [], messages
        else:
            self._messages, self._deferred = list(messages), None

    def message_view(self) -> Sequence[AgentMessage] | DeferredMessages:
        """The messages as they are held, for readers that need only their count or a few of
        them (the footer, ``get_state``): deferred messages are not decoded for it."""
        return self._deferred if self._deferred is not None else self._messages


class Agent:
    """A conversational agent: state, queues, one run at a time, awaited listeners.

    ``hooks`` are the declared chains other parts plug into (:mod:`pi_cli.agent.hooks`), fixed at
    construction. The single hooks (``before_tool_call`` …, pi's Agent API) are public attributes
    that run after the chains' hooks of their kind and may be changed between runs (a run uses the
    values captured when it starts). ``should_stop_after_turn(ctx, signal)`` and
    ``prepare_next_turn(ctx, signal)`` receive a :class:`~pi_cli.agent.types.TurnContext` and the
    run's signal.
    """

    def __init__(
        self,
        *,
        system_prompt: str = "",
        model: Model | None = None,
        thinking_level: ThinkingLevel = "off",
        tools: Sequence[AgentTool] | None = None,
        messages: Sequence[AgentMessage] | DeferredMessages | None = None,
        stream_fn: StreamFn | None = None,
        convert_to_llm: Callable[[list[AgentMessage]], Any] | None = None,
        transform_context: Callable[[list[AgentMessage], AbortSignal | None], Any] | None = None,
        get_api_key: Callable[[str], Any] | None = None,
        before_tool_call: BeforeHook | None = None,
        after_tool_call: AfterHook | None = None,
        tool_execution: str = "parallel",
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        session_id: str | None = None,
        should_stop_after_turn: Callable[[TurnContext, AbortSignal | None], Any] | None = None,
        prepare_next_turn: Callable[[TurnContext, AbortSignal | None], Any] | None = None,
        max_turns: int | None = None,
        stream_options: StreamOptions | None = None,
        hooks: AgentHooks = NO_HOOKS,
    ) -> None:
        self.hooks = hooks
        self.state = AgentState(system_prompt, model or PLACEHOLDER_MODEL, thinking_level)
        self.state.tools = tools or []
        self.state.messages = messages or []
        if stream_fn is None:
            from pi_cli.ai.stream import stream

            stream_fn = cast(StreamFn, stream)
        self.stream_fn: StreamFn = stream_fn
        self.convert_to_llm = convert_to_llm or LlmMessageFilter()
        self.transform_context = transform_context
        self.get_api_key = get_api_key
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        if tool_execution not in ("parallel", "sequential"):
            raise ValueError(f"Invalid tool_execution: {tool_execution!r} (expected 'parallel' or 'sequential')")
        self.tool_execution = tool_execution
        self.session_id = session_id
        self.should_stop_after_turn = should_stop_after_turn
        self.prepare_next_turn = prepare_next_turn
        if max_turns is not None and max_turns < 1:
            raise ValueError(f"Invalid max_turns: {max_turns} (expected a positive integer)")
        self.max_turns = max_turns
        self.stream_options = stream_options or StreamOptions()
        self._steering = MessageQueue(check_mode(steering_mode, "steering_mode"))
        self._follow_up = MessageQueue(check_mode(follow_up_mode, "follow_up_mode"))
        self._listeners: tuple[Listener, ...] = ()
        self._controller: AbortController | None = None
        self._idle: asyncio.Future[None] | None = None

    # --- queue modes and queues -------------------------------------------------------------

    @property
    def steering_mode(self) -> QueueMode:
        return self._steering.mode

    @steering_mode.setter
    def steering_mode(self, mode: QueueMode) -> None:
        self._steering.mode = check_mode(mode, "steering_mode")

    @property
    def follow_up_mode(self) -> QueueMode:
        return self._follow_up.mode

    @follow_up_mode.setter
    def follow_up_mode(self, mode: QueueMode) -> None:
        self._follow_up.mode = check_mode(mode, "follow_up_mode")

    @property
    def steering_queue(self) -> tuple[AgentMessage, ...]:
        """Queued steering messages, oldest first (a read-only snapshot)."""
        return self._steering.snapshot()

    @property
    def follow_up_queue(self) -> tuple[AgentMessage, ...]:
        """Queued follow-up messages, oldest first (a read-only snapshot)."""
        return self._follow_up.snapshot()

    def steer(self, message: AgentMessage | str) -> None:
        """Queue a message for after the current tool batch; never starts a run."""
        self._steering.push(_as_message(message))

    def follow_up(self, message: AgentMessage | str) -> None:
        """Queue a message for when the agent would otherwise stop; never starts a run."""
        self._follow_up.push(_as_message(message))

    def clear_steering_queue(self) -> list[AgentMessage]:
        return self._steering.clear()

    def clear_follow_up_queue(self) -> list[AgentMessage]:
        return self._follow_up.clear()

    def clear_all_queues(self) -> list[AgentMessage]:
        """Empty both queues; returns the removed messages (steering first, then follow-up)."""
        return self._steering.clear() + self._follow_up.clear()

    def has_queued_messages(self) -> bool:
        return bool(self._steering) or bool(self._follow_up)

    # --- listeners --------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event, signal)`` (sync or async, awaited) for every event; returns unsubscribe."""
        self._listeners = (*self._listeners, listener)

        def unsubscribe() -> None:
            self._listeners = tuple(item for item in self._listeners if item is not listener)

        return unsubscribe

    async def _emit(self, event: AgentEvent) -> None:
        self._reduce(event)
        signal = self._controller.signal if self._controller is not None else None
        for listener in self._listeners:
            outcome = listener(event, signal)
            if outcome is not None and inspect.isawaitable(outcome):
                await outcome

    def _reduce(self, event: AgentEvent) -> None:
        state = self.state
        kind = event["type"]
        if kind == "message_update" or kind == "message_start":
            state.streaming_message = event["message"]
        elif kind == "message_end":
            state.streaming_message = None
            state.messages.append(event["message"])
        elif kind == "tool_execution_start":
            state.pending_tool_calls = state.pending_tool_calls | {event["toolCallId"]}
        elif kind == "tool_execution_end":
            state.pending_tool_calls = state.pending_tool_calls - {event["toolCallId"]}
        elif kind == "turn_end":
            message = event["message"]
            if message.get("role") == "assistant" and message.get("errorMessage"):
                state.error_message = message["errorMessage"]
        elif kind == "agent_end":
            state.streaming_message = None

    # --- runs -------------------------------------------------------------------------------

    @property
    def signal(self) -> AbortSignal | None:
        """The active run's abort signal, or None when idle."""
        return self._controller.signal if self._controller is not None else None

    @property
    def is_running(self) -> bool:
        return self._controller is not None

    def abort(self) -> None:
        """Abort the active run (no-op when idle). Queued messages are kept."""
        if self._controller is not None:
            self._controller.abort()

    async def wait_for_idle(self) -> None:
        """Return when the active run has fully settled (at once when idle)."""
        if self._idle is not None:
            await asyncio.shield(self._idle)

    def reset(self) -> None:
        """Clear transcript, queues and runtime state; keeps system prompt, model and tools."""
        if self._controller is not None:
            raise RuntimeError(BUSY_RESET)
        state = self.state
        state.messages = []
        state.is_streaming = False
        state.streaming_message = None
        state.pending_tool_calls = frozenset()
        state.error_message = None
        self._steering.clear()
        self._follow_up.clear()

    async def prompt(
        self, input: str | AgentMessage | Sequence[AgentMessage], images: Sequence[ImageContent] | None = None
    ) -> None:
        """Run the loop with new message(s); resolves when the run has fully settled."""
        if self._controller is not None:
            raise RuntimeError(BUSY_PROMPT)
        if isinstance(input, str):
            content: list[Any] = [{"type": "text", "text": input}, *(images or [])]
            prompts: list[AgentMessage] = [{"role": "user", "content": content, "timestamp": now_ms()}]
        elif isinstance(input, dict):
            prompts = [input]
        else:
            prompts = list(input)
        await self._run_prompts(prompts)

    async def continue_(self) -> None:
        """Continue from the transcript (retry after an error, or deliver queued messages)."""
        if self._controller is not None:
            raise RuntimeError(BUSY_CONTINUE)
        messages = self.state.messages
        if not messages:
            raise ValueError("No messages to continue from")
        if messages[-1].get("role") == "assistant":
            steering = self._steering.drain()
            if steering:
                await self._run_prompts(steering, skip_initial_steering_poll=True)
                return
            follow_ups = self._follow_up.drain()
            if follow_ups:
                await self._run_prompts(follow_ups)
                return
            raise ValueError("Cannot continue from message role: assistant")
        await self._run(lambda ctx, cfg, signal: run_agent_loop_continue(ctx, cfg, self._emit, signal, self.stream_fn))

    async def _run_prompts(self, prompts: list[AgentMessage], skip_initial_steering_poll: bool = False) -> None:
        await self._run(
            lambda ctx, cfg, signal: run_agent_loop(prompts, ctx, cfg, self._emit, signal, self.stream_fn),
            skip_initial_steering_poll,
        )

    def _config(self, signal: AbortSignal, skip_initial_steering_poll: bool) -> AgentLoopConfig:
        level = self.state.thinking_level
        options = self.stream_options
        reasoning = None if level == "off" else level
        if options.reasoning != reasoning or (self.session_id is not None and options.session_id != self.session_id):
            session = self.session_id if self.session_id is not None else options.session_id
            options = replace(options, reasoning=reasoning, session_id=session)
        skip = [skip_initial_steering_poll]

        def steering() -> list[AgentMessage]:
            if skip[0]:
                skip[0] = False
                return []
            return self._steering.drain()

        hooks = self.hooks
        stop_hook = self.should_stop_after_turn
        prepare_hook = chain_next_turn([*(turn.next_turn for turn in hooks.turns), self.prepare_next_turn])
        return AgentLoopConfig(
            model=self.state.model,
            convert_to_llm=self.convert_to_llm,
            transform_context=chain_context([*hooks.context, self.transform_context]),
            get_api_key=self.get_api_key,
            should_stop_after_turn=(lambda ctx: stop_hook(ctx, signal)) if stop_hook else None,
            prepare_next_turn=(lambda ctx: prepare_hook(ctx, signal)) if prepare_hook else None,
            get_steering_messages=steering,
            get_follow_up_messages=self._follow_up.drain,
            has_queued_messages=self.has_queued_messages,
            tool_execution=self.tool_execution,
            before_tool_call=chain_before([*hooks.tool_call, self.before_tool_call]),
            after_tool_call=chain_after([*hooks.tool_result, self.after_tool_call]),
            stream_options=options,
            max_turns=self.max_turns,
        )

    async def _run(
        self, start: Callable[[AgentContext, AgentLoopConfig, AbortSignal], Any], skip: bool = False
    ) -> None:
        if self._controller is not None:
            raise RuntimeError("Agent is already processing.")
        controller = AbortController()
        self._controller = controller
        self._idle = asyncio.get_running_loop().create_future()
        state = self.state
        state.is_streaming = True
        state.streaming_message = None
        state.error_message = None
        try:
            try:
                for turn_hook in self.hooks.turns:  # e.g. MCP brings the tool set up to date
                    await turn_hook.before_run(self)
                context = AgentContext(state.system_prompt, list(state.messages), list(state.tools))
                config = self._config(controller.signal, skip)
                await resolve(start(context, config, controller.signal))
            except Exception as exc:
                await self._handle_run_failure(exc, controller.signal)
        finally:
            state.is_streaming = False
            state.streaming_message = None
            state.pending_tool_calls = frozenset()
            idle, self._idle = self._idle, None
            self._controller = None
            if idle is not None and not idle.done():
                idle.set_result(None)

    async def _handle_run_failure(self, exc: BaseException, signal: AbortSignal) -> None:
        """An unexpected exception becomes an error assistant message with full lifecycle events."""
        model = self.state.model
        message: AssistantMessage = {
            "role": "assistant",
            "content": [{"type": "text", "text": ""}],
            "api": model["api"],
            "provider": model["provider"],
            "model": model["id"],
            "usage": empty_usage(),
            "stopReason": "aborted" if signal.aborted else "error",
            "errorMessage": exception_text(exc),
            "timestamp": now_ms(),
        }
        await self._emit({"type": "message_start", "message": message})
        await self._emit({"type": "message_end", "message": message})
        await self._emit({"type": "turn_end", "message": message, "toolResults": []})
        await self._emit({"type": "agent_end", "messages": [message]})


def _as_message(message: AgentMessage | str) -> AgentMessage:
    if isinstance(message, str):
        return {"role": "user", "content": [{"type": "text", "text": message}], "timestamp": now_ms()}
    return message
