"""pi_cli's RPC output against answers recorded from the real pi 1.6.0 (tests/fixtures/pi16).

The fixture was recorded by driving ``pi --mode rpc`` (1.6.0) with the same fake-server script used
here; no Node is needed to run these tests. Compared: the event sequence of a tool-using run (wire
form: delta-only ``message_update`` with ``usage``, ``toolcall_start`` with ``id``/``toolName``,
``stopReason: "pending"`` on the assistant ``message_start``), each event's field names, and the
field names, success and error text of single command responses.

Known, listed differences: pi_cli coalesces consecutive deltas (fewer updates, same text). pi 1.6.0's
``durationMs``/``rawStopReason`` on assistant messages, ``structuredContent`` on read results and
usage ``reasoning``/``cost.totalFromProvider`` are pi_cli's too now (tests/ai/test_pi16_parity.py
checks their values against tests/fixtures/pi16/ai_tools.json).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from cli.pi_harness import PiEnv, RpcClient

FIXTURE_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "pi16"
FIXTURE = json.loads((FIXTURE_DIR / "rpc_session.json").read_text())
# A message_update's ``usage`` is a snapshot: pi 1.6.0 wrote its deltas after the chunk carrying the
# usage was parsed (they show ``reasoning``/``totalFromProvider``), pi_cli writes each as it happens,
# before the usage arrives. The final usage is compared in tests/ai/test_pi16_parity.py.
NOT_YET = {"reasoning", "totalFromProvider"}
# Fields pi_cli adds on purpose (README, deliberate differences): get_state's ``sandbox``.
BEYOND_PI = {"sandbox"}
DELTAS = ("text_delta", "thinking_delta", "toolcall_delta")


def _kind(event: dict[str, Any]) -> str:
    inner = event.get("assistantMessageEvent")
    return f"message_update:{inner['type']}" if isinstance(inner, dict) else str(event["type"])


def _collapse(kinds: list[str]) -> list[str]:
    """Consecutive deltas of one kind count once (pi_cli coalesces them)."""
    out: list[str] = []
    for kind in kinds:
        if not (out and out[-1] == kind and kind.split(":")[-1] in DELTAS):
            out.append(kind)
    return out


def _shape(value: Any) -> Any:
    """Field names (recursively, first list item only); leaves become their JSON type name."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items() if k not in NOT_YET | BEYOND_PI}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, (int, float)):
        return "number"
    return "string"


def _run(pi: PiEnv) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    pi.server.add_turns([
        {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}, "id": "call_1"}]},
        {"text": "All done."},
    ])  # fmt: skip
    (pi.cwd / "a.txt").write_text("line one\nline two\n")
    client = RpcClient(pi)
    answers: dict[str, dict[str, Any]] = {}
    try:
        answers["get_last_assistant_text"] = client.request({"type": "get_last_assistant_text"})
        client.send({"id": "p1", "type": "prompt", "message": "read a.txt"})
        start = len(client.seen)
        client.event("agent_settled")
        events = [e for e in client.seen[start:] if e.get("type") != "response"]
        answers["get_last_assistant_text#2"] = client.request({"type": "get_last_assistant_text"})
        answers["get_entries#2"] = client.request({"type": "get_entries"})
        for command in (
            {"type": "get_state"}, {"type": "get_available_thinking_levels"}, {"type": "get_session_stats"},
            {"type": "get_fork_messages"}, {"type": "clear_queue"}, {"type": "abort"},
            {"type": "bash", "command": "echo hi; echo err >&2; exit 3"},
            {"type": "set_session_name", "name": "my session"}, {"type": "bogus_cmd"},
            {"type": "set_model", "provider": "fake", "modelId": "fake-think"},
        ):  # fmt: skip
            answers[str(command["type"])] = client.request(command)
    finally:
        client.close()
    return events, answers


def test_a_tool_run_streams_pi16s_events_and_answers_its_shapes(pi: PiEnv) -> None:
    events, answers = _run(pi)
    expected = [e for e in FIXTURE["run_events"] if e["type"] != "response"]
    assert _collapse([_kind(e) for e in events]) == _collapse([_kind(e) for e in expected])
    # Same field names for every event kind (first occurrence of each).
    ours = {_kind(e): e for e in reversed(events)}
    theirs = {_kind(e): e for e in reversed(expected)}
    for kind, event in theirs.items():
        assert _shape(ours[kind]) == _shape(event), kind
    start = next(e for e in events if e["type"] == "message_start" and e["message"]["role"] == "assistant")
    assert start["message"]["stopReason"] == "pending"
    tool_start = next(e for e in events if _kind(e) == "message_update:toolcall_start")
    assert tool_start["assistantMessageEvent"]["id"] == "call_1"
    assert tool_start["assistantMessageEvent"]["toolName"] == "read"
    tool_end = next(e for e in events if e["type"] == "tool_execution_end")
    result_end = next(e for e in events if e["type"] == "message_end" and e["message"]["role"] == "toolResult")
    assert isinstance(tool_end["durationMs"], int) and tool_end["durationMs"] >= 0  # pi 1.6.0 has it too
    assert result_end["message"]["durationMs"] == tool_end["durationMs"]
    ends = [e["message"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    assert [m["thinkingLevel"] for m in ends] == ["off", "off"]  # as pi 1.6.0 records it

    recorded = FIXTURE["responses"]
    for key, answer in answers.items():
        pi_answer = recorded[key]
        assert answer["success"] == pi_answer["success"], key
        assert _shape(answer) == _shape(pi_answer), key
    assert answers["bogus_cmd"]["error"] == recorded["bogus_cmd"]["error"] == "Unknown command: bogus_cmd"
    assert answers["bogus_cmd"]["id"] is not None
    assert answers["get_last_assistant_text"]["data"] == recorded["get_last_assistant_text"]["data"] == {}
    assert answers["bash"]["data"] == recorded["bash"]["data"]
    assert answers["get_available_thinking_levels"]["data"] == recorded["get_available_thinking_levels"]["data"]


def test_a_cancelled_bash_answers_as_pi16_without_an_exit_code(pi: PiEnv) -> None:
    """pi 1.6.0's ``exitCode`` of a cancelled run is ``undefined``: the key is absent, not ``null``,
    in the response (ai_tools.json ``rpc_bash_cancel``) and in the saved ``bashExecution`` message."""
    recorded = json.loads((FIXTURE_DIR / "ai_tools.json").read_text())["rpc_bash_cancel"]
    client = RpcClient(pi)
    try:
        client.send({"type": "bash", "command": "sleep 20", "id": "r8"})
        time.sleep(0.5)
        assert client.request({"type": "abort_bash"})["success"]
        answer = client.wait_for(lambda o: o.get("id") == "r8", timeout=10)
        # The session file is written once the conversation has an assistant message; a prompt makes one.
        pi.server.add_turns([{"text": "ok"}])
        client.request({"type": "prompt", "message": "hi"})
        client.event("agent_end")
    finally:
        client.close()
    assert answer == recorded
    lines = [json.loads(line) for path in pi.session_files() for line in path.read_text().splitlines()]
    saved = [e["message"] for e in lines if e.get("type") == "message" and e["message"]["role"] == "bashExecution"]
    assert len(saved) == 1 and saved[0]["cancelled"] is True and "exitCode" not in saved[0]
