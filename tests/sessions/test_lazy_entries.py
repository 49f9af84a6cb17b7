"""Huge sessions load slim: long message lines stay on disk until something needs their body."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pi_cli.store.manager import SessionManager
from pi_cli.store.slim import lazy_entries
from pi_cli.store.slim.lazy_entries import REF

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from tui_workloads import write_session


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """A 400-entry session with a compaction every 100 entries (long tool-result lines)."""
    return write_session(tmp_path / "agent", str(tmp_path / "proj"), entries=400, compact_every=100)


def _pair(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[SessionManager, SessionManager]:
    monkeypatch.setattr(lazy_entries, "SLIM_FILE_BYTES", 1 << 40)
    whole = SessionManager.open(path)
    monkeypatch.setattr(lazy_entries, "SLIM_FILE_BYTES", 0)
    slim = SessionManager.open(path)
    return whole, slim


def test_slim_load_gives_the_same_context_entries_and_fork_points(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole, slim = _pair(big, monkeypatch)
    messages = sum(e["type"] == "message" for e in whole.get_entries())
    assert sum(REF in e for e in slim.index.entries) == messages  # every message line stayed on disk
    context = slim.build_context()
    assert context.messages == whole.build_context().messages
    reference = whole.build_context()
    assert (context.model, context.thinking_level) == (reference.model, reference.thinking_level)
    assert 250 < sum(REF in e for e in slim.index.entries) < messages  # the context read back only what it holds
    assert slim.get_entries() == whole.get_entries()
    assert slim.get_user_messages_for_forking() == whole.get_user_messages_for_forking()
    assert slim.get_branch() == whole.get_branch()
    leaf = slim.get_leaf_id()
    assert leaf is not None and slim.get_entry(leaf) == whole.get_entry(leaf)
    assert [n.entry for n in slim.get_tree()] == [n.entry for n in whole.get_tree()]
    assert slim.latest_compaction() == whole.latest_compaction() is not None


def test_appending_to_a_slim_session_keeps_the_file_whole(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _whole, slim = _pair(big, monkeypatch)
    slim.append_message({"role": "user", "content": [{"type": "text", "text": "one more"}], "timestamp": 5})
    reopened = SessionManager.open(big)
    assert reopened.build_context().messages[-1]["content"][0]["text"] == "one more"
    assert all(json.loads(line) for line in big.read_text().splitlines())  # nothing slim reached the disk
    assert REF not in big.read_text()


def test_fork_of_a_slim_session_copies_whole_entries(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole, slim = _pair(big, monkeypatch)
    leaf = slim.get_leaf_id()
    assert leaf is not None
    new_file = slim.create_branched_session(leaf)
    assert new_file is not None
    assert [json.loads(line) for line in new_file.read_text().splitlines()][1:] == whole.get_branch()


def test_an_unreadable_slim_line_becomes_a_placeholder(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _whole, slim = _pair(big, monkeypatch)
    victim = next(e for e in slim.index.entries if REF in e and e["message"]["role"] == "toolResult")
    offset, length = victim[REF]
    with big.open("r+b") as handle:  # damage the middle of that line, as a disk error might
        handle.seek(offset + length // 2)
        handle.write(b"\x00\x00\x00")
    entry = slim.get_entry(victim["id"])
    assert entry is not None and "could not be read back" in entry["message"]["content"][0]["text"]


def test_a_torn_last_line_is_still_reported(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with big.open("ab") as handle:
        handle.write(b'{"type":"message","id":"torn"')
    _whole, slim = _pair(big, monkeypatch)
    assert any("incomplete last line" in w for w in slim.warnings)
    slim.append_message({"role": "user", "content": [{"type": "text", "text": "after"}], "timestamp": 6})
    assert all(json.loads(line) for line in big.read_text().splitlines())
