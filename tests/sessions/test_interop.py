"""Interop with pi 0.73.1: its file loads here, and ours has the shape pi writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pi_cli.store.manager import SessionManager

from .helpers import assistant, tool_result, user

FIXTURE = Path(__file__).parent.parent / "fixtures" / "sessions" / "pi-0.73.1.jsonl"


def test_pi_fixture_loads_with_tree_compaction_and_name(tmp_path: Path) -> None:
    path = tmp_path / FIXTURE.name
    shutil.copy(FIXTURE, path)
    sm = SessionManager.open(path)
    assert sm.warnings == []
    assert sm.session_id == "01a2379b-88be-7088-bcf2-d3f3669ee260"
    assert sm.cwd == "/home/user/proj"
    assert sm.get_session_name() == 'interop <fixture> & "demo"'
    ctx = sm.build_context()
    # pi's own get_messages for this file (captured with --mode rpc) returned exactly this order.
    assert [m["role"] for m in ctx.messages] == [
        "compactionSummary", "user", "assistant", "toolResult", "assistant", "user", "assistant",
    ]  # fmt: skip
    assert ctx.model == {"provider": "fake", "modelId": "fake-model"}
    assert ctx.thinking_level == "off"
    call = ctx.messages[2]["content"][0]
    assert call["type"] == "toolCall" and call["arguments"] == {"command": "echo hello from tool"}
    assert ctx.messages[3]["toolCallId"] == call["id"]
    # Loading must not rewrite a current-version file.
    assert path.read_bytes() == FIXTURE.read_bytes()


def test_appending_to_pi_file_keeps_it_valid(tmp_path: Path) -> None:
    path = tmp_path / FIXTURE.name
    shutil.copy(FIXTURE, path)
    sm = SessionManager.open(path)
    leaf = sm.get_leaf_id()
    new_id = sm.append_message(user("from pi_cli"))
    rows = [json.loads(r) for r in path.read_text().splitlines()]
    assert rows[-1]["id"] == new_id and rows[-1]["parentId"] == leaf
    assert len(rows) == len(FIXTURE.read_text().splitlines()) + 1


def test_our_entries_use_pi_field_sets(tmp_path: Path) -> None:
    fixture_rows = [json.loads(r) for r in FIXTURE.read_text().splitlines()]
    pi_keys = {(r["type"], r.get("message", {}).get("role")): set(r) for r in fixture_rows}
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_model_change("fake", "fake-model")
    sm.append_thinking_level_change("off")
    sm.append_message(user("q"))
    sm.append_message(assistant(calls=[("c", "bash", {"command": "ls"})]))
    sm.append_message(tool_result("c", "x"))
    sm.append_message(assistant("done"))
    sm.append_session_info("n")
    first = sm.get_entries()[0]["id"]
    sm.append_compaction("S", first, 10, {"readFiles": [], "modifiedFiles": []}, from_hook=False)
    assert sm.session_file is not None
    ours = [json.loads(r) for r in sm.session_file.read_text().splitlines()]
    assert set(ours[0]) == set(fixture_rows[0])
    for row in ours[1:]:
        key = (row["type"], row.get("message", {}).get("role"))
        assert set(row) == pi_keys[key], key
