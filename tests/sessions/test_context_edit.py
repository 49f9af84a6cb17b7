"""pi 1.6.0's ``context_edit`` entries: a failed attempt stays in the file but leaves the context."""

from __future__ import annotations

import json
from pathlib import Path

from pi_cli.store.manager import SessionManager

from .helpers import assistant, user


def test_omission_is_written_with_null_and_survives_a_reload(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("hi"))
    failed = sm.append_message({**assistant(""), "stopReason": "error", "errorMessage": "503: {}"})
    edit = sm.append_context_edit(failed, None)
    sm.append_message(assistant("hello"))
    assert [m["role"] for m in sm.build_context().messages] == ["user", "assistant"]
    assert sm.build_context().messages[-1]["content"][0]["text"] == "hello"
    assert sm.session_file is not None
    rows = [json.loads(line) for line in sm.session_file.read_text().splitlines()]
    written = next(r for r in rows if r["id"] == edit)
    assert written == {"type": "context_edit", "id": edit, "parentId": failed, "timestamp": written["timestamp"],
                       "targetId": failed, "replacement": None}  # fmt: skip
    again = SessionManager.open(sm.session_file)
    assert [m["role"] for m in again.build_context().messages] == ["user", "assistant"]
    assert again.warnings == []


def test_replacement_changes_only_the_content(tmp_path: Path) -> None:
    sm = SessionManager.in_memory("/proj")
    sm.append_message(user("hi"))
    answer = sm.append_message(assistant("long answer"))
    sm.append_context_edit(answer, {"content": "short"})
    message = sm.build_context().messages[-1]
    assert message["role"] == "assistant" and message["content"] == [{"type": "text", "text": "short"}]


def test_tree_hides_context_edits_as_pi16_does() -> None:
    """pi 1.6.0's tree hides ``context_edit`` entries in its default view, like other bookkeeping."""
    from pi_cli.modes.tree_rows import flatten

    sm = SessionManager.in_memory("/proj")
    sm.append_message(user("hi"))
    failed = sm.append_message({**assistant(""), "stopReason": "error", "errorMessage": "503: {}"})
    sm.append_context_edit(failed, None)
    answer = sm.append_message(assistant("hello"))
    rows = flatten(sm.get_tree(), {answer})
    assert [row.entry_id for row in rows][-1] == answer
    assert all("context" not in row.text for row in rows) and len(rows) == 3
