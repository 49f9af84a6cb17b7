"""The agent's declared hook chains: how other parts take part in a run without patching it.

An :class:`AgentHooks` is given to the :class:`~pi_cli.agent.agent.Agent` when it is built; the
session's assembly (``SessionParts.hooks`` in ``pi_cli.session.assembly``) is the one place that
fills it, in this order:

* ``tool_call`` — interceptors before a call executes (after prepare and validate). They run in
  order on the same arguments dict (a mutation reaches the next one and ``execute``); the first
  that blocks ends the chain, and its reason becomes the call's result.
* ``tool_result`` — interceptors after a call executed, in order; each sees the result as the
  previous one left it (overrides merge field by field, as a single ``after_tool_call`` does).
* ``context`` — transforms of the transcript before each request, each given the previous output.
* ``turns`` — :class:`TurnHook` objects: ``before_run(agent)`` is awaited before every run starts
  (``prompt`` and ``continue_``), ``next_turn(turn, signal)`` after every turn, chaining the
  :class:`~pi_cli.agent.types.NextTurnUpdate` each returns.

The Agent's single ``before_tool_call`` / ``after_tool_call`` / ``transform_context`` /
``prepare_next_turn`` attributes (pi's Agent API) run after the chains' hooks of the same kind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pi_cli.agent.tool_exec import AfterHook, BeforeHook, field_of, merge_override, resolve
from pi_cli.agent.types import AfterToolCallContext, AgentMessage, NextTurnUpdate, TurnContext
from pi_cli.ai.abort import AbortSignal

ContextHook = Callable[[list[AgentMessage], AbortSignal | None], Any]
NextTurnHook = Callable[[TurnContext, AbortSignal | None], Any]


class TurnHook(Protocol):
    """A part that keeps the agent in step with something outside it (e.g. MCP's tool set)."""

    async def before_run(self, agent: Any) -> None:
        """Called with the :class:`~pi_cli.agent.agent.Agent` before each of its runs starts; may
        change its state (the tools, say)."""
        ...

    async def next_turn(self, turn: TurnContext, signal: AbortSignal | None) -> NextTurnUpdate | None:
        """Called after each turn; what to change for the next request (None: nothing)."""
        ...


@dataclass(frozen=True, slots=True)
class AgentHooks:
    """Ordered hook chains (see the module docstring)."""

    tool_call: Sequence[BeforeHook] = ()
    tool_result: Sequence[AfterHook] = ()
    context: Sequence[ContextHook] = ()
    turns: Sequence[TurnHook] = ()


NO_HOOKS = AgentHooks()


def chain_before(hooks: Sequence[BeforeHook | None]) -> BeforeHook | None:
    """One ``before_tool_call`` running ``hooks`` in order; the first block wins."""
    present = [hook for hook in hooks if hook is not None]
    if len(present) <= 1:
        return present[0] if present else None

    async def before(context: Any, signal: AbortSignal | None) -> Any:
        for hook in present:
            verdict = await resolve(hook(context, signal))
            if verdict is not None and field_of(verdict, "block"):
                return verdict
        return None

    return before


def chain_after(hooks: Sequence[AfterHook | None]) -> AfterHook | None:
    """One ``after_tool_call`` running ``hooks`` in order, each on the result the previous left."""
    present = [hook for hook in hooks if hook is not None]
    if len(present) <= 1:
        return present[0] if present else None

    async def after(context: AfterToolCallContext, signal: AbortSignal | None) -> Any:
        current, changed = context, False
        for hook in present:
            override = await resolve(hook(current, signal))
            if override is None:
                continue
            result, is_error = merge_override(current.result, current.is_error, override)
            current, changed = replace(current, result=result, is_error=is_error), True
        if not changed:
            return None
        result = current.result
        return {"content": result.content, "details": result.details, "terminate": result.terminate,
                "usage": result.usage, "isError": current.is_error}  # fmt: skip

    return after


def chain_context(hooks: Sequence[ContextHook | None]) -> ContextHook | None:
    """One ``transform_context`` applying ``hooks`` in order."""
    present = [hook for hook in hooks if hook is not None]
    if len(present) <= 1:
        return present[0] if present else None

    async def transform(messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
        for hook in present:
            messages = await resolve(hook(messages, signal))
        return messages

    return transform


def chain_next_turn(hooks: Sequence[NextTurnHook | None]) -> NextTurnHook | None:
    """One ``prepare_next_turn`` calling ``hooks`` in order; each sees the context the previous
    update left, and the updates' fields combine (a later field wins)."""
    present = [hook for hook in hooks if hook is not None]
    if len(present) <= 1:
        return present[0] if present else None

    async def prepare(turn: TurnContext, signal: AbortSignal | None) -> NextTurnUpdate | None:
        combined: NextTurnUpdate | None = None
        for hook in present:
            update = await resolve(hook(turn, signal))
            if update is None:
                continue
            update = _as_update(update)
            if update.context is not None:
                turn = replace(turn, context=update.context)
            combined = update if combined is None else _combine(combined, update)
        return combined

    return prepare


def _as_update(update: Any) -> NextTurnUpdate:
    if isinstance(update, NextTurnUpdate):
        return update
    return NextTurnUpdate(update.get("context"), update.get("model"), update.get("thinkingLevel"))


def _combine(first: NextTurnUpdate, second: NextTurnUpdate) -> NextTurnUpdate:
    return NextTurnUpdate(
        second.context or first.context,
        second.model or first.model,
        second.thinking_level or first.thinking_level,
    )
