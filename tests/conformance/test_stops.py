"""Scenarios 23–32: terminate, length stops, error stops, abort while streaming, toolCalls on stop."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_cli.agent.loop import AgentLoopConfig, run_agent_loop
from pi_cli.agent.types import AgentContext, AgentToolResult
from pi_cli.ai.providers.faux import FauxProvider, register_faux_provider

from .helpers import FnTool, Recorder, echo_execute, echo_tool, make_agent, reply, roles, tc


async def terminating(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
    result = await echo_execute(call_id, args, signal, on_update)
    result.terminate = True
    return result


async def test_23_all_terminate(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("never")])
    agent = make_agent(faux, tools=[echo_tool(execute=terminating)])
    rec = Recorder(agent)
    await agent.prompt("go")
    assert faux.call_count == 1
    assert roles(agent.state.messages) == ["user", "assistant", "toolResult"]
    assert rec.types.count("turn_end") == 1
    assert "terminate" not in agent.state.messages[2]  # never copied onto the message
    assert rec.of("tool_execution_end")[0]["result"]["terminate"] is True


async def test_23_terminate_from_after_tool_call(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("never")])
    agent = make_agent(faux, tools=[echo_tool()], after_tool_call=lambda c, s: {"terminate": True})
    await agent.prompt("go")
    assert faux.call_count == 1 and roles(agent.state.messages) == ["user", "assistant", "toolResult"]


async def test_24_mixed_terminate_continues(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "stop", {"value": "a"}), tc("t2", "echo", {"value": "b"})), reply("more")])
    agent = make_agent(faux, tools=[FnTool("stop", terminating), echo_tool()])
    await agent.prompt("go")
    assert faux.call_count == 2
    assert roles(agent.state.messages) == ["user", "assistant", "toolResult", "toolResult", "assistant"]


async def test_25_block_with_terminate(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"}), tc("t2", "stop", {"value": "b"})), reply("never")])

    def before(ctx: Any, signal: Any) -> Any:
        return {"block": True, "reason": "no", "terminate": True} if ctx.tool_call["id"] == "t1" else None

    agent = make_agent(faux, tools=[echo_tool(), FnTool("stop", terminating)], before_tool_call=before)
    await agent.prompt("go")
    assert faux.call_count == 1
    assert agent.state.messages[2]["content"][0]["text"] == "no" and agent.state.messages[2]["isError"]


async def test_26_terminate_with_steering(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("steered")])
    holder: dict[str, Any] = {}

    async def steer_then_terminate(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        holder["agent"].steer("change of plan")
        return await terminating(call_id, args, signal, on_update)

    agent = make_agent(faux, tools=[echo_tool(execute=steer_then_terminate)])
    holder["agent"] = agent
    await agent.prompt("go")
    assert faux.call_count == 2
    assert roles(agent.state.messages) == ["user", "assistant", "toolResult", "user", "assistant"]
    assert agent.state.messages[3]["content"][0]["text"] == "change of plan"


async def test_27_length_with_tool_calls(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"}), stop="length"), reply("retry")])
    tool = echo_tool()
    agent = make_agent(faux, tools=[tool])
    rec = Recorder(agent)
    await agent.prompt("go")
    assert tool.calls == []
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] and "output token limit" in end["result"]["content"][0]["text"]
    assert end["result"]["content"][0]["text"].startswith('Tool call "echo" was not executed')
    assert faux.call_count == 2 and agent.state.messages[-1]["role"] == "assistant"
    log = [e for e in rec.short() if e != "mu"]
    assert log[log.index("tes(t1)") : log.index("tes(t1)") + 5] == [
        "tes(t1)",
        "tee(t1)",
        "ms(t1)",
        "me(t1)",
        "turn_end",
    ]


async def test_28_length_without_tool_calls(faux: FauxProvider) -> None:
    faux.set_responses([reply("cut o", stop="length")])
    agent = make_agent(faux)
    rec = Recorder(agent)
    await agent.prompt("go")
    assert faux.call_count == 1 and rec.types[-2:] == ["turn_end", "agent_end"]
    assert agent.state.error_message is None


async def test_29_error_stop(faux: FauxProvider) -> None:
    faux.set_responses([reply("partial", stop="error", error="rate")])
    counts = {"steer": 0, "follow": 0, "stop": 0, "prepare": 0}

    def bump(key: str, value: Any = None) -> Any:
        counts[key] += 1
        return value

    config = AgentLoopConfig(
        model=faux.model(),
        get_steering_messages=lambda: bump("steer", []),
        get_follow_up_messages=lambda: bump("follow", []),
        should_stop_after_turn=lambda ctx: bump("stop", False),
        prepare_next_turn=lambda ctx: bump("prepare"),
    )
    rec = Recorder()
    user = {"role": "user", "content": "hi", "timestamp": 1}
    out = await run_agent_loop([user], AgentContext("", []), config, rec.sink)
    assert [e for e in rec.short() if e != "mu"][-4:] == ["ms(assistant)", "me(assistant)", "turn_end", "agent_end"]
    assert rec.of("turn_end")[0]["toolResults"] == [] and rec.of("turn_end")[0]["message"]["errorMessage"] == "rate"
    assert counts == {"steer": 1, "follow": 0, "stop": 0, "prepare": 0}
    assert roles(out) == ["user", "assistant"]

    faux.set_responses([reply("partial", stop="error", error="rate")])
    agent = make_agent(faux)
    await agent.prompt("hi")
    assert agent.state.error_message == "rate"


async def test_30_error_with_tool_calls_runs_none(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"}), stop="error", error="bad")])
    tool = echo_tool()
    agent = make_agent(faux, tools=[tool])
    rec = Recorder(agent)
    await agent.prompt("go")
    assert not any(t.startswith("tool_execution") for t in rec.types) and tool.calls == []


async def test_31_abort_while_streaming(faux: FauxProvider) -> None:
    called = asyncio.Event()

    async def wait_forever(context: Any, options: Any, index: int) -> Any:
        called.set()
        await asyncio.Event().wait()

    faux.set_responses([wait_forever])
    agent = make_agent(faux)
    rec = Recorder(agent)
    task = asyncio.ensure_future(agent.prompt("go"))
    await asyncio.wait_for(called.wait(), 1)
    assert agent.state.is_streaming
    agent.abort()
    await asyncio.wait_for(task, 1)
    assert agent.state.messages[-1]["stopReason"] == "aborted"
    assert rec.signals[0] is not None and rec.signals[0].aborted
    assert agent.state.is_streaming is False and rec.types[-2:] == ["turn_end", "agent_end"]


async def test_31_abort_mid_stream_keeps_partial() -> None:
    faux = register_faux_provider(tokens_per_second=200, token_size=(1, 1))
    try:
        faux.set_responses([reply("aaaabbbbccccddddeeeeffffgggg")])
        agent = make_agent(faux)
        seen: list[str] = []

        def listener(event: dict[str, Any], signal: Any) -> None:
            if event["type"] == "message_update" and event["assistantMessageEvent"]["type"] == "text_delta":
                seen.append(event["assistantMessageEvent"]["delta"])
                if len(seen) == 2:
                    agent.abort()

        agent.subscribe(listener)
        await asyncio.wait_for(agent.prompt("go"), 2)
        final = agent.state.messages[-1]
        assert final["stopReason"] == "aborted" and final["content"][0]["text"] == "aaaabbbb"
        # the agent is reusable afterwards
        faux.set_responses([reply("again")])
        await agent.prompt("once more")
        assert agent.state.messages[-1]["stopReason"] == "stop"
    finally:
        faux.unregister()


async def test_32_tools_run_despite_stop_reason_stop(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"}), stop="stop"), reply("done")])
    tool = echo_tool()
    await make_agent(faux, tools=[tool]).prompt("go")
    assert tool.calls == [("t1", {"value": "a"})] and faux.call_count == 2
