"""``--mode json``: header line, pi's event order and fields, coalesced deltas, exit code 0."""

from __future__ import annotations

from .pi_harness import PiEnv, json_lines


def test_header_then_events_in_pi_order(pi: PiEnv) -> None:
    pi.server.add_turns(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}, "id": "c1"}]},
            {"text": "done"},
        ]
    )
    result = pi.run("--mode", "json", "go")
    assert result.returncode == 0, result.stderr
    events = json_lines(result.stdout)
    header = events[0]
    assert header["type"] == "session" and header["version"] == 3 and header["cwd"] == str(pi.cwd)
    assert header["id"] and header["timestamp"].endswith("Z")
    kinds = [e["type"] for e in events[1:] if e["type"] != "message_update"]
    assert kinds == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "tool_execution_start",
        *(["tool_execution_update"] * kinds.count("tool_execution_update")),
        "tool_execution_end",
        "message_start",
        "message_end",
        "turn_end",
        "turn_start",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
        "agent_settled",  # pi 1.6: nothing more will run on its own
    ]
    by_type = {e["type"]: e for e in events[1:]}
    assert by_type["tool_execution_start"]["toolName"] == "bash"
    assert by_type["tool_execution_start"]["args"] == {"command": "echo hi"}
    end = by_type["tool_execution_end"]
    assert end["toolCallId"] == "c1" and end["isError"] is False
    assert "hi" in end["result"]["content"][0]["text"]
    assert [m["role"] for m in by_type["agent_end"]["messages"]] == ["user", "assistant", "toolResult", "assistant"]
    update = next(e for e in events if e["type"] == "message_update")
    # pi 1.6.0's wire form: delta-only, the cumulative usage beside it
    assert set(update) == {"type", "usage", "assistantMessageEvent"}
    assert "partial" not in update["assistantMessageEvent"]


def test_json_mode_exits_one_when_the_model_errors(pi: PiEnv) -> None:
    """Issue 33: a script must see a 401 fail (pi 1.6.0 exits 0); every event is still written."""
    pi.server.add_turns([{"status": 401, "body": {"error": {"message": "no auth"}}}])
    result = pi.run("--mode", "json", "hi")
    assert result.returncode == 1 and '401: {"message":"no auth"}' in result.stderr
    events = json_lines(result.stdout)
    assert events[-1] == {"type": "agent_settled", "aborted": False}
    final = events[-2]
    assert final["type"] == "agent_end" and final["willRetry"] is False
    assert final["messages"][-1]["stopReason"] == "error"


def test_deltas_are_coalesced_without_losing_text(pi: PiEnv) -> None:
    text = "".join(f"w{i} " for i in range(3000))
    pi.server.add_turns([{"text": text, "chunk_size": 4}])
    result = pi.run("--mode", "json", "long")
    assert result.returncode == 0, result.stderr
    events = json_lines(result.stdout)
    deltas = [
        e["assistantMessageEvent"]
        for e in events
        if e["type"] == "message_update" and e["assistantMessageEvent"]["type"] == "text_delta"
    ]
    chunks = len(text) // 4
    assert len(deltas) < chunks / 5, (len(deltas), chunks)
    assert "".join(d["delta"] for d in deltas) == text
    end = next(e for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant")
    assert end["message"]["content"][0]["text"] == text
