"""A tool call in a response cut by the output token limit, over RPC, as pi 1.6.0 does it (measured:
the same events, texts and requests from pi 1.6.0 and pi_cli with this script).

The calls are never run (their arguments may be cut); each gets a start, an error end and a tool
result with pi's text, in order; then the model is asked again, once, with those results.
"""

from __future__ import annotations

from cli.pi_harness import PiEnv, RpcClient

TEXT = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its arguments '
    "may be truncated. Re-issue the tool call with complete arguments."
)


def test_length_cut_tool_calls_are_failed_and_the_model_asked_again(pi: PiEnv) -> None:
    pi.server.add_turns([
        {
            "tool_calls": [
                {"name": "write", "arguments": {"path": "x.txt", "content": "abc"}, "id": "t1"},
                {"name": "bash", "arguments": {"command": "echo hi > y.txt"}, "id": "t2"},
            ],
            "finish_reason": "length",
        },
        {"text": "retrying later"},
    ])  # fmt: skip
    client = RpcClient(pi)
    try:
        client.send({"id": "p", "type": "prompt", "message": "go"})
        start = len(client.seen)
        assert client.event("agent_settled") == {"type": "agent_settled", "aborted": False}
        events = client.seen[start:]
    finally:
        client.close()
    tool_events = [e for e in events if e["type"].startswith("tool_execution")]
    assert [(e["type"], e["toolCallId"]) for e in tool_events] == [
        ("tool_execution_start", "t1"), ("tool_execution_end", "t1"),
        ("tool_execution_start", "t2"), ("tool_execution_end", "t2"),
    ]  # fmt: skip
    for end, name in ((tool_events[1], "write"), (tool_events[3], "bash")):
        assert end["isError"] is True
        assert end["result"] == {"content": [{"type": "text", "text": TEXT.format(name=name)}], "details": {}}
    ends = [e["message"] for e in events if e["type"] == "message_end"]
    assert [(m["role"], m.get("stopReason")) for m in ends] == [
        ("user", None), ("assistant", "length"), ("toolResult", None), ("toolResult", None), ("assistant", "stop"),
    ]  # fmt: skip
    assert not (pi.cwd / "x.txt").exists() and not (pi.cwd / "y.txt").exists()
    bodies = pi.bodies()
    assert len(bodies) == 2  # exactly one more request
    tool_messages = [m for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in tool_messages] == [
        ("t1", TEXT.format(name="write")), ("t2", TEXT.format(name="bash")),
    ]  # fmt: skip
