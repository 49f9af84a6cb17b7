"""SessionManager: persistence rules, tree, branching and context building."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_cli.store.jsonl import load_session_file
from pi_cli.store.manager import SessionManager

from .helpers import assistant, tool_result, user


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in path.read_text().splitlines()]


def test_file_appears_with_first_assistant_reply(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    assert sm.session_file is not None and sm.session_file.parent == tmp_path
    sm.append_model_change("fake", "fake-model")
    sm.append_thinking_level_change("off")
    sm.append_message(user("hi"))
    assert not sm.session_file.exists()
    sm.append_message(assistant("hello"))
    rows = lines(sm.session_file)
    assert [r["type"] for r in rows] == ["session", "model_change", "thinking_level_change", "message", "message"]
    assert rows[0] == {"type": "session", "version": 3, "id": sm.session_id, "timestamp": rows[0]["timestamp"],
                       "cwd": "/proj"}  # fmt: skip
    assert rows[1]["parentId"] is None
    assert [r["parentId"] for r in rows[2:]] == [r["id"] for r in rows[1:-1]]
    sm.append_message(user("more"))
    assert len(lines(sm.session_file)) == 6  # appended at once after the first flush


def test_round_trip_reload_gives_same_entries_and_leaf(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("read it"))
    sm.append_message(assistant(calls=[("c1", "read", {"path": "a.py"})]))
    sm.append_message(tool_result("c1", "print(1)", "read"))
    sm.append_message(assistant("done"))
    sm.append_session_info("  my task  ")
    assert sm.session_file is not None
    again = SessionManager.open(sm.session_file)
    assert again.get_entries() == sm.get_entries()
    assert again.get_leaf_id() == sm.get_leaf_id()
    assert again.session_id == sm.session_id
    assert again.get_session_name() == "my task"
    assert [m["role"] for m in again.build_context().messages] == ["user", "assistant", "toolResult", "assistant"]
    assert again.warnings == []


def test_in_memory_never_writes(tmp_path: Path, agent_dir: Path) -> None:
    sm = SessionManager.in_memory("/proj")
    sm.append_message(user("hi"))
    sm.append_message(assistant("yo"))
    assert sm.session_file is None
    assert not agent_dir.exists() or not any(agent_dir.rglob("*.jsonl"))
    assert len(sm.build_context().messages) == 2


def test_branching_moves_leaf_and_new_entries_fork_the_tree(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    u1 = sm.append_message(user("first"))
    a1 = sm.append_message(assistant("one"))
    u2 = sm.append_message(user("second"))
    sm.append_message(assistant("two"))
    sm.branch(a1)
    u3 = sm.append_message(user("second, rephrased"))
    a3 = sm.append_message(assistant("three"))
    assert sm.get_entry(u3)["parentId"] == a1  # type: ignore[index]
    texts = [m["content"][0]["text"] for m in sm.build_context().messages]
    assert texts == ["first", "one", "second, rephrased", "three"]
    roots = sm.get_tree()
    assert len(roots) == 1 and roots[0].entry["id"] == u1
    a1_node = roots[0].children[0]
    assert [c.entry["id"] for c in a1_node.children] == [u2, u3]
    # Reloading: the leaf is the last entry of the file.
    assert sm.session_file is not None
    assert SessionManager.open(sm.session_file).get_leaf_id() == a3
    with pytest.raises(KeyError):
        sm.branch("nope")


def test_reset_leaf_creates_second_root(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("a"))
    sm.append_message(assistant("b"))
    sm.reset_leaf()
    assert sm.build_context().messages == []
    new_root = sm.append_message(user("again"))
    assert sm.get_entry(new_root)["parentId"] is None  # type: ignore[index]
    assert len(sm.get_tree()) == 2


def test_context_honours_compaction(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_model_change("fake", "m1")
    sm.append_thinking_level_change("high")
    sm.append_message(user("old"))
    sm.append_message(assistant("old answer"))
    kept = sm.append_message(user("kept"))
    sm.append_message(assistant("kept answer"))
    sm.append_compaction("SUMMARY", kept, 1234, {"readFiles": [], "modifiedFiles": []})
    sm.append_message(user("after"))
    ctx = sm.build_context()
    assert [m["role"] for m in ctx.messages] == ["compactionSummary", "user", "assistant", "user"]
    assert ctx.messages[0]["summary"] == "SUMMARY" and ctx.messages[0]["tokensBefore"] == 1234
    assert ctx.messages[1]["content"][0]["text"] == "kept"
    assert ctx.thinking_level == "high"
    assert ctx.model == {"provider": "fake", "modelId": "fake-model"}  # the last assistant wins


def test_branch_summary_and_custom_message_join_context(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    root = sm.append_message(user("q"))
    sm.append_message(assistant("a"))
    sm.branch_with_summary(root, "we tried X", {"readFiles": ["f"], "modifiedFiles": []})
    sm.append_custom_message_entry("note", "remember Y", True)
    sm.append_custom_entry("state", {"k": 1})  # never in context
    roles = [m["role"] for m in sm.build_context().messages]
    assert roles == ["user", "branchSummary", "custom"]
    summary_entry = sm.get_entries()[2]
    assert summary_entry["type"] == "branch_summary" and summary_entry["fromId"] == root
    assert summary_entry["parentId"] == root


def test_labels_resolve_and_clear(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    u = sm.append_message(user("q"))
    sm.append_message(assistant("a"))
    sm.append_label_change(u, "start")
    assert sm.get_label(u) == "start"
    assert sm.get_tree()[0].label == "start"
    sm.append_label_change(u, None)
    assert sm.get_label(u) is None
    assert sm.session_file is not None
    assert SessionManager.open(sm.session_file).get_label(u) is None


def test_fork_from_copies_everything_with_parent_session(tmp_path: Path) -> None:
    src = SessionManager.create("/a", tmp_path / "a", fsync=False)
    src.append_message(user("q"))
    src.append_message(assistant("a"))
    assert src.session_file is not None
    forked = SessionManager.fork_from(src.session_file, "/b", tmp_path / "b")
    assert forked.session_file is not None and forked.session_file.parent == tmp_path / "b"
    header = lines(forked.session_file)[0]
    assert header["parentSession"] == str(src.session_file) and header["cwd"] == "/b"
    assert forked.session_id != src.session_id
    assert forked.get_entries() == src.get_entries()


def test_create_branched_session_keeps_only_the_path(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    u1 = sm.append_message(user("first"))
    a1 = sm.append_message(assistant("one"))
    sm.append_label_change(u1, "L")
    sm.append_message(user("second"))
    sm.append_message(assistant("two"))
    old_file = sm.session_file
    new_file = sm.create_branched_session(a1)
    assert new_file is not None and new_file != old_file and new_file.exists()
    rows = lines(new_file)
    assert rows[0]["parentSession"] == str(old_file)
    assert [r["type"] for r in rows[1:]] == ["message", "message", "label"]
    assert sm.get_label(u1) == "L"
    assert len(sm.build_context().messages) == 2


def test_user_messages_for_forking_and_stats(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    u = sm.append_message(user("do it"))
    sm.append_message(assistant(calls=[("c1", "bash", {"command": "ls"})], total=50))
    sm.append_message(tool_result("c1", "x"))
    sm.append_message(assistant("ok", total=70))
    assert sm.get_user_messages_for_forking() == [{"entryId": u, "text": "do it"}]
    stats = sm.get_stats()
    assert stats["userMessages"] == 1 and stats["assistantMessages"] == 2
    assert stats["toolCalls"] == 1 and stats["toolResults"] == 1 and stats["totalMessages"] == 4
    assert stats["tokens"] == {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "total": 120}
    assert stats["cost"] == pytest.approx(0.006)


def test_continue_recent_picks_newest(tmp_path: Path) -> None:
    import os

    first = SessionManager.create("/proj", tmp_path, fsync=False)
    first.append_message(user("1"))
    first.append_message(assistant("1"))
    second = SessionManager.create("/proj", tmp_path, fsync=False)
    second.append_message(user("2"))
    second.append_message(assistant("2"))
    assert first.session_file is not None and second.session_file is not None
    os.utime(first.session_file, (2_000_000_000, 2_000_000_000))
    assert SessionManager.continue_recent("/proj", tmp_path).session_id == first.session_id
    assert SessionManager.continue_recent("/other", tmp_path / "none").session_file is not None


def test_open_nonexistent_path_creates_it_on_first_reply(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    sm = SessionManager.open(path, cwd_override="/proj")
    sm.append_message(user("q"))
    assert not path.exists()
    sm.append_message(assistant("a"))
    assert load_session_file(path).entries[0]["id"] == sm.session_id


def test_empty_existing_file_gets_a_header(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    sm = SessionManager.open(path, cwd_override="/proj")
    assert lines(path)[0]["type"] == "session"
    sm.append_message(user("q"))
    sm.append_message(assistant("a"))
    assert len(lines(path)) == 3


def test_torn_tail_from_crash_is_repaired_on_next_append(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("q"))
    sm.append_message(assistant("a"))
    assert sm.session_file is not None
    with open(sm.session_file, "a") as fh:
        fh.write('{"type":"message","id":"torn","parentId":')
    again = SessionManager.open(sm.session_file)
    assert len(again.warnings) == 1 and "incomplete last line" in again.warnings[0]
    again.append_message(user("next"))
    final = SessionManager.open(sm.session_file)
    assert final.warnings == []
    assert [m["content"][0]["text"] for m in final.build_context().messages] == ["q", "a", "next"]


def test_export_branch_jsonl_rechains(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("q"))
    a = sm.append_message(assistant("a"))
    sm.append_message(user("dropped"))
    sm.branch(a)
    sm.append_message(user("kept"))
    out = sm.export_branch_jsonl(tmp_path / "out.jsonl")
    rows = lines(out)
    assert [r["message"]["content"][0]["text"] for r in rows[1:]] == ["q", "a", "kept"]
    assert [r["parentId"] for r in rows[1:]] == [None, rows[1]["id"], rows[2]["id"]]
