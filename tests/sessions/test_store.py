"""The JSONL layer: names, ids, and loading files damaged by crashes."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest

from pi_cli.store.jsonl import (
    SessionFileError,
    SessionWriter,
    default_session_dir,
    encode_cwd,
    file_name_for,
    iso_now,
    load_session_file,
    new_entry_id,
    new_session_id,
    resolve_session_dir,
)

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-02T14:11:07.596Z", "cwd": "/p"}


def line(obj: object) -> bytes:
    return (json.dumps(obj) + "\n").encode()


def entry(i: int) -> dict[str, object]:
    parent = f"e{i - 1}" if i else None
    return {"type": "custom", "id": f"e{i}", "parentId": parent, "timestamp": "t", "customType": "x"}


def test_cwd_encoding_matches_pi() -> None:
    assert encode_cwd("/home/u/proj") == "--home-u-proj--"
    assert encode_cwd("C:\\Users\\me") == "--C--Users-me--"


def test_session_dir_precedence(agent_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert default_session_dir("/a/b") == agent_dir / "sessions" / "--a-b--"
    assert resolve_session_dir("/a/b", setting=str(tmp_path / "s")) == tmp_path / "s"
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(tmp_path / "env"))
    assert resolve_session_dir("/a/b", setting=str(tmp_path / "s")) == tmp_path / "env"
    assert resolve_session_dir("/a/b", tmp_path / "flag") == tmp_path / "flag"


def test_ids_and_timestamps() -> None:
    sid = new_session_id()
    assert uuid.UUID(sid).version == 7
    assert new_session_id() != sid
    assert re.fullmatch(r"[0-9a-f]{8}", new_entry_id(set()))
    stamp = iso_now()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_abc\.jsonl", file_name_for(stamp, "abc"))


def test_torn_last_line_is_skipped_with_warning(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(HEADER) + line(entry(0)) + line(entry(1))[:-9])
    loaded = load_session_file(path)
    assert [e.get("id") for e in loaded.entries] == ["s1", "e0"]
    assert len(loaded.warnings) == 1
    assert loaded.warnings[0].startswith(f"{path}:3: skipped incomplete last line")
    assert loaded.torn_tail_offset == len(line(HEADER) + line(entry(0)))


def test_corrupt_middle_line_reported_with_number_rest_loads(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(HEADER) + line(entry(0)) + b"{not json\n" + b"[1,2]\n" + line(entry(1)))
    loaded = load_session_file(path)
    assert [e.get("id") for e in loaded.entries] == ["s1", "e0", "e1"]
    assert loaded.warnings == [
        f"{path}:3: skipped corrupt session line (Expecting property name enclosed in double quotes)",
        f"{path}:4: skipped corrupt session line (not a JSON object with a 'type')",
    ]
    assert loaded.torn_tail_offset is None


def test_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(HEADER) + line(entry(0))[:-1])
    loaded = load_session_file(path)
    assert [e.get("id") for e in loaded.entries] == ["s1", "e0"]
    assert loaded.warnings == []


def test_not_a_session_file_is_an_error_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"type":"message","id":"x"}\n')
    with pytest.raises(SessionFileError, match="Not a pi session file"):
        load_session_file(path)
    assert path.read_text() == '{"type":"message","id":"x"}\n'


def test_writer_cuts_torn_fragment_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(HEADER) + line(entry(0)) + b'{"type":"cus')
    loaded = load_session_file(path)
    SessionWriter(path, fsync=False, truncate_at=loaded.torn_tail_offset).append([entry(1)])
    again = load_session_file(path)
    assert again.warnings == []
    assert [e.get("id") for e in again.entries] == ["s1", "e0", "e1"]


def test_missing_and_empty_files_have_no_entries(tmp_path: Path) -> None:
    assert load_session_file(tmp_path / "nope.jsonl").entries == []
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert load_session_file(tmp_path / "empty.jsonl").entries == []
