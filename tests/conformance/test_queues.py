"""Scenarios 33–38 and 45–47: steering, follow-up, queue modes and ``continue_``."""

from __future__ import annotations

from typing import Any

import pytest

from pi_cli.agent.agent import Agent
from pi_cli.agent.types import AgentToolResult
from pi_cli.ai.providers.faux import FauxProvider

from .helpers import Recorder, echo_execute, echo_tool, make_agent, reply, request_roles, roles, tc


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def texts(messages: list[Any]) -> list[str]:
    out = []
    for m in messages:
        content = m["content"]
        out.append(content if isinstance(content, str) else "".join(b.get("text", "") for b in content))
    return out


async def test_33_steering_after_the_batch(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"}), tc("t2", "echo", {"value": "b"})), reply("done")])
    holder: dict[str, Agent] = {}
    ran: list[str] = []

    async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        ran.append(call_id)
        if call_id == "t1":
            holder["agent"].steer(user("S"))
        return await echo_execute(call_id, args, signal, on_update)

    agent = make_agent(faux, tools=[echo_tool(execute=execute)], tool_execution="sequential")
    holder["agent"] = agent
    rec = Recorder(agent)
    await agent.prompt("go")
    assert ran == ["t1", "t2"]
    log = [e for e in rec.short() if e != "mu"]
    assert log[log.index("me(t2)") :][:5] == ["me(t2)", "turn_end", "turn_start", "ms(user)", "me(user)"]
    assert texts(faux.requests[1].context["messages"])[-1] == "S"
    assert request_roles(faux, 1) == ["user", "assistant", "toolResult", "toolResult", "user"]


@pytest.mark.parametrize("mode", ["one-at-a-time", "all"])
async def test_34_steering_modes(faux: FauxProvider, mode: str) -> None:
    holder: dict[str, Agent] = {}

    def first(context: Any, options: Any, index: int) -> Any:
        holder["agent"].steer(user("S1"))
        holder["agent"].steer(user("S2"))
        return reply("turn 1")

    faux.set_responses([first, reply("turn 2"), reply("turn 3")])
    agent = make_agent(faux, steering_mode=mode)
    holder["agent"] = agent
    await agent.prompt("go")
    if mode == "one-at-a-time":
        assert faux.call_count == 3
        assert texts(faux.requests[1].context["messages"])[-1] == "S1"
        assert texts(faux.requests[2].context["messages"])[-1] == "S2"
    else:
        assert faux.call_count == 2
        assert texts(faux.requests[1].context["messages"])[-2:] == ["S1", "S2"]
    assert agent.steering_queue == ()


async def test_35_steering_queued_before_prompt(faux: FauxProvider) -> None:
    faux.set_responses([reply("ok")])
    agent = make_agent(faux)
    agent.steer(user("S"))
    rec = Recorder(agent)
    await agent.prompt("p")
    assert texts(faux.requests[0].context["messages"]) == ["p", "S"]
    assert [e for e in rec.short() if e != "mu"][:7] == [
        "agent_start", "turn_start", "ms(user)", "me(user)", "ms(user)", "me(user)", "ms(assistant)",
    ]  # fmt: skip
    assert rec.types.count("turn_start") == 1


async def test_35_one_at_a_time_prompt_steering_takes_one(faux: FauxProvider) -> None:
    faux.set_responses([reply("a"), reply("b")])
    agent = make_agent(faux)
    agent.steer(user("S1"))
    agent.steer(user("S2"))
    await agent.prompt("p")
    assert texts(faux.requests[0].context["messages"]) == ["p", "S1"]
    assert texts(faux.requests[1].context["messages"])[-1] == "S2"


async def test_36_follow_up(faux: FauxProvider) -> None:
    holder: dict[str, Agent] = {}

    def first(context: Any, options: Any, index: int) -> Any:
        holder["agent"].follow_up(user("F"))
        return reply("A1")

    faux.set_responses([first, reply("A2")])
    agent = make_agent(faux)
    holder["agent"] = agent
    rec = Recorder(agent)
    await agent.prompt("go")
    log = [e for e in rec.short() if e != "mu"]
    first_end = log.index("turn_end")
    assert log[first_end : first_end + 5] == ["turn_end", "turn_start", "ms(user)", "me(user)", "ms(assistant)"]
    assert roles(agent.state.messages) == ["user", "assistant", "user", "assistant"]


@pytest.mark.parametrize(("mode", "calls"), [("one-at-a-time", 3), ("all", 2)])
async def test_37_follow_up_modes(faux: FauxProvider, mode: str, calls: int) -> None:
    faux.set_responses([reply("A1"), reply("A2"), reply("A3")])
    agent = make_agent(faux, follow_up_mode=mode)
    agent.follow_up(user("F1"))
    agent.follow_up(user("F2"))
    await agent.prompt("go")
    assert faux.call_count == calls
    assert texts(agent.state.messages).count("F1") == 1 and texts(agent.state.messages).count("F2") == 1


async def test_38_steering_before_follow_up(faux: FauxProvider) -> None:
    holder: dict[str, Agent] = {}

    def first(context: Any, options: Any, index: int) -> Any:
        holder["agent"].follow_up(user("F"))
        holder["agent"].steer(user("S"))
        return reply("A1")

    faux.set_responses([first, reply("A2"), reply("A3")])
    agent = make_agent(faux)
    holder["agent"] = agent
    await agent.prompt("go")
    assert texts(agent.state.messages) == ["go", "A1", "S", "A2", "F", "A3"]


async def test_45_continue_with_follow_up(faux: FauxProvider) -> None:
    faux.set_responses([reply("A2")])
    agent = make_agent(faux, messages=[user("u"), reply("A1")])
    agent.follow_up(user("F"))
    await agent.continue_()
    assert texts(agent.state.messages) == ["u", "A1", "F", "A2"]
    assert agent.state.messages[-1]["role"] == "assistant"


async def test_46_continue_with_two_steers(faux: FauxProvider) -> None:
    faux.set_responses([reply("A2"), reply("A3")])
    agent = make_agent(faux, messages=[user("u"), reply("A1")])
    agent.steer(user("S1"))
    agent.steer(user("S2"))
    await agent.continue_()
    assert faux.call_count == 2
    assert roles(agent.state.messages)[-4:] == ["user", "assistant", "user", "assistant"]
    assert texts(agent.state.messages) == ["u", "A1", "S1", "A2", "S2", "A3"]


async def test_46b_continue_from_user_tail(faux: FauxProvider) -> None:
    faux.set_responses([reply("answer")])
    agent = make_agent(faux, messages=[user("u")])
    rec = Recorder(agent)
    await agent.continue_()
    assert texts(agent.state.messages) == ["u", "answer"]
    assert [e for e in rec.short() if e != "mu"] == [
        "agent_start", "turn_start", "ms(assistant)", "me(assistant)", "turn_end", "agent_end",
    ]  # fmt: skip


async def test_47_nothing_to_continue(faux: FauxProvider) -> None:
    agent = make_agent(faux, messages=[user("u"), reply("A1")])
    with pytest.raises(ValueError, match=r"^Cannot continue from message role: assistant$"):
        await agent.continue_()
    with pytest.raises(ValueError, match=r"^No messages to continue from$"):
        await make_agent(faux).continue_()
    assert faux.call_count == 0
