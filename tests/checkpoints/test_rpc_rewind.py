"""RPC ``rewind`` / ``get_checkpoints`` through a real ``pi --mode rpc`` process and the fake LLM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli.pi_harness import PiEnv, RpcClient


def _bash_turn(command: str) -> dict:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def _session_entries(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def test_rewind_round_trip(pi: PiEnv) -> None:
    (pi.cwd / "seed.txt").write_text("seed\n")
    pi.server.add_turns([_bash_turn("echo made > made.txt && rm seed.txt && mkdir -p d && echo x > d/n.txt"),
                         {"text": "done"}])  # fmt: skip
    client = RpcClient(pi)
    try:
        assert client.request({"type": "prompt", "message": "change files"})["success"]
        client.event("agent_end")
        assert (pi.cwd / "made.txt").is_file() and not (pi.cwd / "seed.txt").exists()
        listed = client.request({"type": "get_checkpoints"})["data"]
        assert [c["text"] for c in listed["checkpoints"]] == ["change files"]
        entry_id = listed["checkpoints"][0]["entryId"]

        result = client.request({"type": "rewind", "entryId": entry_id, "files": True, "conversation": True})
        assert result["success"], result
        assert result["data"]["text"] == "change files"
        assert result["data"]["changedFiles"] == ["d/n.txt", "made.txt", "seed.txt"]
        assert (pi.cwd / "seed.txt").read_text() == "seed\n"
        assert not (pi.cwd / "made.txt").exists() and not (pi.cwd / "d").exists()
        assert client.request({"type": "get_messages"})["data"]["messages"] == []

        state = client.request({"type": "get_state"})["data"]
        kinds = [e.get("customType") for e in _session_entries(state["sessionFile"]) if e["type"] == "custom"]
        assert kinds == ["pi_cli.checkpoint"]  # a custom entry pi ignores

        # files only is idempotent now; a bad id is a plain error
        again = client.request({"type": "rewind", "entryId": entry_id, "conversation": False})
        assert again["success"] and again["data"]["changedFiles"] == []
        bad = client.request({"type": "rewind", "entryId": "nope"})
        assert bad["success"] is False and "Invalid entry ID for rewind" in bad["error"]
    finally:
        assert client.close() == 0


def test_rewind_refused_while_running(pi: PiEnv) -> None:
    pi.server.add_turns([_bash_turn("sleep 1"), {"text": "slept"}])
    client = RpcClient(pi)
    try:
        assert client.request({"type": "prompt", "message": "wait a bit"})["success"]
        client.event("tool_execution_start")
        entry_id = client.request({"type": "get_checkpoints"})["data"]["checkpoints"][0]["entryId"]
        refused = client.request({"type": "rewind", "entryId": entry_id})
        assert refused["success"] is False
        assert refused["error"] == "Cannot rewind while the agent is running"
        client.event("agent_end")
    finally:
        assert client.close() == 0


@pytest.mark.parametrize("pi_settings", [{"checkpoints": {"enabled": False}}])
def test_rewind_without_checkpoint_says_so(pi: PiEnv, pi_settings: dict) -> None:
    (pi.agent_dir / "settings.json").write_text(json.dumps(pi_settings))
    pi.server.add_turns([{"text": "hello"}])
    client = RpcClient(pi)
    try:
        assert client.request({"type": "prompt", "message": "hi"})["success"]
        client.event("agent_end")
        assert client.request({"type": "get_checkpoints"})["data"]["checkpoints"] == []
        entry_id = client.request({"type": "get_fork_messages"})["data"]["messages"][0]["entryId"]
        files = client.request({"type": "rewind", "entryId": entry_id})
        assert files["success"] is False and files["error"].startswith("No checkpoint covers this message")
        talk = client.request({"type": "rewind", "entryId": entry_id, "files": False})
        assert talk["success"] and talk["data"]["text"] == "hi" and talk["data"]["changedFiles"] == []
    finally:
        assert client.close() == 0


def test_rewind_after_resume(pi: PiEnv) -> None:
    (pi.cwd / "notes.md").write_text("v1\n")
    pi.server.add_turns([_bash_turn("echo v2 > notes.md"), {"text": "edited"}])
    client = RpcClient(pi)
    try:
        assert client.request({"type": "prompt", "message": "edit notes"})["success"]
        client.event("agent_end")
    finally:
        assert client.close() == 0
    assert (pi.cwd / "notes.md").read_text() == "v2\n"
    resumed = RpcClient(pi, "--continue")
    try:
        listed = resumed.request({"type": "get_checkpoints"})["data"]["checkpoints"]
        assert [c["text"] for c in listed] == ["edit notes"]
        result = resumed.request({"type": "rewind", "entryId": listed[0]["entryId"], "conversation": False})
        assert result["success"] and result["data"]["changedFiles"] == ["notes.md"]
        assert (pi.cwd / "notes.md").read_text() == "v1\n"
    finally:
        assert resumed.close() == 0
