"""Scenarios 39–44 and 48–58: turn hooks, low-level entry points, the Agent's lifecycle."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pi_cli.agent.agent import Agent
from pi_cli.agent.loop import AgentLoopConfig, agent_loop, agent_loop_continue, run_agent_loop, run_agent_loop_continue
from pi_cli.agent.types import AgentContext, AgentToolResult, NextTurnUpdate, TurnContext
from pi_cli.ai.providers.faux import FauxProvider, register_faux_provider

from .helpers import Recorder, echo_execute, echo_tool, make_agent, reply, roles, tc


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def no_mu(rec: Recorder) -> list[str]:
    return [e for e in rec.short() if e != "mu"]


async def test_39_should_stop_after_turn_low_level(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("never")])
    polls = {"steer": 0, "follow": 0}
    seen: list[TurnContext] = []

    def steer() -> list[Any]:
        polls["steer"] += 1
        return []

    def follow() -> list[Any]:
        polls["follow"] += 1
        return []

    def stop(ctx: TurnContext) -> bool:
        seen.append(ctx)
        return True

    config = AgentLoopConfig(
        model=faux.model(), should_stop_after_turn=stop, get_steering_messages=steer, get_follow_up_messages=follow
    )
    rec = Recorder()
    out = await run_agent_loop([user("go")], AgentContext("", [], [echo_tool()]), config, rec.sink)
    assert no_mu(rec) == [
        "agent_start", "turn_start", "ms(user)", "me(user)", "ms(assistant)", "me(assistant)",
        "tes(t1)", "tee(t1)", "ms(t1)", "me(t1)", "turn_end", "agent_end",
    ]  # fmt: skip
    assert faux.call_count == 1 and polls == {"steer": 1, "follow": 0}
    assert [m["toolCallId"] for m in seen[0].tool_results] == ["t1"]
    assert roles(seen[0].context.messages) == ["user", "assistant", "toolResult"]
    assert roles(out) == ["user", "assistant", "toolResult"]


async def test_40_agent_should_stop_after_turn(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("never")])
    got: list[Any] = []

    async def stop(ctx: TurnContext, signal: Any) -> bool:
        got.append(signal)
        return True

    agent = make_agent(faux, tools=[echo_tool()], should_stop_after_turn=stop)
    await agent.prompt("go")
    assert len(faux.requests) == 1
    assert got[0] is not None and got[0].aborted is False


async def test_41_prepare_next_turn() -> None:
    faux = register_faux_provider(models=["faux-1", "faux-2"])
    try:
        faux.set_responses(
            [reply(tc("t1", "echo", {"value": "a"})), reply(tc("t2", "echo", {"value": "b"})), reply("x")]
        )
        updates: list[Any] = [None, None]

        def prepare(ctx: TurnContext, signal: Any) -> Any:
            index = len(updates) - 2
            updates.append(ctx)
            if index == 0:
                context = AgentContext("second prompt", ctx.context.messages, ctx.context.tools)
                return NextTurnUpdate(context=context, model=faux.model("faux-2"), thinking_level="high")
            if index == 1:
                return NextTurnUpdate(thinking_level="off")
            return None

        agent = make_agent(faux, system_prompt="first prompt", tools=[echo_tool()], prepare_next_turn=prepare)
        await agent.prompt("go")
        first, second, third = faux.requests
        assert first.context["systemPrompt"] == "first prompt" and first.model["id"] == "faux-1"
        assert second.context["systemPrompt"] == "second prompt" and second.model["id"] == "faux-2"
        assert first.options.reasoning is None and second.options.reasoning == "high"
        assert third.options.reasoning is None and third.model["id"] == "faux-2"
        assert agent.state.system_prompt == "first prompt"  # the run's snapshot changed, not the state
    finally:
        faux.unregister()


async def test_42_hook_order(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("done")])
    log: list[str] = []

    async def sink(event: dict[str, Any]) -> None:
        if event["type"] in ("turn_end", "agent_end"):
            log.append(event["type"])

    config = AgentLoopConfig(
        model=faux.model(),
        prepare_next_turn=lambda ctx: log.append("prepare"),
        should_stop_after_turn=lambda ctx: log.append("stop") or False,
        get_steering_messages=lambda: log.append("steer") or [],
        get_follow_up_messages=lambda: log.append("follow") or [],
    )
    await run_agent_loop([user("go")], AgentContext("", [], [echo_tool()]), config, sink)
    assert log == [
        "steer",
        "turn_end", "prepare", "stop", "steer",
        "turn_end", "prepare", "stop", "steer", "follow",
        "agent_end",
    ]  # fmt: skip


async def test_43_low_level_continue(faux: FauxProvider) -> None:
    faux.set_responses([reply("answer"), reply("streamed")])
    rec = Recorder()
    context = AgentContext("", [user("q")])
    out = await run_agent_loop_continue(context, AgentLoopConfig(model=faux.model()), rec.sink)
    assert roles(out) == ["assistant"]
    assert no_mu(rec) == ["agent_start", "turn_start", "ms(assistant)", "me(assistant)", "turn_end", "agent_end"]
    assert rec.types.count("message_end") == 1

    stream = agent_loop_continue(context, AgentLoopConfig(model=faux.model()))
    types = [e["type"] async for e in stream]
    assert types[0] == "agent_start" and types[-1] == "agent_end"
    assert roles(await stream.result()) == ["assistant"]

    with pytest.raises(ValueError, match=r"^Cannot continue: no messages in context$"):
        agent_loop_continue(AgentContext("", []), AgentLoopConfig(model=faux.model()))
    with pytest.raises(ValueError, match=r"^Cannot continue from message role: assistant$"):
        await run_agent_loop_continue(AgentContext("", [reply("a")]), AgentLoopConfig(model=faux.model()), rec.sink)
    custom_tail = AgentContext("", [{"role": "notification", "text": "x"}])
    faux.set_responses([reply("ok")])
    assert roles(await run_agent_loop_continue(custom_tail, AgentLoopConfig(model=faux.model()), rec.sink)) == [
        "assistant"
    ]


async def test_44_continue_does_not_mutate_callers_list(faux: FauxProvider) -> None:
    """Adjusted: pi's continue aliases the caller's list; ours copies it (like agent_loop)."""
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("done"), reply("again")])
    messages: list[Any] = [user("q")]
    context = AgentContext("", messages, [echo_tool()])
    out = await run_agent_loop_continue(context, AgentLoopConfig(model=faux.model()), Recorder().sink)
    assert messages == [user("q")] and context.messages is messages
    assert roles(out) == ["assistant", "toolResult", "assistant"]
    out = await run_agent_loop([user("more")], context, AgentLoopConfig(model=faux.model()), Recorder().sink)
    assert messages == [user("q")] and roles(out) == ["user", "assistant"]


async def test_44b_agent_loop_stream(faux: FauxProvider) -> None:
    faux.set_responses([reply("hi")])
    stream = agent_loop([user("q")], AgentContext("", []), AgentLoopConfig(model=faux.model()))
    types = [e["type"] async for e in stream]
    assert types[:2] == ["agent_start", "turn_start"] and types[-1] == "agent_end"
    assert roles(await stream.result()) == ["user", "assistant"]


async def test_44c_agent_loop_stream_propagates_hook_errors(faux: FauxProvider) -> None:
    faux.set_responses([reply("hi")])

    def bad_convert(messages: list[Any]) -> list[Any]:
        raise RuntimeError("convert failed")

    stream = agent_loop(
        [user("q")], AgentContext("", []), AgentLoopConfig(model=faux.model(), convert_to_llm=bad_convert)
    )
    seen: list[str] = []
    with pytest.raises(RuntimeError, match="convert failed"):
        async for event in stream:
            seen.append(event["type"])
    assert seen[0] == "agent_start"


async def test_48_reentrancy(faux: FauxProvider) -> None:
    gate = asyncio.Event()

    async def slow(context: Any, options: Any, index: int) -> Any:
        await gate.wait()
        return reply("ok")

    faux.set_responses([slow])
    agent = make_agent(faux)
    task = asyncio.ensure_future(agent.prompt("one"))
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match=r"^Agent is already processing a prompt\. Use steer\(\)"):
        await agent.prompt("two")
    with pytest.raises(RuntimeError, match=r"^Agent is already processing\. Wait for completion before continuing\.$"):
        await agent.continue_()
    gate.set()
    await task
    assert roles(agent.state.messages) == ["user", "assistant"]


async def test_49_awaited_listeners(faux: FauxProvider) -> None:
    faux.set_responses([reply("ok"), reply("again")])
    agent = make_agent(faux)
    barrier = asyncio.Event()
    inside: list[bool] = []

    async def on_end(event: dict[str, Any], signal: Any) -> None:
        if event["type"] == "agent_end":
            inside.append(agent.state.is_streaming)
            await barrier.wait()

    unsubscribe = agent.subscribe(on_end)
    task = asyncio.ensure_future(agent.prompt("go"))
    await asyncio.sleep(0.01)
    assert not task.done() and agent.state.is_streaming and inside == [True]
    barrier.set()
    await asyncio.wait_for(task, 1)
    assert agent.state.is_streaming is False
    unsubscribe()

    blocked = asyncio.Event()

    async def on_message_end(event: dict[str, Any], signal: Any) -> None:
        if event["type"] == "message_end" and event["message"]["role"] == "assistant":
            await blocked.wait()

    agent.subscribe(on_message_end)
    task = asyncio.ensure_future(agent.prompt("more"))
    await asyncio.sleep(0.01)
    idle = asyncio.ensure_future(agent.wait_for_idle())
    await asyncio.sleep(0.01)
    assert not idle.done() and agent.state.is_streaming
    blocked.set()
    await asyncio.wait_for(idle, 1)
    assert task.done() and agent.state.is_streaming is False
    await agent.wait_for_idle()  # idle: returns at once


async def test_50_barrier_and_listener_order(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("done")])
    holder: dict[str, Agent] = {}
    seen_last: list[Any] = []

    def before(ctx: Any, signal: Any) -> None:
        seen_last.append(holder["agent"].state.messages[-1])

    agent = make_agent(faux, tools=[echo_tool()], before_tool_call=before)
    holder["agent"] = agent
    order: list[str] = []
    agent.subscribe(lambda e, s: order.append("a") if e["type"] == "agent_start" else None)

    async def second(event: dict[str, Any], signal: Any) -> None:
        if event["type"] == "agent_start":
            await asyncio.sleep(0)
            order.append("b")

    agent.subscribe(second)
    dropped: list[Any] = []
    unsubscribe = agent.subscribe(lambda e, s: dropped.append(e))
    agent.subscribe(lambda e, s: order.append("c") if e["type"] == "agent_start" else None)
    unsubscribe()
    await agent.prompt("go")
    assert seen_last[0]["role"] == "assistant" and seen_last[0]["content"][0]["type"] == "toolCall"
    assert order == ["a", "b", "c"] and dropped == []


async def test_51_run_failure() -> None:
    def exploding(model: Any, context: Any, options: Any) -> Any:
        raise RuntimeError("provider exploded")

    agent = Agent(stream_fn=exploding)
    rec = Recorder(agent)
    await agent.prompt("hi")
    assert no_mu(rec) == [
        "agent_start", "turn_start", "ms(user)", "me(user)", "ms(assistant)", "me(assistant)", "turn_end", "agent_end",
    ]  # fmt: skip
    last = agent.state.messages[-1]
    assert last["role"] == "assistant" and last["stopReason"] == "error" and last["errorMessage"] == "provider exploded"
    assert agent.state.error_message == "provider exploded" and agent.state.is_streaming is False


async def test_52_reset(faux: FauxProvider) -> None:
    gate = asyncio.Event()

    async def slow(context: Any, options: Any, index: int) -> Any:
        await gate.wait()
        return reply("ok", stop="error", error="bad")

    faux.set_responses([slow])
    tool = echo_tool()
    agent = make_agent(faux, system_prompt="sys", tools=[tool])
    task = asyncio.ensure_future(agent.prompt("go"))
    await asyncio.sleep(0.01)
    with pytest.raises(RuntimeError, match="before resetting"):
        agent.reset()
    assert roles(agent.state.messages) == ["user"]
    gate.set()
    await task
    agent.steer(user("s"))
    agent.follow_up(user("f"))
    assert agent.state.error_message == "bad"
    agent.reset()
    assert agent.state.messages == [] and not agent.has_queued_messages() and agent.state.error_message is None
    assert agent.state.system_prompt == "sys" and agent.state.model == faux.model() and agent.state.tools == [tool]


async def test_54_runtime_state(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"}), tc("t2", "echo", {"value": "b"})), reply("done")])
    holder: dict[str, Agent] = {}
    pending_seen: list[frozenset[str]] = []

    async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        await asyncio.sleep(0)
        pending_seen.append(holder["agent"].state.pending_tool_calls)
        return await echo_execute(call_id, args, signal, on_update)

    agent = make_agent(faux, tools=[echo_tool(execute=execute)])
    holder["agent"] = agent
    assert agent.state.streaming_message is None
    await agent.prompt("go")
    assert pending_seen[0] == {"t1", "t2"}
    assert agent.state.pending_tool_calls == frozenset() and agent.state.streaming_message is None


async def test_55_state_copies(faux: FauxProvider) -> None:
    agent = make_agent(faux)
    tools = [echo_tool()]
    messages: list[Any] = [user("a")]
    agent.state.tools = tools
    agent.state.messages = messages
    assert agent.state.tools == tools and agent.state.tools is not tools
    assert agent.state.messages == messages and agent.state.messages is not messages
    agent.state.messages.append(user("b"))
    assert len(agent.state.messages) == 2 and len(messages) == 1


async def test_56_agent_end_messages(faux: FauxProvider) -> None:
    holder: dict[str, Agent] = {}

    async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        holder["agent"].steer(user("S"))
        holder["agent"].follow_up(user("F"))
        return await echo_execute(call_id, args, signal, on_update)

    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("after steer"), reply("after follow")])
    agent = make_agent(faux, tools=[echo_tool(execute=execute)], messages=[user("old"), reply("old answer")])
    holder["agent"] = agent
    rec = Recorder(agent)
    await agent.prompt("go")
    ended = [e["message"] for e in rec.of("message_end")]
    assert rec.events[-1]["messages"] == ended
    assert roles(ended) == ["user", "assistant", "toolResult", "user", "assistant", "user", "assistant"]


async def test_57_no_turn_cap(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc(f"t{i}", "echo", {"value": str(i)})) for i in range(25)] + [reply("finally")])
    agent = make_agent(faux, tools=[echo_tool()])
    await agent.prompt("go")
    assert faux.call_count == 26 and agent.state.messages[-1]["content"][0]["text"] == "finally"


async def test_58_abort_during_tools_makes_no_further_request(faux: FauxProvider) -> None:
    """Adjusted: as pi 1.6, the second call gets an "Operation aborted" result and the run ends with
    an aborted assistant turn; beyond pi, that turn makes no model call."""
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"}), tc("t2", "echo", {"value": "b"})), reply("never")])
    holder: dict[str, Agent] = {}

    async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        holder["agent"].abort()
        assert signal.aborted
        return await echo_execute(call_id, args, signal, on_update)

    tool = echo_tool(execute=execute)
    agent = make_agent(faux, tools=[tool], tool_execution="sequential")
    holder["agent"] = agent
    rec = Recorder(agent)
    await asyncio.wait_for(agent.prompt("go"), 1)
    assert [c[0] for c in tool.calls] == ["t1"]
    assert faux.call_count == 1
    events = no_mu(rec)
    tail = events[events.index("tes(t2)") :]
    assert tail[:5] == ["tes(t2)", "tee(t2)", "ms(t2)", "me(t2)", "turn_end"]
    assert tail[5] == "turn_start" and tail[-2:] == ["turn_end", "agent_end"]
    assert agent.state.messages[-2]["content"][0]["text"] == "Operation aborted"
    assert agent.state.messages[-1]["stopReason"] == "aborted"
    assert agent.state.is_streaming is False
