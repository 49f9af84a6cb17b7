"""``pi --mode rpc`` framing and bad input: every kind of bad line gets an error and the loop goes on."""

from __future__ import annotations

import json

from cli.pi_harness import PiEnv, RpcClient, user_texts


def test_bad_input_of_each_kind_then_eof_exits_zero(pi: PiEnv) -> None:
    client = RpcClient(pi)
    try:
        client.send("this is not json\n")
        assert client.next() == {
            "type": "response",
            "command": "parse",
            "success": False,
            "error": client.seen[-1]["error"],
        }
        assert client.seen[-1]["error"].startswith("Failed to parse command:")

        client.send({"type": "launch_rockets", "id": "u1"})
        assert client.next() == {  # pi 1.6.0 echoes the id (0.73.1 left it out)
            "id": "u1",
            "type": "response",
            "command": "launch_rockets",
            "success": False,
            "error": "Unknown command: launch_rockets",
        }

        client.send({"type": "prompt", "id": "m1"})
        bad = client.next()
        assert bad["id"] == "m1" and bad["command"] == "prompt" and bad["success"] is False
        assert "message" in bad["error"]

        client.send("[1, 2, 3]\n")
        assert client.next()["command"] == "parse"

        client.send({"id": "t1", "message": "no type"})
        assert client.next()["success"] is False

        client.send({"type": "set_thinking_level", "level": "enormous", "id": "l1"})
        bad_level = client.next()
        assert bad_level["id"] == "l1" and bad_level["success"] is False and "level" in bad_level["error"]

        client.send("\n")  # blank lines are ignored
        state = client.request({"type": "get_state"})
        assert state["success"] is True
    finally:
        code = client.close()
    assert code == 0


def test_crlf_and_u2028_framing(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "para\u2028graph answer"}])
    client = RpcClient(pi)
    try:
        line = json.dumps({"type": "prompt", "id": "p1", "message": "a\u2028b"}, ensure_ascii=False) + "\r\n"
        client.send(line.encode("utf-8"))
        response = client.wait_for(lambda o: o.get("type") == "response")
        assert response == {"id": "p1", "type": "response", "command": "prompt", "success": True,
                            "data": {"disposition": "started"}}  # fmt: skip
        end = client.event("agent_end")
        assert end["messages"][-1]["content"][0]["text"] == "para\u2028graph answer"
        # Output keeps U+2028 raw inside strings, and every record ends with exactly one LF.
        assert any("\u2028".encode() in raw for raw in client.raw)
        assert all(raw.endswith(b"\n") and not raw.endswith(b"\r\n") for raw in client.raw)
    finally:
        assert client.close() == 0
    assert user_texts(pi.bodies()[0]) == ["a\u2028b"]


def test_events_carry_no_id_and_prompt_response_precedes_agent_start(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "hello"}])
    client = RpcClient(pi)
    try:
        client.send({"type": "prompt", "message": "hi", "id": "x"})
        first = client.next()
        assert first == {"id": "x", "type": "response", "command": "prompt", "success": True,
                         "data": {"disposition": "started"}}  # fmt: skip
        client.event("agent_end")
        assert all("id" not in item for item in client.seen[1:])
    finally:
        client.close()
