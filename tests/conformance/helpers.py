"""Shared fixtures for the conformance scenarios (spec/agent-core.md §8)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pi_cli.agent.agent import Agent
from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.providers.faux import FauxProvider, faux_assistant, faux_text, faux_tool_call

ECHO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"value": {"type": "string"}},
    "required": ["value"],
}

Execute = Callable[[str, dict[str, Any], AbortSignal | None, OnUpdate | None], Awaitable[AgentToolResult]]


class FnTool:
    """A test tool whose ``execute`` is a given coroutine function."""

    def __init__(
        self,
        name: str,
        execute: Execute | None = None,
        parameters: dict[str, Any] | None = None,
        execution_mode: str | None = None,
        prepare_arguments: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.name = name
        self.label = name.title()
        self.description = f"the {name} tool"
        self.parameters = parameters if parameters is not None else ECHO_SCHEMA
        self.execution_mode = execution_mode
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self._execute = execute or echo_execute
        if prepare_arguments is not None:
            self.prepare_arguments = prepare_arguments

    async def execute(
        self, tool_call_id: str, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        self.calls.append((tool_call_id, args))
        return await self._execute(tool_call_id, args, signal, on_update)


async def echo_execute(
    tool_call_id: str, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
) -> AgentToolResult:
    return AgentToolResult(content=[faux_text(f"echoed: {args.get('value')}")], details={"value": args.get("value")})


def echo_tool(**kwargs: Any) -> FnTool:
    return FnTool("echo", **kwargs)


def tc(id: str, name: str, args: dict[str, Any]) -> Any:
    return faux_tool_call(name, args, id=id)


def reply(*blocks: Any, stop: Any = None, error: str | None = None) -> Any:
    """An assistant reply: strings become text blocks."""
    content = [faux_text(b) if isinstance(b, str) else b for b in blocks]
    return faux_assistant(content, stop_reason=stop, error_message=error)


class Recorder:
    """Collects every event an agent emits (and the signal passed with it)."""

    def __init__(self, agent: Agent | None = None) -> None:
        self.events: list[dict[str, Any]] = []
        self.signals: list[AbortSignal | None] = []
        if agent is not None:
            agent.subscribe(self)

    def __call__(self, event: dict[str, Any], signal: AbortSignal | None = None) -> None:
        self.events.append(event)
        self.signals.append(signal)

    async def sink(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    @property
    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def short(self) -> list[str]:
        """Compact event log: ``ms(user)``, ``tes(t1)``, ``turn_end`` …"""
        out: list[str] = []
        for e in self.events:
            kind = e["type"]
            if kind in ("message_start", "message_end"):
                m = e["message"]
                tag = m["toolCallId"] if m["role"] == "toolResult" else m["role"]
                out.append(f"{'ms' if kind == 'message_start' else 'me'}({tag})")
            elif kind.startswith("tool_execution_"):
                short = {"start": "tes", "end": "tee", "update": "teu"}[kind.rsplit("_", 1)[1]]
                out.append(f"{short}({e['toolCallId']})")
            elif kind == "message_update":
                out.append("mu")
            else:
                out.append(kind)
        return out

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]


def roles(messages: list[Any]) -> list[str]:
    return [m["role"] for m in messages]


def make_agent(faux: FauxProvider, **kwargs: Any) -> Agent:
    kwargs.setdefault("model", faux.model())
    return Agent(**kwargs)


def request_roles(faux: FauxProvider, index: int) -> list[str]:
    return roles(faux.requests[index].context["messages"])


def scripted_stream_fn(scripts: list[list[dict[str, Any]]], requests: list[Any] | None = None) -> Any:
    """A stream function replaying raw event lists, one list per call (no faux chunking)."""
    from pi_cli.ai.event_stream import AssistantMessageEventStream

    calls = iter(scripts)

    def stream_fn(model: Any, context: Any, options: Any) -> AssistantMessageEventStream:
        if requests is not None:
            requests.append((context, options))
        events = next(calls)

        async def gen() -> Any:
            for event in events:
                yield event

        return AssistantMessageEventStream(gen())

    return stream_fn


def done_only(message: Any) -> list[dict[str, Any]]:
    return [{"type": "done", "reason": message["stopReason"], "message": message}]
