"""RPC additions of pi 1.6.0, and a client driving pi_cli the way pi-acp 0.0.34 does."""

from __future__ import annotations

import json

from cli.pi_harness import PiEnv, RpcClient


def settled(client: RpcClient) -> dict:
    """The ``agent_settled`` event, whether it came before the last response (abort waits for it) or after."""
    seen = next((e for e in client.seen if e.get("type") == "agent_settled"), None)
    return seen if seen is not None else client.event("agent_settled")


SLOW = {"text": "a slow answer arriving in many small pieces", "chunk_size": 3, "delay_chunk": 0.05}


def test_thinking_levels_follow_the_model(pi: PiEnv) -> None:
    client = RpcClient(pi)
    try:
        first = client.request({"type": "get_available_thinking_levels"})
        assert first["data"] == {"levels": ["off"]}  # fake-model does not reason
        assert client.request({"type": "set_model", "provider": "fake", "modelId": "fake-think"})["success"]
        levels = client.request({"type": "get_available_thinking_levels"})["data"]["levels"]
        assert levels[0] == "off" and "high" in levels
    finally:
        client.close()


def test_dispositions_clear_queue_and_settled(pi: PiEnv) -> None:
    pi.server.add_turns([SLOW, {"text": "after"}])
    client = RpcClient(pi)
    try:
        started = client.request({"type": "prompt", "message": "go"})
        assert started["data"] == {"disposition": "started"}
        client.event("message_update")
        queued = client.request({"type": "prompt", "message": "later", "streamingBehavior": "followUp"})
        assert queued["data"] == {"disposition": "queued"}
        assert client.request({"type": "steer", "message": "turn"})["data"] == {"disposition": "queued"}
        cleared = client.request({"type": "clear_queue"})
        assert cleared["data"] == {"steering": ["turn"], "followUp": ["later"]}
        end = client.event("agent_end")
        assert end["willRetry"] is False
        assert client.next() == {"type": "agent_settled", "aborted": False}
        assert len(pi.bodies()) == 1  # the cleared messages never reached the model
    finally:
        client.close()


def test_abort_settles_aborted(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "partial words here", "chunk_size": 4, "stall_after": 2}])
    client = RpcClient(pi)
    try:
        client.request({"type": "prompt", "message": "go"})
        client.event("message_update")
        assert client.request({"type": "abort"})["success"]
        assert settled(client) == {"type": "agent_settled", "aborted": True}
        ends = [e for e in client.seen if e.get("type") == "message_update"]
        kinds = [e["assistantMessageEvent"]["type"] for e in ends]
        assert kinds[-1] == "text_end"  # the aborted block is closed before message_end
    finally:
        client.close()


def test_entries_with_cursor_and_tree(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "one"}, {"text": "two"}])
    client = RpcClient(pi)
    try:
        for text in ("first", "second"):
            client.request({"type": "prompt", "message": text})
            client.event("agent_settled")
        everything = client.request({"type": "get_entries"})["data"]
        messages = [e for e in everything["entries"] if e["type"] == "message"]
        assert [m["message"]["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
        assert everything["leafId"] == everything["entries"][-1]["id"]
        since = client.request({"type": "get_entries", "since": messages[1]["id"]})["data"]["entries"]
        assert [e["message"]["role"] for e in since if e["type"] == "message"] == ["user", "assistant"]
        missing = client.request({"type": "get_entries", "since": "nope"})
        assert missing["success"] is False and "nope" in missing["error"]
        tree = client.request({"type": "get_tree"})["data"]
        node, depth = tree["tree"][0], 1
        while node["children"]:
            node, depth = node["children"][0], depth + 1
        assert depth == len(everything["entries"]) and node["entry"]["id"] == tree["leafId"]
    finally:
        client.close()


def test_abort_during_a_tool_batch_ends_aborted_and_answers_every_call(pi: PiEnv) -> None:
    calls = [
        {"name": "bash", "arguments": {"command": "echo started; sleep 30"}, "id": "c1"},
        {"name": "bash", "arguments": {"command": "echo never"}, "id": "c2"},
    ]
    pi.server.add_turns([{"tool_calls": calls}])
    client = RpcClient(pi)
    try:
        client.request({"type": "set_steering_mode", "mode": "all"})
        client.request({"type": "prompt", "message": "run"})
        client.wait_for(lambda e: e.get("type") == "tool_execution_start" and e["toolCallId"] == "c1")
        client.request({"type": "abort"})
        settled(client)
        messages = client.request({"type": "get_messages"})["data"]["messages"]
        results = {m["toolCallId"]: m for m in messages if m["role"] == "toolResult"}
        assert set(results) == {"c1", "c2"} and all(r["isError"] for r in results.values())
        assert messages[-1]["role"] == "assistant" and messages[-1]["stopReason"] == "aborted"
        assert len(pi.bodies()) == 1  # the closing aborted turn sent no request
    finally:
        client.close()


def test_a_client_driving_pi_cli_like_pi_acp(pi: PiEnv) -> None:
    """pi-acp 0.0.34's calls, in its order: session/new, a prompt, the session menu, a resume."""
    pi.server.add_turns([{"text": "hello from the agent"}])
    client = RpcClient(pi)
    try:
        state = client.request({"type": "get_state"})["data"]
        assert state["model"]["id"] == "fake-model" and "sessionId" in state
        models = client.request({"type": "get_available_models"})["data"]["models"]
        assert {m["id"] for m in models} >= {"fake-model", "fake-think"}
        assert client.request({"type": "get_available_thinking_levels"})["success"]
        assert client.request({"type": "set_model", "provider": "fake", "modelId": "fake-think"})["success"]
        assert client.request({"type": "set_thinking_level", "level": "high"})["success"]
        assert client.request({"type": "set_steering_mode", "mode": "one-at-a-time"})["success"]
        assert client.request({"type": "set_follow_up_mode", "mode": "one-at-a-time"})["success"]
        assert client.request({"type": "get_commands"})["success"]
        assert client.request({"type": "prompt", "message": "hi"})["data"]["disposition"] == "started"
        client.event("agent_settled")
        stats = client.request({"type": "get_session_stats"})["data"]
        assert stats["userMessages"] == 1 and stats["assistantMessages"] == 1
        assert client.request({"type": "set_session_name", "name": "acp run"})["success"]
        assert client.request({"type": "set_auto_compaction", "enabled": False})["success"]
        exported = client.request({"type": "export_html", "outputPath": str(pi.root / "s.html")})
        assert exported["success"] and (pi.root / "s.html").is_file()
        session_file = client.request({"type": "get_state"})["data"]["sessionFile"]
        assert client.request({"type": "switch_session", "sessionPath": session_file})["success"]
        messages = client.request({"type": "get_messages"})["data"]["messages"]
        assert messages[-1]["content"][0]["text"] == "hello from the agent"
        assert client.request({"type": "abort"})["success"]  # idle abort is harmless
    finally:
        assert client.close() == 0


def test_version_is_the_pi_release_matched(pi: PiEnv) -> None:
    """pi-acp reads ``pi --version`` from stdout and needs pi ≥ 0.81."""
    out = pi.run("--version", model=False)
    major, minor, _patch = (int(part) for part in out.stdout.strip().split("."))
    assert out.returncode == 0 and out.stderr == "" and (major, minor) >= (1, 6)


def test_set_thinking_level_takes_every_pi16_level_and_clamps_to_the_model(pi: PiEnv) -> None:
    """pi 1.6's levels run off … xhigh, max; ``xhigh``/``max`` only where the model maps them, and a
    level the model lacks clamps to the nearest one (upward first, then downward)."""
    models = json.loads((pi.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"].append(
        {"id": "fake-max", "reasoning": True, "thinkingLevelMap": {"minimal": None, "xhigh": "xhigh", "max": "max"}}
    )
    (pi.agent_dir / "models.json").write_text(json.dumps(models))
    client = RpcClient(pi)
    try:
        assert client.request({"type": "set_model", "provider": "fake", "modelId": "fake-think"})["success"]
        levels = client.request({"type": "get_available_thinking_levels"})["data"]["levels"]
        assert levels == ["off", "minimal", "low", "medium", "high"]
        assert client.request({"type": "set_thinking_level", "level": "max"})["success"]
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "high"

        assert client.request({"type": "set_model", "provider": "fake", "modelId": "fake-max"})["success"]
        levels = client.request({"type": "get_available_thinking_levels"})["data"]["levels"]
        assert levels == ["off", "low", "medium", "high", "xhigh", "max"]
        assert client.request({"type": "set_thinking_level", "level": "max"})["success"]
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "max"
        assert client.request({"type": "set_thinking_level", "level": "minimal"})["success"]
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "low"  # upward first
    finally:
        client.close()


def test_session_changes_send_no_queue_update_when_nothing_was_queued(pi: PiEnv) -> None:
    """pi 1.6.0 announces the queues on new/fork/clone/switch only when they held something."""
    pi.server.add_turns([{"text": "first answer"}])
    client = RpcClient(pi)
    try:
        client.request({"type": "prompt", "message": "hello"})
        client.event("agent_settled")
        start = len(client.seen)
        session_file = client.request({"type": "get_state"})["data"]["sessionFile"]
        entry = client.request({"type": "get_fork_messages"})["data"]["messages"][0]["entryId"]
        assert client.request({"type": "clone"})["success"]
        assert client.request({"type": "fork", "entryId": entry})["success"]
        assert client.request({"type": "switch_session", "sessionPath": session_file})["success"]
        assert client.request({"type": "new_session"})["success"]
        assert [e for e in client.seen[start:] if e.get("type") == "queue_update"] == []
    finally:
        client.close()


def test_fork_with_a_bad_id_answers_pi16s_text(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "ok"}])
    client = RpcClient(pi)
    try:
        client.request({"type": "prompt", "message": "hello"})
        client.event("agent_settled")
        answer = client.request({"type": "fork", "entryId": "no-such-entry"})
        assert answer["success"] is False and answer["error"] == "Invalid entry ID for forking"
    finally:
        client.close()


def test_rpc_bash_streams_bash_execution_update_per_chunk(pi: PiEnv) -> None:
    """pi 1.6.0 sends each output chunk of an RPC ``bash`` as ``bash_execution_update`` (``id``: the
    command's id) before the response; the deltas add up to the output."""
    client = RpcClient(pi)
    try:
        client.send({"type": "bash", "command": "echo one; sleep 0.3; echo two", "id": "b1"})
        answer = client.wait_for(lambda o: o.get("id") == "b1" and o.get("type") == "response", timeout=10)
        updates = [o for o in client.seen if o.get("type") == "bash_execution_update"]
        assert len(updates) >= 2 and all(set(u) == {"type", "id", "delta"} and u["id"] == "b1" for u in updates)
        assert "".join(u["delta"] for u in updates) == answer["data"]["output"] == "one\ntwo\n"
        assert client.seen.index(updates[-1]) < client.seen.index(answer)
    finally:
        client.close()


def test_a_message_that_never_streamed_starts_already_final(pi: PiEnv) -> None:
    """pi 1.6.0: an error before the first chunk gives a ``message_start`` with the final message
    (``stopReason: "error"``, ``errorMessage``), not ``"pending"``."""
    (pi.agent_dir / "settings.json").write_text('{"retry": {"enabled": false, "provider": {"maxRetries": 0}}}')
    pi.server.add_turns([{"status": 400, "body": {"error": {"message": "bad request"}}}])
    client = RpcClient(pi)
    try:
        client.request({"type": "prompt", "message": "hi"})
        client.event("agent_settled")
    finally:
        client.close()
    starts = [e for e in client.seen if e.get("type") == "message_start" and e["message"]["role"] == "assistant"]
    ends = [e for e in client.seen if e.get("type") == "message_end" and e["message"]["role"] == "assistant"]
    assert len(starts) == 1 and starts[0]["message"]["stopReason"] == "error"
    assert starts[0]["message"] == ends[0]["message"]


def test_clone_of_a_never_saved_session_refuses_as_pi16(pi: PiEnv) -> None:
    """pi 1.6.0 writes the session file with the first answer; cloning before that is refused
    (measured: ``clone`` as the first RPC command of ``pi --mode rpc``)."""
    client = RpcClient(pi)
    try:
        answer = client.request({"type": "clone"})
        assert answer["success"] is False
        assert answer["error"] == "This session has not been saved yet. Send a message before cloning or forking it."
    finally:
        client.close()


def test_session_stats_count_the_whole_session_after_a_compaction(pi: PiEnv) -> None:
    """Measured with pi 1.6.0 on this script: two answers, ``compact`` (a split turn: two summary
    calls), a third answer: 3 user and 3 assistant messages, tokens 657/66 — the compacted-away
    replies and the summarisation's usage included. (pi's totalMessages is 7: it also counts its
    ``role: "system"`` entry, which pi_cli does not record; see README.)"""
    (pi.agent_dir / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 50}}))
    pi.server.add_turns(
        [
            {"text": "answer one " * 50, "usage": {"input": 100, "output": 10}},
            {"text": "answer two " * 50, "usage": {"input": 200, "output": 20}},
            {"text": "## Goal\nsummary", "usage": {"input": 300, "output": 30}},
            {"text": "answer three", "usage": {"input": 50, "output": 5}},
            {"text": "four", "usage": {"input": 7, "output": 1}},
        ]
    )
    client = RpcClient(pi)
    try:
        for text in ("one " * 100, "two " * 100):
            client.request({"type": "prompt", "message": text})
            client.event("agent_settled")
        assert client.request({"type": "compact"})["success"]
        client.request({"type": "prompt", "message": "three"})
        client.event("agent_settled")
        stats = client.request({"type": "get_session_stats"})["data"]
    finally:
        client.close()
    assert (stats["userMessages"], stats["assistantMessages"], stats["toolCalls"], stats["toolResults"]) == (3, 3, 0, 0)
    assert stats["totalMessages"] == 6
    assert stats["tokens"] == {"input": 657, "output": 66, "cacheRead": 0, "cacheWrite": 0, "total": 723}
