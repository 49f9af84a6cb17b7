"""Scenarios 7–22 and 53: the tool pipeline, parallel/sequential execution, hooks, updates."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_cli.agent.types import AfterToolCallResult, AgentToolResult, BeforeToolCallResult
from pi_cli.ai.providers.faux import FauxProvider, faux_text

from .helpers import FnTool, Recorder, echo_tool, make_agent, reply, request_roles, roles, tc


def no_updates(rec: Recorder) -> list[str]:
    return [e for e in rec.short() if e != "mu"]


async def test_07_one_tool_round(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "hi"}), stop="toolUse"), reply("done")])
    tool = echo_tool()
    agent = make_agent(faux, tools=[tool])
    rec = Recorder(agent)
    await agent.prompt("go")
    assert tool.calls == [("t1", {"value": "hi"})]
    assert no_updates(rec) == [
        "agent_start", "turn_start", "ms(user)", "me(user)", "ms(assistant)", "me(assistant)",
        "tes(t1)", "tee(t1)", "ms(t1)", "me(t1)", "turn_end",
        "turn_start", "ms(assistant)", "me(assistant)", "turn_end", "agent_end",
    ]  # fmt: skip
    assert roles(agent.state.messages) == ["user", "assistant", "toolResult", "assistant"]
    assert request_roles(faux, 1) == ["user", "assistant", "toolResult"]
    result = faux.requests[1].context["messages"][2]
    assert result["content"] == [faux_text("echoed: hi")] and result["isError"] is False


async def test_07_execute_receives_signal_and_on_update(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "hi"})), reply("done")])
    got: list[Any] = []

    async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        got.extend([signal, on_update])
        return AgentToolResult(content=[faux_text("x")])

    agent = make_agent(faux, tools=[echo_tool(execute=execute)])
    await agent.prompt("go")
    assert got[0] is not None and hasattr(got[0], "aborted") and callable(got[1])


async def test_08_parallel_ordering(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "1"}), tc("t2", "echo", {"value": "2"})), reply("done")])
    release = asyncio.Event()
    running: list[str] = []

    async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        running.append(f"start {call_id}")
        if call_id == "t1":
            asyncio.get_running_loop().call_later(0.02, release.set)
            await release.wait()
        running.append(f"end {call_id}")
        return AgentToolResult(content=[faux_text(call_id)])

    agent = make_agent(faux, tools=[echo_tool(execute=execute)])
    rec = Recorder(agent)
    await agent.prompt("go")
    assert running == ["start t1", "start t2", "end t2", "end t1"]
    assert [e["toolCallId"] for e in rec.of("tool_execution_end")] == ["t2", "t1"]
    assert [e["message"]["toolCallId"] for e in rec.of("message_end") if e["message"]["role"] == "toolResult"] == [
        "t1",
        "t2",
    ]
    turn_end = rec.of("turn_end")[0]
    assert [m["toolCallId"] for m in turn_end["toolResults"]] == ["t1", "t2"]


async def test_09_preflight_before_execution(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "1"}), tc("t2", "echo", {"value": "2"})), reply("done")])
    log: list[str] = []

    async def before(ctx: Any, signal: Any) -> None:
        log.append(f"before {ctx.tool_call['id']}")

    async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        log.append(f"execute {call_id}")
        return AgentToolResult(content=[faux_text(call_id)])

    agent = make_agent(faux, tools=[echo_tool(execute=execute)], before_tool_call=before)
    agent.subscribe(lambda e, s: log.append(f"tes {e['toolCallId']}") if e["type"] == "tool_execution_start" else None)
    await agent.prompt("go")
    assert log[:4] == ["tes t1", "before t1", "tes t2", "before t2"]
    assert sorted(log[4:]) == ["execute t1", "execute t2"]


def overlap_tools(mode_slow: str | None, mode_fast: str | None) -> tuple[FnTool, FnTool, list[str]]:
    log: list[str] = []

    async def slow(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        log.append("slow start")
        await asyncio.sleep(0.01)
        log.append("slow end")
        return AgentToolResult(content=[faux_text("slow")])

    async def fast(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        log.append("fast start")
        log.append("fast end")
        return AgentToolResult(content=[faux_text("fast")])

    return FnTool("slow", slow, execution_mode=mode_slow), FnTool("fast", fast, execution_mode=mode_fast), log


SLOW_FAST = [reply(tc("c1", "slow", {"value": "a"}), tc("c2", "fast", {"value": "b"})), reply("done")]


async def test_10_global_sequential(faux: FauxProvider) -> None:
    faux.set_responses(SLOW_FAST)
    slow, fast, log = overlap_tools(None, None)
    agent = make_agent(faux, tools=[slow, fast], tool_execution="sequential")
    rec = Recorder(agent)
    await agent.prompt("go")
    assert log == ["slow start", "slow end", "fast start", "fast end"]
    tools_part = [e for e in no_updates(rec) if e.startswith(("tes", "tee", "ms(c", "me(c"))]
    assert tools_part == ["tes(c1)", "tee(c1)", "ms(c1)", "me(c1)", "tes(c2)", "tee(c2)", "ms(c2)", "me(c2)"]


async def test_11_per_tool_sequential_forces_batch(faux: FauxProvider) -> None:
    faux.set_responses(SLOW_FAST)
    slow, fast, log = overlap_tools("sequential", None)
    await make_agent(faux, tools=[slow, fast]).prompt("go")
    assert log == ["slow start", "slow end", "fast start", "fast end"]


async def test_12_explicit_parallel_overlaps(faux: FauxProvider) -> None:
    faux.set_responses(SLOW_FAST)
    slow, fast, log = overlap_tools("parallel", "parallel")
    await make_agent(faux, tools=[slow, fast]).prompt("go")
    assert log == ["slow start", "fast start", "fast end", "slow end"]


async def test_13_tool_raises(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "x"})), reply("done")])

    async def boom(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        raise RuntimeError("boom")

    agent = make_agent(faux, tools=[echo_tool(execute=boom)])
    rec = Recorder(agent)
    await agent.prompt("go")
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True
    assert end["result"]["content"][0]["text"] == "boom" and end["result"]["details"] == {}
    assert agent.state.messages[2]["isError"] is True
    assert faux.call_count == 2


async def test_14_unknown_tool(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "nope", {})), reply("done")])
    hooks: list[str] = []
    agent = make_agent(
        faux,
        tools=[echo_tool()],
        before_tool_call=lambda c, s: hooks.append("before"),
        after_tool_call=lambda c, s: hooks.append("after"),
    )
    rec = Recorder(agent)
    await agent.prompt("go")
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] and end["result"]["content"][0]["text"] == "Tool nope not found"
    assert hooks == [] and faux.call_count == 2


async def test_15_invalid_args(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {})), reply("done")])
    hooks: list[str] = []
    tool = echo_tool()
    agent = make_agent(faux, tools=[tool], before_tool_call=lambda c, s: hooks.append("before"))
    rec = Recorder(agent)
    await agent.prompt("go")
    text = rec.of("tool_execution_end")[0]["result"]["content"][0]["text"]
    assert text.startswith('Validation failed for tool "echo"') and "value" in text
    assert text == (
        "Validation failed for tool \"echo\":\n  - value: must have required property 'value'\n\n"
        "Received arguments:\n{}"
    )
    assert hooks == [] and tool.calls == []


async def test_15b_coercion_and_nested_paths(faux: FauxProvider) -> None:
    schema = {
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "opts": {"type": "object", "properties": {"deep": {"type": "boolean"}}},
        },
        "required": ["count"],
    }
    tool = FnTool("calc", parameters=schema)
    faux.set_responses(
        [
            reply(tc("t1", "calc", {"count": "5", "ratio": "0.5", "opts": {"deep": "true"}})),
            reply(tc("t2", "calc", {"count": "five", "opts": {"deep": []}})),
            reply("done"),
        ]
    )
    agent = make_agent(faux, tools=[tool])
    rec = Recorder(agent)
    await agent.prompt("go")
    assert tool.calls[0][1] == {"count": 5, "ratio": 0.5, "opts": {"deep": True}}
    assert rec.of("tool_execution_start")[0]["args"]["count"] == "5"  # the raw args are untouched
    text = rec.of("tool_execution_end")[1]["result"]["content"][0]["text"]
    assert "  - count: must be integer" in text and "  - opts.deep: must be boolean" in text
    assert text.endswith('Received arguments:\n{\n  "count": "five",\n  "opts": {\n    "deep": []\n  }\n}')


async def test_16_prepare_arguments(faux: FauxProvider) -> None:
    schema = {
        "type": "object",
        "properties": {"edits": {"type": "array", "items": {"type": "object"}}},
        "required": ["edits"],
    }

    def prepare(raw: dict[str, Any]) -> dict[str, Any]:
        if "oldText" in raw:
            return {"edits": [{"oldText": raw["oldText"], "newText": raw["newText"]}]}
        return raw

    tool = FnTool("edit", parameters=schema, prepare_arguments=prepare)
    faux.set_responses([reply(tc("t1", "edit", {"oldText": "a", "newText": "b"})), reply("done")])
    agent = make_agent(faux, tools=[tool])
    rec = Recorder(agent)
    await agent.prompt("go")
    assert tool.calls[0][1] == {"edits": [{"oldText": "a", "newText": "b"}]}
    assert rec.of("tool_execution_start")[0]["args"] == {"oldText": "a", "newText": "b"}


async def test_17_block(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "x"})), reply(tc("t2", "echo", {"value": "y"})), reply("ok")])
    verdicts: list[Any] = [BeforeToolCallResult(block=True, reason="nope"), {"block": True}]
    after: list[str] = []
    tool = echo_tool()
    agent = make_agent(
        faux,
        tools=[tool],
        before_tool_call=lambda c, s: verdicts.pop(0),
        after_tool_call=lambda c, s: after.append("x"),
    )
    rec = Recorder(agent)
    await agent.prompt("go")
    assert tool.calls == [] and after == []
    ends = rec.of("tool_execution_end")
    assert [e["result"]["content"][0]["text"] for e in ends] == ["nope", "Tool execution was blocked"]
    assert all(e["isError"] for e in ends)
    log = rec.short()
    assert log.index("tes(t1)") < log.index("tee(t1)")


async def test_18_args_mutation_without_revalidation(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "x"})), reply("ok")])

    def before(ctx: Any, signal: Any) -> None:
        ctx.args["value"] = 123

    tool = echo_tool()
    agent = make_agent(faux, tools=[tool], before_tool_call=before)
    await agent.prompt("go")
    assert tool.calls[0][1] == {"value": 123}
    assert agent.state.messages[1]["content"][0]["arguments"] == {"value": "x"}  # the transcript keeps raw args


async def test_19_raising_before_tool_call(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "x"})), reply("ok")])

    async def before(ctx: Any, signal: Any) -> None:
        raise RuntimeError("x")

    tool = echo_tool()
    agent = make_agent(faux, tools=[tool], before_tool_call=before)
    rec = Recorder(agent)
    await agent.prompt("go")
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] and end["result"]["content"][0]["text"] == "x"
    assert tool.calls == [] and faux.call_count == 2


async def test_20_after_tool_call_override(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "v"})), reply("ok")])
    agent = make_agent(
        faux,
        tools=[echo_tool()],
        after_tool_call=lambda c, s: AfterToolCallResult(content=[faux_text("new")], is_error=True),
    )
    rec = Recorder(agent)
    await agent.prompt("go")
    end = rec.of("tool_execution_end")[0]
    assert end["result"]["content"] == [faux_text("new")] and end["isError"] is True
    assert end["result"]["details"] == {"value": "v"}
    message = agent.state.messages[2]
    assert message["content"] == [faux_text("new")] and message["isError"] and message["details"] == {"value": "v"}


async def test_21_raising_after_tool_call(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"}), tc("t2", "echo", {"value": "b"})), reply("ok")])

    def after(ctx: Any, signal: Any) -> None:
        if ctx.tool_call["id"] == "t1":
            raise RuntimeError("after failed")

    agent = make_agent(faux, tools=[echo_tool()], after_tool_call=after)
    await agent.prompt("go")
    r1, r2 = agent.state.messages[2], agent.state.messages[3]
    assert r1["isError"] and r1["content"][0]["text"] == "after failed"
    assert not r2["isError"] and r2["content"][0]["text"] == "echoed: b"


async def test_22_after_tool_call_sees_failures(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("ok")])
    seen: list[bool] = []

    async def boom(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        raise RuntimeError("boom")

    def after(ctx: Any, signal: Any) -> dict[str, Any]:
        seen.append(ctx.is_error)
        return {"isError": False, "content": [faux_text("recovered")]}

    agent = make_agent(faux, tools=[echo_tool(execute=boom)], after_tool_call=after)
    await agent.prompt("go")
    assert seen == [True]
    result = agent.state.messages[2]
    assert result["isError"] is False and result["content"] == [faux_text("recovered")]


async def test_53_tool_updates(faux: FauxProvider) -> None:
    faux.set_responses([reply(tc("t1", "echo", {"value": "a"})), reply("ok")])
    late: list[Any] = []

    async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        on_update(AgentToolResult(content=[faux_text("p1")]))
        await asyncio.sleep(0)
        on_update(AgentToolResult(content=[faux_text("p2")]))
        late.append(on_update)
        return AgentToolResult(content=[faux_text("final")])

    agent = make_agent(faux, tools=[echo_tool(execute=execute)])
    rec = Recorder(agent)
    await agent.prompt("go")
    log = no_updates(rec)
    assert log[log.index("tes(t1)") : log.index("tee(t1)") + 1] == ["tes(t1)", "teu(t1)", "teu(t1)", "tee(t1)"]
    updates = rec.of("tool_execution_update")
    assert [u["partialResult"]["content"][0]["text"] for u in updates] == ["p1", "p2"]
    assert all(u["args"] == {"value": "a"} and u["toolName"] == "echo" for u in updates)
    count = len(rec.events)
    late[0](AgentToolResult(content=[faux_text("late")]))
    await asyncio.sleep(0.01)
    assert len(rec.events) == count
