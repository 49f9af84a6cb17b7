"""Scenarios 1–6: plain replies, streaming, images, custom messages, context transform, requests."""

from __future__ import annotations

from typing import Any

from pi_cli.agent.agent import Agent
from pi_cli.ai.providers.faux import FauxProvider

from .helpers import Recorder, done_only, echo_tool, make_agent, reply, roles, scripted_stream_fn

PLAIN = [
    "agent_start", "turn_start", "message_start", "message_end",
    "message_start", "message_end", "turn_end", "agent_end",
]  # fmt: skip


async def test_01_plain_reply() -> None:
    agent = Agent(stream_fn=scripted_stream_fn([done_only(reply("Hi"))]))
    rec = Recorder(agent)
    await agent.prompt("Hello")
    assert rec.types == PLAIN
    assert roles(agent.state.messages) == ["user", "assistant"]
    assert agent.state.is_streaming is False
    assert rec.events[-1]["messages"] == agent.state.messages


async def test_01_plain_reply_with_faux_streams_updates(faux: FauxProvider) -> None:
    faux.set_responses([reply("Hi")])
    agent = make_agent(faux)
    rec = Recorder(agent)
    await agent.prompt("Hello")
    assert [t for t in rec.types if t != "message_update"] == PLAIN
    assert "message_update" in rec.types


async def test_02_streaming_updates() -> None:
    final = reply("abc")
    base = {**final, "content": []}
    partials = [{**base, "content": [{"type": "text", "text": t}]} for t in ("a", "ab", "abc")]
    events: list[dict[str, Any]] = [{"type": "start", "partial": base}]
    events += [
        {"type": "text_delta", "contentIndex": 0, "delta": d, "partial": p}
        for d, p in zip("abc", partials, strict=True)
    ]
    events.append({"type": "done", "reason": "stop", "message": final})
    agent = Agent(stream_fn=scripted_stream_fn([events]))
    seen_streaming: list[Any] = []

    def listener(event: dict[str, Any], signal: Any) -> None:
        if event["type"] == "message_update":
            seen_streaming.append(agent.state.streaming_message)

    agent.subscribe(listener)
    rec = Recorder(agent)
    await agent.prompt("go")
    updates = rec.of("message_update")
    assert len(updates) == 3
    start = rec.types.index("message_start", 3)
    assert rec.types[start + 1 : start + 4] == ["message_update"] * 3 and rec.types[start + 4] == "message_end"
    assert [u["assistantMessageEvent"]["delta"] for u in updates] == ["a", "b", "c"]
    assert [u["message"]["content"][0]["text"] for u in updates] == ["a", "ab", "abc"]
    assert seen_streaming == [u["message"] for u in updates]
    assert agent.state.streaming_message is None


async def test_03_images(faux: FauxProvider) -> None:
    faux.set_responses([reply("ok")])
    agent = make_agent(faux)
    image = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
    await agent.prompt("q", [image])  # type: ignore[list-item]
    user = agent.state.messages[0]
    assert user["content"] == [{"type": "text", "text": "q"}, image]
    assert isinstance(user["timestamp"], int) and not isinstance(user["timestamp"], bool)


async def test_04_custom_messages_filtered(faux: FauxProvider) -> None:
    faux.set_responses([reply("ok")])
    note = {"role": "notification", "text": "build finished", "timestamp": 1}
    agent = make_agent(faux, messages=[note])
    await agent.prompt("hi")
    sent = faux.requests[0].context["messages"]
    assert roles(sent) == ["user"]
    assert roles(agent.state.messages) == ["notification", "user", "assistant"]


async def test_05_transform_before_convert(faux: FauxProvider) -> None:
    faux.set_responses([reply("ok")])
    seen: list[list[Any]] = []

    def convert(messages: list[Any]) -> list[Any]:
        seen.append(list(messages))
        return [m for m in messages if m["role"] in ("user", "assistant", "toolResult")]

    async def transform(messages: list[Any], signal: Any) -> list[Any]:
        return messages[-2:]

    history = [reply("old 1"), {"role": "user", "content": "u1", "timestamp": 1}, reply("old 2")]
    agent = make_agent(faux, messages=history, convert_to_llm=convert, transform_context=transform)
    await agent.prompt("latest")
    assert len(seen) == 1 and len(seen[0]) == 2
    assert seen[0][0] is history[2] and seen[0][1]["content"][0]["text"] == "latest"


async def test_06_request_contents(faux: FauxProvider) -> None:
    faux.set_responses([reply("a"), reply("b")])
    keys: list[str] = []

    async def get_api_key(provider: str) -> str:
        keys.append(provider)
        return f"key-{len(keys)}"

    agent = make_agent(
        faux, system_prompt="be brief", tools=[echo_tool()], session_id="sess-1", get_api_key=get_api_key
    )
    await agent.prompt("one")
    first = faux.requests[0]
    assert first.context["systemPrompt"] == "be brief"
    assert [t["name"] for t in first.context["tools"]] == ["echo"]
    assert first.context["tools"][0]["parameters"]["required"] == ["value"]
    assert first.options.reasoning is None
    assert first.options.session_id == "sess-1"
    assert first.options.api_key == "key-1" and first.options.signal is not None
    agent.state.thinking_level = "high"
    await agent.prompt("two")
    assert faux.requests[1].options.reasoning == "high"
    assert faux.requests[1].options.api_key == "key-2"
    assert keys == ["faux", "faux"]
