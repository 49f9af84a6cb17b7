"""The order of the agent's hook chains, as the assembly declares it (``SessionParts.hooks``, the
one place it is written; see ``pi_cli/session/assembly/parts.py``) and as the agent runs it:

* ``tool_call``: extensions' handlers, then the approval gate (behaviour: tests/permissions/test_ordering.py);
* ``tool_result``: extensions' handlers;
* ``context``: extensions' ``context`` handlers, each on the previous output, before each request;
* ``turns``: the MCP runtime — ``before_run`` before every run, ``next_turn`` after every turn.

The Agent's own single hooks of each kind (pi's Agent API: ``transform_context``,
``prepare_next_turn`` …) run after the chain's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from pi_cli.agent.agent import Agent
from pi_cli.agent.hooks import AgentHooks
from pi_cli.agent.types import AgentMessage, NextTurnUpdate, TurnContext
from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.providers.faux import FauxProvider, faux_assistant, faux_tool_call, register_faux_provider
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.permissions.gate import gate_for_session
from pi_cli.session.assembly import SessionParts


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = register_faux_provider()
    yield provider
    provider.unregister()


class RecordingTurns:
    """A turn hook (the MCP runtime's seat) that writes down when it is called."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    async def before_run(self, agent: Any) -> None:
        self.log.append(f"{self.name}.before_run")

    async def next_turn(self, turn: TurnContext, signal: AbortSignal | None) -> NextTurnUpdate | None:
        self.log.append(f"{self.name}.next_turn")
        return None


def tagging(name: str, log: list[str]) -> Any:
    """A context transform that logs its name and appends it to the last message's text, so the
    next transform's input shows whether this one ran before it."""

    def transform(messages: list[AgentMessage], signal: AbortSignal | None) -> list[AgentMessage]:
        log.append(name)
        *rest, last = messages
        content = [{"type": "text", "text": f"{last['content'][0]['text']}+{name}"}]  # type: ignore[typeddict-item]
        return [*rest, {**last, "content": content}]  # type: ignore[list-item]

    return transform


def test_the_parts_declare_every_chain_in_order() -> None:
    runner = ExtensionRunner(".")
    gate = gate_for_session(".", mode="auto", settings_mode=None, project_trusted=False)
    mcp = RecordingTurns("mcp", [])
    parts = SessionParts(extensions=runner, permissions=gate, mcp=mcp)  # type: ignore[arg-type]
    hooks = parts.hooks()
    assert [getattr(h, "__self__", None) for h in hooks.tool_call] == [runner, gate]
    assert [getattr(h, "__self__", None) for h in hooks.tool_result] == [runner]
    assert list(hooks.context) == [runner.transform_context]
    assert list(hooks.turns) == [mcp]
    assert SessionParts().hooks() == AgentHooks(tool_call=[], tool_result=[], context=[], turns=[])


def test_context_transforms_run_in_order_then_the_agents_own(faux: FauxProvider) -> None:
    log: list[str] = []
    faux.set_responses([faux_assistant("ok")])
    hooks = AgentHooks(context=[tagging("first", log), tagging("second", log)])
    agent = Agent(model=faux.model(), hooks=hooks, transform_context=tagging("agent", log))
    asyncio.run(agent.prompt("hi"))
    assert log == ["first", "second", "agent"]
    sent = faux.requests[0].context["messages"][-1]
    assert sent["content"][0]["text"] == "hi+first+second+agent"
    assert agent.state.messages[0]["content"][0]["text"] == "hi"  # for this request only


def test_extensions_context_handlers_are_the_context_chain(faux: FauxProvider) -> None:
    log: list[str] = []
    runner = ExtensionRunner(".")

    def handler(event: dict[str, Any], ctx: Any) -> dict[str, Any]:
        log.append("extension")
        return {"messages": tagging("extension", [])(event["messages"], None)}

    ExtensionAPI(runner, "ext.py").on("context", handler)
    faux.set_responses([faux_assistant("ok")])
    agent = Agent(
        model=faux.model(), hooks=SessionParts(extensions=runner).hooks(), transform_context=tagging("agent", log)
    )
    asyncio.run(agent.prompt("hi"))
    assert log == ["extension", "agent"]
    assert faux.requests[0].context["messages"][-1]["content"][0]["text"] == "hi+extension+agent"


def test_turn_hooks_run_before_each_run_and_after_each_turn_in_order(faux: FauxProvider) -> None:
    log: list[str] = []

    def own(turn: TurnContext, signal: AbortSignal | None) -> None:
        log.append("agent.prepare_next_turn")

    faux.set_responses([faux_assistant([faux_tool_call("missing_tool", {}, id="t1")]), faux_assistant("done")])
    hooks = AgentHooks(turns=[RecordingTurns("one", log), RecordingTurns("two", log)])
    agent = Agent(model=faux.model(), hooks=hooks, prepare_next_turn=own)
    asyncio.run(agent.prompt("hi"))
    after_turn = ["one.next_turn", "two.next_turn", "agent.prepare_next_turn"]
    assert faux.call_count == 2  # two turns: the tool call, then the answer
    assert log == ["one.before_run", "two.before_run", *after_turn, *after_turn]
    log.clear()
    faux.set_responses([faux_assistant("again")])
    asyncio.run(agent.prompt("more"))
    assert log == ["one.before_run", "two.before_run", *after_turn]  # every run, not only the first
