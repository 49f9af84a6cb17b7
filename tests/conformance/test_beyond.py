"""Beyond pi: abort keeps queued messages, the ``max_turns`` guard, no request after an abort."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pi_cli.agent.agent import Agent
from pi_cli.agent.loop import AgentLoopConfig, run_agent_loop
from pi_cli.agent.types import AgentContext, AgentToolResult
from pi_cli.ai.providers.faux import FauxProvider

from .helpers import Recorder, echo_execute, echo_tool, make_agent, reply, roles, tc


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def text(message: Any) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


# --- abort never loses queued messages ------------------------------------------------------


async def test_abort_while_streaming_keeps_both_queues(faux: FauxProvider) -> None:
    called = asyncio.Event()

    async def wait_forever(context: Any, options: Any, index: int) -> Any:
        called.set()
        await asyncio.Event().wait()

    faux.set_responses([wait_forever, reply("next")])
    agent = make_agent(faux)
    task = asyncio.ensure_future(agent.prompt("go"))
    await asyncio.wait_for(called.wait(), 1)
    agent.steer(user("S"))
    agent.follow_up(user("F"))
    agent.abort()
    await asyncio.wait_for(task, 1)
    assert [text(m) for m in agent.steering_queue] == ["S"]
    assert [text(m) for m in agent.follow_up_queue] == ["F"]
    assert "S" not in [text(m) for m in agent.state.messages]
    assert agent.has_queued_messages()
    restored = agent.clear_all_queues()
    assert [text(m) for m in restored] == ["S", "F"] and not agent.has_queued_messages()


async def test_abort_during_tools_keeps_steering_for_the_next_prompt(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("answer")])
    holder: dict[str, Agent] = {}

    async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        holder["agent"].steer(user("S"))
        holder["agent"].abort()
        return await echo_execute(call_id, args, signal, on_update)

    agent = make_agent(faux, tools=[echo_tool(execute=execute)])
    holder["agent"] = agent
    await agent.prompt("go")
    assert faux.call_count == 1  # pi would have drained S and issued an aborted request
    assert [text(m) for m in agent.steering_queue] == ["S"]
    # As pi, the run still ends with an aborted assistant turn (made without a request).
    assert roles(agent.state.messages) == ["user", "assistant", "toolResult", "assistant"]
    assert agent.state.messages[-1]["stopReason"] == "aborted"
    await agent.prompt("again")
    assert [text(m) for m in faux.requests[1].context["messages"][-2:]] == ["again", "S"]
    assert agent.steering_queue == ()


async def test_abort_after_a_tool_less_turn_keeps_follow_ups(faux: FauxProvider) -> None:
    faux.set_responses([reply("one"), reply("two")])
    agent = make_agent(faux)

    def on_turn_end(event: dict[str, Any], signal: Any) -> None:
        if event["type"] == "turn_end":
            agent.follow_up(user("F"))
            agent.abort()

    unsubscribe = agent.subscribe(on_turn_end)
    rec = Recorder(agent)
    await agent.prompt("go")
    unsubscribe()
    assert faux.call_count == 1 and rec.types[-2:] == ["turn_end", "agent_end"]
    assert [text(m) for m in agent.follow_up_queue] == ["F"]


async def test_abort_in_before_tool_call_gives_operation_aborted(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"}), tc("t2", "echo", {"value": "b"})), reply("never")])
    holder: dict[str, Agent] = {}
    tool = echo_tool()

    def before(ctx: Any, signal: Any) -> None:
        holder["agent"].abort()

    agent = make_agent(faux, tools=[tool], before_tool_call=before)
    holder["agent"] = agent
    rec = Recorder(agent)
    await asyncio.wait_for(agent.prompt("go"), 1)
    assert tool.calls == [] and faux.call_count == 1
    ends = rec.of("tool_execution_end")
    # As pi 1.6: every call of the batch gets a result, the ones not started "Operation aborted".
    assert [e["toolCallId"] for e in ends] == ["t1", "t2"]
    assert {e["result"]["content"][0]["text"] for e in ends} == {"Operation aborted"}
    assert rec.types[-2:] == ["turn_end", "agent_end"]
    assert agent.state.messages[-1]["stopReason"] == "aborted"  # the closing turn, made without a request


async def test_abort_during_parallel_batch_makes_no_further_request(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"}), tc("t2", "echo", {"value": "b"})), reply("never")])
    holder: dict[str, Agent] = {}

    async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        if call_id == "t1":
            holder["agent"].abort()
        else:
            await signal.wait()
            raise RuntimeError("cancelled")
        return await echo_execute(call_id, args, signal, on_update)

    agent = make_agent(faux, tools=[echo_tool(execute=execute)])
    holder["agent"] = agent
    rec = Recorder(agent)
    await asyncio.wait_for(agent.prompt("go"), 1)
    assert faux.call_count == 1
    assert roles(agent.state.messages) == ["user", "assistant", "toolResult", "toolResult", "assistant"]
    assert agent.state.messages[3]["isError"] is True
    assert agent.state.messages[4]["stopReason"] == "aborted"  # pi's closing turn, without a request
    assert rec.types[-2:] == ["turn_end", "agent_end"]


# --- max_turns ------------------------------------------------------------------------------


async def test_max_turns_ends_cleanly_with_reason(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc(f"t{i}", "echo", {"value": str(i)})) for i in range(10)])
    agent = make_agent(faux, tools=[echo_tool()], max_turns=3)
    rec = Recorder(agent)
    await agent.prompt("loop forever")
    assert faux.call_count == 3
    assert rec.types[-2:] == ["turn_end", "agent_end"]
    assert rec.events[-1]["reason"] == "max_turns"
    assert roles(agent.state.messages)[-2:] == ["assistant", "toolResult"]  # the last turn completed
    assert agent.state.is_streaming is False and agent.state.error_message is None


async def test_max_turns_not_reached_has_no_reason(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("done")])
    agent = make_agent(faux, tools=[echo_tool()], max_turns=2)
    rec = Recorder(agent)
    await agent.prompt("go")
    assert faux.call_count == 2 and "reason" not in rec.events[-1]


async def test_max_turns_with_queued_messages_keeps_them(faux: FauxProvider) -> None:
    holder: dict[str, Agent] = {}

    def first(context: Any, options: Any, index: int) -> Any:
        holder["agent"].steer(user("S"))
        holder["agent"].follow_up(user("F"))
        return reply("only turn")

    faux.set_responses([first, reply("never")])
    agent = make_agent(faux, max_turns=1)
    holder["agent"] = agent
    rec = Recorder(agent)
    await agent.prompt("go")
    assert faux.call_count == 1 and rec.events[-1]["reason"] == "max_turns"
    assert [text(m) for m in agent.clear_all_queues()] == ["S", "F"]


async def test_max_turns_low_level(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc(f"t{i}", "echo", {"value": "x"})) for i in range(5)])
    rec = Recorder()
    config = AgentLoopConfig(model=faux.model(), max_turns=2)
    out = await run_agent_loop([user("go")], AgentContext("", [], [echo_tool()]), config, rec.sink)
    assert faux.call_count == 2 and rec.events[-1] == {"type": "agent_end", "messages": out, "reason": "max_turns"}


def test_max_turns_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_turns"):
        Agent(max_turns=0)


def test_bad_queue_mode_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="steering_mode"):
        Agent(steering_mode="sometimes")  # type: ignore[arg-type]


# --- robustness -----------------------------------------------------------------------------


async def test_listener_raising_becomes_an_error_message(faux: FauxProvider) -> None:
    faux.set_responses([reply("ok")])
    agent = make_agent(faux)
    raised: list[bool] = []

    def flaky(event: dict[str, Any], signal: Any) -> None:
        if event["type"] == "turn_start" and not raised:
            raised.append(True)
            raise RuntimeError("listener broke")

    agent.subscribe(flaky)
    await agent.prompt("go")
    last = agent.state.messages[-1]
    assert last["stopReason"] == "error" and last["errorMessage"] == "listener broke"
    assert agent.state.is_streaming is False and agent.signal is None


async def test_unknown_api_is_a_readable_error() -> None:
    agent = Agent()  # placeholder model, api "unknown"
    await agent.prompt("hi")
    assert agent.state.error_message == "No provider registered for api: unknown"


async def test_sync_execute_is_accepted(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("ok")])

    class SyncTool:
        name, label, description, execution_mode = "echo", "Echo", "echo", None
        parameters: dict[str, Any] = {"type": "object"}  # noqa: RUF012

        def execute(self, call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
            return AgentToolResult(content=[{"type": "text", "text": "sync"}])

    agent = make_agent(faux, tools=[SyncTool()])
    await agent.prompt("go")
    assert agent.state.messages[2]["content"][0]["text"] == "sync" and not agent.state.messages[2]["isError"]
