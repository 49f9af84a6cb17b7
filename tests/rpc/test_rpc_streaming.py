"""Prompting while a run is active: busy error, steering, follow-up, abort mid-stream and mid-bash."""

from __future__ import annotations

import time

from cli.pi_harness import PiEnv, RpcClient, user_texts

SLOW_TEXT = {"text": "slow " * 60, "chunk_size": 5, "delay_chunk": 0.03}
BUSY = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."


def test_prompt_while_streaming_needs_streaming_behavior(pi: PiEnv) -> None:
    pi.server.add_turns([SLOW_TEXT, {"text": "after follow-up"}])
    client = RpcClient(pi)
    try:
        assert client.request({"type": "prompt", "message": "first"})["success"]
        client.event("message_update")
        busy = client.request({"type": "prompt", "message": "second"})
        assert busy["success"] is False and busy["error"] == BUSY
        queued = client.request({"type": "prompt", "message": "later", "streamingBehavior": "followUp"})
        assert queued["success"] is True
        client.event("agent_end")
        updates = [e for e in client.seen if e.get("type") == "queue_update"]
        assert updates == [
            {"type": "queue_update", "steering": [], "followUp": ["later"]},
            {"type": "queue_update", "steering": [], "followUp": []},
        ]
    finally:
        client.close()
    bodies = pi.bodies()
    assert len(bodies) == 2
    assert user_texts(bodies[1]) == ["first", "later"]
    assert bodies[1]["messages"][-1]["role"] == "user"


def test_steering_is_delivered_after_the_tool_batch(pi: PiEnv) -> None:
    pi.server.add_turns(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 0.6; echo tool-done"}, "id": "t1"}]},
            {"text": "saw steering"},
        ]
    )
    client = RpcClient(pi)
    try:
        client.request({"type": "prompt", "message": "work"})
        client.event("tool_execution_start")
        assert client.request({"type": "steer", "message": "change course"})["success"]
        client.event("agent_end")
        updates = [e["steering"] for e in client.seen if e.get("type") == "queue_update"]
        assert updates == [["change course"], []]
    finally:
        client.close()
    second = pi.bodies()[1]["messages"]
    roles = [m["role"] for m in second]
    assert roles[-3:] == ["assistant", "tool", "user"]
    assert "tool-done" in second[-2]["content"]
    assert user_texts(pi.bodies()[1])[-1] == "change course"


def test_follow_up_command_waits_until_the_agent_would_stop(pi: PiEnv) -> None:
    pi.server.add_turns(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 0.4"}, "id": "t1"}]},
            {"text": "tools finished"},
            {"text": "answered follow-up"},
        ]
    )
    client = RpcClient(pi)
    try:
        client.request({"type": "prompt", "message": "start"})
        client.event("tool_execution_start")
        assert client.request({"type": "follow_up", "message": "and then?"})["success"]
        client.event("agent_end")
    finally:
        client.close()
    bodies = pi.bodies()
    assert len(bodies) == 3
    # Not injected after the tool result (that request ends with the tool message)...
    assert bodies[1]["messages"][-1]["role"] == "tool"
    # ...but after the final answer.
    assert [m["role"] for m in bodies[2]["messages"]][-2:] == ["assistant", "user"]
    assert user_texts(bodies[2])[-1] == "and then?"


def test_abort_mid_stream_keeps_partial_and_agent_is_reusable(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "partial words here and more", "chunk_size": 4, "stall_after": 3}, {"text": "next"}])
    client = RpcClient(pi)
    try:
        client.request({"type": "prompt", "message": "go"})
        client.event("message_update")
        started = time.monotonic()
        assert client.request({"type": "abort"})["success"]
        assert time.monotonic() - started < 3
        end = next(e for e in client.seen if e.get("type") == "message_end" and e["message"]["role"] == "assistant")
        assert end["message"]["stopReason"] == "aborted"
        state = client.request({"type": "get_state"})["data"]
        assert state["isStreaming"] is False
        client.request({"type": "prompt", "message": "again"})
        end2 = client.event("agent_end")
        assert end2["messages"][-1]["content"][0]["text"] == "next"
    finally:
        client.close()


def test_abort_mid_bash_tool_kills_it(pi: PiEnv) -> None:
    pi.server.add_turns([{"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30"}, "id": "t1"}]}])
    client = RpcClient(pi)
    try:
        client.request({"type": "prompt", "message": "sleep"})
        client.event("tool_execution_start")
        started = time.monotonic()
        assert client.request({"type": "abort"}, timeout=10)["success"]
        assert time.monotonic() - started < 5
        end = next(e for e in client.seen if e.get("type") == "tool_execution_end")
        assert end["isError"] is True
        assert "aborted" in end["result"]["content"][0]["text"].lower()
    finally:
        client.close()


def test_user_bash_command_abort_and_context(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "seen"}])
    client = RpcClient(pi)
    try:
        ran = client.request({"type": "bash", "command": "echo user-bash-out; exit 3"})
        assert ran["success"] is True
        assert ran["data"]["output"].strip() == "user-bash-out"
        assert ran["data"]["exitCode"] == 3 and ran["data"]["cancelled"] is False
        client.send({"type": "bash", "command": "sleep 30", "id": "long"})
        time.sleep(0.3)
        assert client.request({"type": "abort_bash"})["success"]
        long = client.wait_for(lambda o: o.get("id") == "long", timeout=10)
        assert long["data"]["cancelled"] is True
        client.request({"type": "prompt", "message": "what ran?"})
        client.event("agent_end")
    finally:
        client.close()
    texts = user_texts(pi.bodies()[0])
    assert texts[0].startswith("Ran `echo user-bash-out; exit 3`")
    assert "Command exited with code 3" in texts[0]
    assert "(command cancelled)" in texts[1]
    assert texts[-1] == "what ran?"


def test_retry_events_and_abort_retry(pi: PiEnv) -> None:
    (pi.agent_dir / "settings.json").write_text('{"retry": {"baseDelayMs": 5000, "provider": {"maxRetries": 0}}}')
    pi.server.add_turns([{"status": 503}])
    client = RpcClient(pi)
    try:
        client.request({"type": "prompt", "message": "hi"})
        start = client.event("auto_retry_start")
        assert start["attempt"] == 1 and start["maxAttempts"] == 3 and start["delayMs"] == 5000
        assert "503" in start["errorMessage"]
        assert client.request({"type": "abort_retry"})["success"]
        end = client.event("auto_retry_end", timeout=4)
        assert end == {"type": "auto_retry_end", "success": False, "attempt": 1, "finalError": "Retry cancelled"}
    finally:
        client.close()
    assert len(pi.server.requests) == 1


def test_sigterm_kills_running_user_bash_and_exits_143(pi: PiEnv) -> None:
    import os
    import signal

    marker = pi.root / "child.pid"
    client = RpcClient(pi)
    try:
        client.send({"type": "bash", "command": f"echo $$ > {marker}; sleep 30", "id": "b"})
        deadline = time.monotonic() + 10
        while not (marker.exists() and marker.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(marker.read_text())
        client.proc.send_signal(signal.SIGTERM)
        code = client.proc.wait(timeout=10)
    finally:
        client.close()
    assert code == 143
    time.sleep(0.2)
    try:
        os.kill(child, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive, "the user's bash command survived pi's SIGTERM"
