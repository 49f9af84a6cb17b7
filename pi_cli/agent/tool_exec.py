"""The tool pipeline of one assistant message (spec §2.4–§2.6 and §4).

Per call: find the tool (``Tool <name> not found``) → ``prepare_arguments`` → validate and
coerce (:mod:`pi_cli.agent.validation`) → ``before_tool_call`` (may block) → abort check →
``execute`` (an exception becomes an error result) → ``after_tool_call`` (field-by-field
override; raising turns the result into an error) → ``tool_execution_end`` → the toolResult message.

Parallel batches (the default) prepare every call serially, then run the prepared ones
concurrently as asyncio tasks: ``tool_execution_end`` follows completion order, the toolResult
messages follow the assistant's order. A batch is sequential when the loop says so or any call
names a known tool with ``execution_mode == "sequential"``.

Hooks may be sync or async and may return the dataclasses of :mod:`pi_cli.agent.types` or plain
dicts with pi's field names (``block``, ``reason``, ``terminate``; ``content``, ``details``,
``isError``, ``usage``).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast

from pi_cli.agent.types import (
    AfterToolCallContext,
    AgentContext,
    AgentEventSink,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
)
from pi_cli.agent.validation import validate_tool_arguments
from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.types import AssistantMessage, ToolCall, ToolResultMessage, now_ms

BeforeHook = Callable[[BeforeToolCallContext, AbortSignal | None], Any]
AfterHook = Callable[[AfterToolCallContext, AbortSignal | None], Any]

# The call being decided or run while the ``before_tool_call`` chain or the tool's ``execute`` runs
# (``{toolCallId, toolName, input}``), so a dialog opened then can name it (ACP's request_permission).
current_tool_call: ContextVar[dict[str, Any] | None] = ContextVar("current_tool_call", default=None)


@dataclass(frozen=True, slots=True)
class AgentScope:
    """The subagent a run belongs to: its ``label`` ("scout", "worker #2"), which dialogs opened
    for it name, and its ``cwd``, against which the approval gate resolves its relative paths."""

    label: str
    cwd: str


# Set by the ``subagent`` tool around a child session's run (asyncio tasks inherit it); None in
# a top-level session.
current_agent: ContextVar[AgentScope | None] = ContextVar("current_agent", default=None)

TRUNCATED_TEXT = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its arguments '
    "may be truncated. Re-issue the tool call with complete arguments."
)


@dataclass(slots=True)
class ToolBatch:
    """The outcome of one assistant message's tool calls."""

    messages: list[ToolResultMessage]
    terminate: bool


@dataclass(slots=True)
class _Prepared:
    call: ToolCall
    tool: AgentTool
    args: dict[str, Any]


@dataclass(slots=True)
class _Final:
    call: ToolCall
    result: AgentToolResult
    is_error: bool
    duration_ms: int | None = None  # how long ``execute`` took (pi 1.6 ``durationMs``); None: never ran


async def resolve(value: Any) -> Any:
    """Await ``value`` if it is awaitable (hooks may be sync or async)."""
    if inspect.isawaitable(value):
        return await value
    return value


def field_of(obj: Any, name: str, json_name: str | None = None) -> Any:
    """A hook answer's field: a dict key (pi's JSON name first) or a dataclass attribute."""
    if isinstance(obj, dict):
        return obj.get(json_name or name, obj.get(name))
    return getattr(obj, name, None)


def merge_override(result: AgentToolResult, is_error: bool, override: Any) -> tuple[AgentToolResult, bool]:
    """``result`` with the fields ``override`` sets (``None`` keeps a field), and the error flag."""
    content = field_of(override, "content")
    # As pi 1.6: structured content not replaced along with the content may no longer match it.
    structured = field_of(override, "structured_content", "structuredContent")
    if structured is None and content is None:
        structured = result.structured_content
    merged = AgentToolResult(
        content=_pick(content, result.content),
        details=_pick(field_of(override, "details"), result.details),
        terminate=_pick(field_of(override, "terminate"), result.terminate),
        usage=_pick(field_of(override, "usage"), result.usage),
        added_tool_names=result.added_tool_names,
        structured_content=structured,
        is_error=result.is_error,
    )
    flag = field_of(override, "is_error", "isError")
    return merged, is_error if flag is None else bool(flag)


def error_result(text: str) -> AgentToolResult:
    """A failed call's result: ``text`` as the only block, empty ``details`` (pi's shape)."""
    return AgentToolResult(content=[{"type": "text", "text": text}], details={})


def exception_text(exc: BaseException) -> str:
    """The exception's message (KeyError's without the repr quotes), else its type name."""
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return str(exc) or type(exc).__name__


def find_tool(tools: list[AgentTool], name: str) -> AgentTool | None:
    """The tool called ``name``, or ``None``."""
    for tool in tools:  # the first match wins, as in pi
        if tool.name == name:
            return tool
    return None


async def _execute(
    prepared: _Prepared, signal: AbortSignal | None, emit: AgentEventSink
) -> tuple[AgentToolResult, bool, int]:
    """Run ``execute``; every update it emitted is delivered before this returns. Also returns how
    long ``execute`` took in whole milliseconds (monotonic clock, as pi 1.6's ``durationMs``)."""
    call = prepared.call
    started = time.monotonic()
    chain: asyncio.Future[None] | None = None
    accepting = True

    def on_update(partial: AgentToolResult) -> None:
        nonlocal chain
        if not accepting:  # late updates after execute settled are dropped
            return
        event = {
            "type": "tool_execution_update",
            "toolCallId": call["id"],
            "toolName": call["name"],
            "args": call["arguments"],
            "partialResult": partial.to_json() if isinstance(partial, AgentToolResult) else partial,
        }
        previous = chain

        async def deliver() -> None:
            if previous is not None:  # updates reach listeners one at a time, in order
                await previous
            await emit(event)

        chain = asyncio.ensure_future(deliver())

    # A dialog the tool opens while it runs (e.g. "run this outside the sandbox?") names the call.
    token = current_tool_call.set({"toolCallId": call["id"], "toolName": call["name"], "input": prepared.args})
    try:
        result = await resolve(prepared.tool.execute(call["id"], prepared.args, signal, on_update))
        accepting = False
        duration = round((time.monotonic() - started) * 1000)
        if not isinstance(result, AgentToolResult):
            result = _result_from(result)
        outcome = (result, result.is_error is True, duration)
    except Exception as exc:
        accepting = False
        outcome = (error_result(exception_text(exc)), True, round((time.monotonic() - started) * 1000))
    finally:
        current_tool_call.reset(token)
    if chain is not None:
        await chain
    return outcome


def _result_from(value: Any) -> AgentToolResult:
    """Accept a pi-shaped dict from duck-typed tools."""
    if isinstance(value, dict):
        return AgentToolResult(
            content=value.get("content") or [],
            details=value.get("details"),
            terminate=value.get("terminate"),
            usage=value.get("usage"),
            added_tool_names=value.get("addedToolNames"),
            structured_content=value.get("structuredContent"),
            is_error=value.get("isError"),
        )
    return AgentToolResult(content=[{"type": "text", "text": "" if value is None else str(value)}])


def _pick(new: Any, old: Any) -> Any:
    return old if new is None else new


def tool_result_message(final: _Final) -> ToolResultMessage:
    """pi's toolResult message for a finished call (optional fields only when set)."""
    result = final.result
    message: dict[str, Any] = {  # pi 1.6's key order
        "role": "toolResult",
        "toolCallId": final.call["id"],
        "toolName": final.call["name"],
        "content": result.content or [],
    }
    if result.details is not None:
        message["details"] = result.details
    if result.usage is not None:
        message["usage"] = result.usage
    message["isError"] = final.is_error
    if result.added_tool_names:
        message["addedToolNames"] = result.added_tool_names
    if final.duration_ms is not None:
        message["durationMs"] = final.duration_ms
    message["timestamp"] = now_ms()
    return cast(ToolResultMessage, message)


async def _emit_start(call: ToolCall, emit: AgentEventSink) -> None:
    await emit(
        {"type": "tool_execution_start", "toolCallId": call["id"], "toolName": call["name"], "args": call["arguments"]}
    )


async def _emit_end(final: _Final, emit: AgentEventSink) -> None:
    await emit(
        {
            "type": "tool_execution_end",
            "toolCallId": final.call["id"],
            "toolName": final.call["name"],
            "result": final.result.to_json(),
            "isError": final.is_error,
            **({} if final.duration_ms is None else {"durationMs": final.duration_ms}),
        }
    )


async def _publish(final: _Final, emit: AgentEventSink) -> ToolResultMessage:
    """The toolResult message of ``final``, announced with ``message_start``/``message_end``."""
    message = tool_result_message(final)
    await emit({"type": "message_start", "message": message})
    await emit({"type": "message_end", "message": message})
    return message


def _terminates(finals: list[_Final]) -> bool:
    return bool(finals) and all(final.result.terminate is True for final in finals)


@dataclass(slots=True)
class _Batch:
    """One assistant message's tool calls and what running them needs."""

    context: AgentContext
    message: AssistantMessage
    before: BeforeHook | None
    after: AfterHook | None
    signal: AbortSignal | None
    emit: AgentEventSink

    @property
    def aborted(self) -> bool:
        return self.signal is not None and self.signal.aborted

    async def prepare(self, call: ToolCall) -> _Prepared | _Final:
        """Find, validate and clear the call with ``before_tool_call``; a ``_Final`` if it must not run."""
        if self.aborted:  # no hooks once aborted, but the call still gets a result (as pi)
            return _Final(call, error_result("Operation aborted"), True)
        tool = find_tool(self.context.tools, call["name"])
        if tool is None:
            return _Final(call, error_result(f"Tool {call['name']} not found"), True)
        try:
            raw = call["arguments"]
            prepare = getattr(tool, "prepare_arguments", None)
            if prepare is not None:
                raw = prepare(raw)
            args = validate_tool_arguments(call["name"], tool.parameters, raw)
            if self.before is not None:
                hook_ctx = BeforeToolCallContext(self.message, call, args, self.context)
                token = current_tool_call.set({"toolCallId": call["id"], "toolName": call["name"], "input": args})
                try:
                    verdict = await resolve(self.before(hook_ctx, self.signal))
                finally:
                    current_tool_call.reset(token)
                if self.aborted:
                    return _Final(call, error_result("Operation aborted"), True)
                if verdict is not None and field_of(verdict, "block"):
                    result = error_result(field_of(verdict, "reason") or "Tool execution was blocked")
                    if field_of(verdict, "terminate") is True:
                        result.terminate = True
                    return _Final(call, result, True)
            if self.aborted:
                return _Final(call, error_result("Operation aborted"), True)
            return _Prepared(call, tool, args)
        except Exception as exc:
            return _Final(call, error_result(exception_text(exc)), True)

    async def run(self, prepared: _Prepared) -> _Final:
        """Execute a prepared call and apply ``after_tool_call``."""
        result, is_error, duration = await _execute(prepared, self.signal, self.emit)
        if self.after is None:
            return _Final(prepared.call, result, is_error, duration)
        try:
            hook_ctx = AfterToolCallContext(self.message, prepared.call, prepared.args, result, is_error, self.context)
            override = await resolve(self.after(hook_ctx, self.signal))
        except Exception as exc:
            return _Final(prepared.call, error_result(exception_text(exc)), True, duration)
        if override is None:
            return _Final(prepared.call, result, is_error, duration)
        merged, flag = merge_override(result, is_error, override)
        return _Final(prepared.call, merged, flag, duration)

    async def sequential(self, calls: list[ToolCall]) -> ToolBatch:
        finals: list[_Final] = []
        messages: list[ToolResultMessage] = []
        for call in calls:
            await _emit_start(call, self.emit)
            prepared = await self.prepare(call)
            final = await self.run(prepared) if isinstance(prepared, _Prepared) else prepared
            await _emit_end(final, self.emit)
            messages.append(await _publish(final, self.emit))
            finals.append(final)
        return ToolBatch(messages, _terminates(finals))

    async def parallel(self, calls: list[ToolCall]) -> ToolBatch:
        entries: list[_Final | _Prepared] = []
        for call in calls:  # serial preflight: nothing executes until every call is prepared
            await _emit_start(call, self.emit)
            prepared = await self.prepare(call)
            if isinstance(prepared, _Final):
                await _emit_end(prepared, self.emit)
            entries.append(prepared)

        async def run_one(prepared: _Prepared) -> _Final:
            if self.aborted:  # aborted before it started: every call still gets a result
                final = _Final(prepared.call, error_result("Operation aborted"), True)
                await _emit_end(final, self.emit)
                return final
            final = await self.run(prepared)
            await _emit_end(final, self.emit)
            return final

        runnable = [i for i, entry in enumerate(entries) if isinstance(entry, _Prepared)]
        if len(runnable) == 1:  # nothing to overlap with: skip the task machinery
            only = runnable[0]
            entries[only] = await run_one(cast(_Prepared, entries[only]))
        tasks: dict[int, asyncio.Task[_Final]] = {}
        if len(runnable) > 1:
            for index in runnable:
                tasks[index] = asyncio.ensure_future(run_one(cast(_Prepared, entries[index])))
            try:
                await asyncio.gather(*tasks.values())
            except BaseException:
                for task in tasks.values():
                    task.cancel()
                raise
        finals = [tasks[i].result() if i in tasks else cast(_Final, entry) for i, entry in enumerate(entries)]
        messages = [await _publish(final, self.emit) for final in finals]  # in the assistant's order
        return ToolBatch(messages, _terminates(finals))


async def fail_truncated_tool_calls(calls: list[ToolCall], emit: AgentEventSink) -> ToolBatch:
    """A ``length`` stop: report every call as not executed so the model re-issues it."""
    messages: list[ToolResultMessage] = []
    for call in calls:
        await _emit_start(call, emit)
        final = _Final(call, error_result(TRUNCATED_TEXT.format(name=call["name"])), True)
        await _emit_end(final, emit)
        messages.append(await _publish(final, emit))
    return ToolBatch(messages, False)


async def execute_tool_calls(
    context: AgentContext,
    message: AssistantMessage,
    calls: list[ToolCall],
    *,
    mode: str,
    before: BeforeHook | None,
    after: AfterHook | None,
    signal: AbortSignal | None,
    emit: AgentEventSink,
) -> ToolBatch:
    """Run one message's tool calls in ``mode`` ("parallel" or "sequential", see module doc)."""
    batch = _Batch(context, message, before, after, signal, emit)
    sequential = mode == "sequential" or any(
        getattr(find_tool(context.tools, call["name"]), "execution_mode", None) == "sequential" for call in calls
    )
    return await (batch.sequential(calls) if sequential else batch.parallel(calls))
