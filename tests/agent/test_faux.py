"""The faux provider: scripted playback, protocol shape, abort, pacing, usage, and the demo."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from pi_cli.ai.abort import AbortController
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.providers.faux import (
    FauxProvider,
    faux_assistant,
    faux_text,
    faux_thinking,
    faux_tool_call,
    register_faux_provider,
)
from pi_cli.ai.providers.faux_demo import DEMO_MODEL
from pi_cli.ai.stream import resolve_stream_fn, stream
from pi_cli.ai.types import Context, user_message


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = register_faux_provider(token_size=(1, 1))
    yield provider
    provider.unregister()


def ctx(text: str = "hi", tools: list[Any] | None = None) -> Context:
    context: Context = {"systemPrompt": "sys", "messages": [user_message(text)]}
    if tools is not None:
        context["tools"] = tools
    return context


async def collect(s: Any) -> list[dict[str, Any]]:
    return [dict(e) async for e in s]


async def test_playback_protocol_and_usage(faux: FauxProvider) -> None:
    faux.set_responses(
        [faux_assistant([faux_thinking("hmm"), faux_text("abcdefghij"), faux_tool_call("echo", {"v": 1}, id="t1")])]
    )
    events = await collect(stream(faux.model(), ctx(), StreamOptions()))
    kinds = [e["type"] for e in events]
    assert kinds == [
        "start",
        "thinking_start", "thinking_delta", "thinking_end",
        "text_start", "text_delta", "text_delta", "text_delta", "text_end",
        "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end",
        "done",
    ]  # fmt: skip
    assert [e["delta"] for e in events if e["type"] == "text_delta"] == ["abcd", "efgh", "ij"]
    final = events[-1]["message"]
    assert final["stopReason"] == "toolUse" and final["api"] == faux.api and final["model"] == "faux-1"
    assert final["content"][2] == {"type": "toolCall", "id": "t1", "name": "echo", "arguments": {"v": 1}}
    assert final["usage"]["output"] > 0 and final["usage"]["input"] > 0
    assert faux.call_count == 1 and faux.requests[0].context["systemPrompt"] == "sys"


async def test_empty_queue_is_an_error_event(faux: FauxProvider) -> None:
    final = await stream(faux.model(), ctx(), StreamOptions()).result()
    assert final["stopReason"] == "error" and final["errorMessage"] == "No more faux responses queued"


async def test_scripted_error_plays_content_then_error(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant("part", stop_reason="error", error_message="rate")])
    events = await collect(stream(faux.model(), ctx(), StreamOptions()))
    assert events[0]["type"] == "start" and events[-1]["type"] == "error"
    assert events[-1]["error"]["errorMessage"] == "rate"


async def test_abort_mid_stream_keeps_partial(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant("aaaabbbbccccdddd")])
    controller = AbortController()
    events = []
    async for event in stream(faux.model(), ctx(), StreamOptions(signal=controller.signal)):
        events.append(event)
        if event["type"] == "text_delta":
            controller.abort()
    final = events[-1]
    assert final["type"] == "error" and final["reason"] == "aborted"
    assert final["error"]["stopReason"] == "aborted"
    assert final["error"]["content"][0]["text"] == "aaaa"


async def test_already_aborted_signal_returns_at_once(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant("x")])
    controller = AbortController()
    controller.abort()
    final = await stream(faux.model(), ctx(), StreamOptions(signal=controller.signal)).result()
    assert final["stopReason"] == "aborted"


async def test_async_factory_controls_timing_and_abort(faux: FauxProvider) -> None:
    gate = asyncio.Event()
    seen: list[int] = []

    async def slow(context: Context, options: StreamOptions, index: int) -> Any:
        seen.append(index)
        await gate.wait()
        return faux_assistant("late")

    faux.set_responses([slow, lambda c, o, i: faux_assistant(f"call {i}")])
    task = asyncio.ensure_future(stream(faux.model(), ctx(), StreamOptions()).result())
    await asyncio.sleep(0.01)
    assert not task.done() and seen == [0]
    gate.set()
    assert (await task)["content"][0]["text"] == "late"
    assert (await stream(faux.model(), ctx(), StreamOptions()).result())["content"][0]["text"] == "call 1"

    never = asyncio.Event()

    async def blocked(context: Context, options: StreamOptions, index: int) -> Any:
        await never.wait()

    faux.set_responses([blocked])
    controller = AbortController()
    task = asyncio.ensure_future(stream(faux.model(), ctx(), StreamOptions(signal=controller.signal)).result())
    await asyncio.sleep(0.01)
    controller.abort()
    assert (await asyncio.wait_for(task, 1))["stopReason"] == "aborted"


async def test_factory_raising_becomes_error(faux: FauxProvider) -> None:
    def bad(context: Context, options: StreamOptions, index: int) -> Any:
        raise RuntimeError("kaput")

    faux.set_responses([bad])
    final = await stream(faux.model(), ctx(), StreamOptions()).result()
    assert final["stopReason"] == "error" and final["errorMessage"] == "kaput"


async def test_pacing_abort_wakes_sleep() -> None:
    faux = register_faux_provider(tokens_per_second=0.5)  # 2 s per token if not woken
    try:
        faux.set_responses([faux_assistant("aaaabbbbccccdddd")])
        controller = AbortController()
        task = asyncio.ensure_future(stream(faux.model(), ctx(), StreamOptions(signal=controller.signal)).result())
        await asyncio.sleep(0.01)
        controller.abort()
        final = await asyncio.wait_for(task, 1)
        assert final["stopReason"] == "aborted"
    finally:
        faux.unregister()


async def test_session_cache_simulation(faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant("a"), faux_assistant("b")])
    context = ctx("hello there")
    first = await stream(faux.model(), context, StreamOptions(session_id="s")).result()
    assert first["usage"]["cacheWrite"] > 0 and first["usage"]["cacheRead"] == 0
    context["messages"].append(first)
    second = await stream(faux.model(), context, StreamOptions(session_id="s")).result()
    assert second["usage"]["cacheRead"] > 0


async def test_unregister_removes_api(faux: FauxProvider) -> None:
    api = faux.api
    faux.unregister()
    with pytest.raises(KeyError):
        resolve_stream_fn(api)


TOOLS = [{"name": n, "description": n, "parameters": {}} for n in ("read", "bash", "ls")]


async def test_demo_plain_reply_labels_itself() -> None:
    final = await stream(DEMO_MODEL, ctx("hello"), StreamOptions()).result()
    text = final["content"][0]["text"]
    assert final["provider"] == "faux" and final["model"] == "demo" and "demo" in DEMO_MODEL["name"].lower()
    assert "offline demo" in text and "ANTHROPIC_API_KEY" in text and "models.json" in text


async def test_demo_calls_tools_and_summarises() -> None:
    final = await stream(DEMO_MODEL, ctx("please list the files here", TOOLS), StreamOptions()).result()
    call = final["content"][-1]
    assert final["stopReason"] == "toolUse" and call["name"] == "ls"
    final = await stream(DEMO_MODEL, ctx("what is in src/app.py?", TOOLS), StreamOptions()).result()
    assert final["content"][-1]["name"] == "read" and final["content"][-1]["arguments"] == {"path": "src/app.py"}
    final = await stream(DEMO_MODEL, ctx("run `git status` please", TOOLS), StreamOptions()).result()
    assert final["content"][-1]["arguments"] == {"command": "git status"}
    context = ctx("list files", TOOLS)
    context["messages"].append(final)
    context["messages"].append(
        {"role": "toolResult", "toolCallId": "x", "toolName": "ls", "content": [faux_text("a.py\nb.py")],
         "isError": False, "timestamp": 0}
    )  # fmt: skip
    summary = await stream(DEMO_MODEL, context, StreamOptions()).result()
    assert summary["stopReason"] == "stop" and "a.py" in summary["content"][0]["text"]
    # without tools it never calls any
    final = await stream(DEMO_MODEL, ctx("list the files"), StreamOptions()).result()
    assert final["stopReason"] == "stop"


async def test_demo_drives_an_agent_end_to_end() -> None:
    from pi_cli.agent.agent import Agent
    from pi_cli.agent.types import AgentToolResult

    class Ls:
        name, label, description, execution_mode = "ls", "ls", "list", None
        parameters: dict[str, Any] = {"type": "object", "properties": {"path": {"type": "string"}}}  # noqa: RUF012

        async def execute(self, call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
            return AgentToolResult(content=[faux_text("alpha.txt\nbeta/")])

    agent = Agent(model=DEMO_MODEL, tools=[Ls()])
    await agent.prompt("show me the files in this folder")
    roles = [m["role"] for m in agent.state.messages]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    assert "alpha.txt" in agent.state.messages[-1]["content"][0]["text"]
