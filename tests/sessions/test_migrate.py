"""Old session formats load and are rewritten as version 3."""

from __future__ import annotations

import json
from pathlib import Path

from pi_cli.store.manager import SessionManager
from pi_cli.store.migrate import migrate_entries

V1 = [
    {"type": "session", "id": "old-1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"},
    {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z",
     "message": {"role": "user", "content": "first", "timestamp": 1}},
    {"type": "message", "timestamp": "2025-01-01T00:00:02.000Z",
     "message": {"role": "assistant", "content": [{"type": "text", "text": "one"}], "provider": "p", "model": "m",
                 "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2},
                 "stopReason": "stop", "timestamp": 2}},
    {"type": "message", "timestamp": "2025-01-01T00:00:03.000Z",
     "message": {"role": "user", "content": "second", "timestamp": 3}},
    {"type": "compaction", "timestamp": "2025-01-01T00:00:04.000Z", "summary": "S", "firstKeptEntryIndex": 3,
     "tokensBefore": 50},
    {"type": "message", "timestamp": "2025-01-01T00:00:05.000Z",
     "message": {"role": "hookMessage", "customType": "h", "content": "hook text", "display": True, "timestamp": 5}},
]  # fmt: skip


def test_v1_becomes_a_linear_tree_with_ids() -> None:
    entries = json.loads(json.dumps(V1))
    assert migrate_entries(entries) is True
    assert entries[0]["version"] == 3
    ids = [e["id"] for e in entries[1:]]
    assert len(set(ids)) == len(ids)
    assert [e["parentId"] for e in entries[1:]] == [None, *ids[:-1]]
    compaction = entries[4]
    assert "firstKeptEntryIndex" not in compaction
    assert compaction["firstKeptEntryId"] == entries[3]["id"]
    assert entries[5]["message"]["role"] == "custom"
    assert migrate_entries(entries) is False


def test_v2_only_renames_hook_messages() -> None:
    entries = [
        {"type": "session", "version": 2, "id": "s", "timestamp": "t", "cwd": "/p"},
        {"type": "message", "id": "a", "parentId": None, "timestamp": "t",
         "message": {"role": "hookMessage", "customType": "h", "content": "x", "display": False, "timestamp": 1}},
    ]  # fmt: skip
    assert migrate_entries(entries) is True
    assert entries[1]["id"] == "a" and entries[1]["message"]["role"] == "custom"


def test_old_file_is_migrated_on_load_and_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in V1))
    sm = SessionManager.open(path)
    assert sm.cwd == "/p"
    ctx = sm.build_context()
    assert [m["role"] for m in ctx.messages] == ["compactionSummary", "user", "custom"]
    rows = [json.loads(r) for r in path.read_text().splitlines()]
    assert rows[0]["version"] == 3
    assert all("id" in r for r in rows)
    # A reload is stable (no second migration, same ids).
    assert SessionManager.open(path).get_entries() == sm.get_entries()
