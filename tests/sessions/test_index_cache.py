"""A huge session opened again unchanged comes from its index in the agent dir's cache, and after
an append from its index plus the new lines, always equal to reading it whole; any other change to
the file (a rewrite of the same size, a change before an append, an unfinished last line), a
fresh file, another loader or a damaged index means the file is read again. The size threshold is
lowered so that small files count as huge, and the quiet time shortened (the tests wait it out
instead of a second)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import BinaryIO

import pytest

from pi_cli.store.jsonl import LoadedFile
from pi_cli.store.manager import SessionManager
from pi_cli.store.slim import index_cache, lazy_entries
from pi_cli.store.slim.lazy_entries import load_slim

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from tui_workloads import write_session

QUIET_S = 0.05


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(lazy_entries, "SLIM_FILE_BYTES", 0)
    monkeypatch.setattr(index_cache, "QUIET_NS", int(QUIET_S * 1e9))
    path = write_session(tmp_path / "sessions-home", str(tmp_path / "proj"), entries=300, compact_every=100)
    time.sleep(QUIET_S * 1.5)
    return path


def _read_lines_counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, int]]:
    """Every pass over a file's lines as (file, number of its first line): 2 for a whole read, more
    for the lines appended after an index; a load from the index alone makes none."""
    passes: list[tuple[Path, int]] = []
    real = lazy_entries._load_lines

    def counted(handle: BinaryIO, path: Path, offset: int, number: int, result: LoadedFile) -> int:
        passes.append((path, number))
        return real(handle, path, offset, number, result)

    monkeypatch.setattr(lazy_entries, "_load_lines", counted)
    return passes


def _whole(path: Path, monkeypatch: pytest.MonkeyPatch) -> LoadedFile:
    """``path`` read line by line, no index used or written."""
    with monkeypatch.context() as patch:
        patch.setattr(index_cache, "lookup", lambda *_args: None)
        patch.setattr(index_cache, "store", lambda *_args: None)
        return load_slim(path)


def _append(path: Path, text: str) -> None:
    manager = SessionManager.open(path)
    manager.append_message({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 5})


def _same(a: LoadedFile, b: LoadedFile) -> bool:
    return (a.entries, a.warnings, a.torn_tail_offset) == (b.entries, b.warnings, b.torn_tail_offset)


def test_an_unchanged_file_is_opened_from_its_index(
    session: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    passes = _read_lines_counted(monkeypatch)
    first = load_slim(session)
    again = load_slim(session)
    assert passes == [(session, 2)]  # the second open read no line
    assert _same(again, first) and again.entries is not first.entries
    (index,) = (agent_dir / "cache" / "session-index").iterdir()
    assert index.suffix == ".bin" and index.stat().st_mode & 0o777 == 0o600  # as private as the session
    assert [p.name for p in session.parent.iterdir()] == [session.name]  # nothing beside the session
    manager = SessionManager.open(session)
    assert passes == [(session, 2)]
    monkeypatch.setattr(index_cache, "lookup", lambda *_args: None)
    assert manager.build_context().messages == SessionManager.open(session).build_context().messages


def test_after_an_append_only_the_new_lines_are_read(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    passes = _read_lines_counted(monkeypatch)
    first = load_slim(session)
    lines = session.read_bytes().count(b"\n")
    _append(session, "one more")  # its open came from the index
    _append(session, "and another")  # its open read the line the first one appended
    reopened = load_slim(session)
    assert passes == [(session, 2), (session, lines + 1), (session, lines + 1)]
    time.sleep(QUIET_S * 1.5)
    load_slim(session)  # the appends were too recent to index; now it is quiet
    assert _same(load_slim(session), reopened) and len(passes) == 4
    assert _same(reopened, _whole(session, monkeypatch)) and len(reopened.entries) == len(first.entries) + 2


@pytest.mark.parametrize("change", ["indexed bytes", "no newline at the end", "torn last line"])
def test_an_append_after_another_change_reads_the_file_whole(
    session: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    data = session.read_bytes()
    if change == "no newline at the end":
        session.write_bytes(data[:-1])
    elif change == "torn last line":
        session.write_bytes(data + b'{"type": "message", "id": "torn')
    time.sleep(QUIET_S * 1.5)
    passes = _read_lines_counted(monkeypatch)
    load_slim(session)
    with session.open("r+b") as handle:  # the same inode; pi would append whole lines
        if change == "indexed bytes":
            at = data.index(b"Please check module 7")
            handle.seek(at)
            handle.write(b"Please check mudule 7")
        handle.seek(0, os.SEEK_END)
        handle.write(b'{"type": "custom", "id": "late", "parentId": null, "timestamp": "t", "customType": "x"}\n')
    reopened = load_slim(session)
    assert passes == [(session, 2), (session, 2)]
    assert _same(reopened, _whole(session, monkeypatch))


def test_a_rewrite_of_the_same_size_is_never_served_from_the_index(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    passes = _read_lines_counted(monkeypatch)
    load_slim(session)
    at = session.read_bytes().index(b"Please check module 7")
    with session.open("r+b") as handle:  # in place: the same inode, the same size, the same offsets
        handle.seek(at)
        handle.write(b"Please check mudule 7")
    load_slim(session)
    assert len(passes) == 2
    entries = str(SessionManager.open(session).get_entries())
    assert "Please check mudule 7" in entries


def test_a_file_changed_just_now_is_not_indexed(
    session: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_cache, "QUIET_NS", 3_600 * 10**9)
    passes = _read_lines_counted(monkeypatch)
    load_slim(session)
    load_slim(session)
    assert len(passes) == 2
    assert not (agent_dir / "cache" / "session-index").exists()


def test_another_loader_or_a_damaged_index_reads_the_file(
    session: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_cache, "_SLICE", 50)  # the entries in several slices
    passes = _read_lines_counted(monkeypatch)
    first = load_slim(session)
    monkeypatch.setattr(index_cache, "code_digest", lambda: "another loader")
    assert _same(load_slim(session), first) and len(passes) == 2
    (index,) = (agent_dir / "cache" / "session-index").iterdir()
    data = index.read_bytes()
    head = 4 + int.from_bytes(data[:4], "little")
    second = head + 4 + int.from_bytes(data[head : head + 4], "little")
    cut_between_slices = data[:second]  # the head and the first slice, whole
    assert len(data) > second
    for damaged in (data[: len(data) // 2], data[:3], b"", data[:-40] + b"\xff" * 40, cut_between_slices):
        index.write_bytes(damaged)
        assert _same(load_slim(session), first)
    assert len(passes) == 7


def test_warnings_and_a_torn_tail_come_back_from_the_index(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = session.read_bytes().split(b"\n")
    lines[50] = lines[50][: len(lines[50]) // 2]  # a corrupt line in the middle
    session.write_bytes(b"\n".join(lines[:-1]) + b'\n{"type": "message", "id": "torn')  # and a torn last line
    time.sleep(QUIET_S * 1.5)
    passes = _read_lines_counted(monkeypatch)
    first = load_slim(session)
    assert first.warnings and first.torn_tail_offset is not None
    assert _same(load_slim(session), first) and len(passes) == 1


def test_only_the_newest_indexes_are_kept(tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lazy_entries, "SLIM_FILE_BYTES", 0)
    monkeypatch.setattr(index_cache, "QUIET_NS", 0)
    monkeypatch.setattr(index_cache, "KEEP", 3)
    made = [write_session(tmp_path / f"home{n}", str(tmp_path / "proj"), entries=20) for n in range(5)]
    for path in made:
        load_slim(path)
        time.sleep(0.02)  # index files written in this order have mtimes in this order
    kept = sorted((agent_dir / "cache" / "session-index").iterdir())
    assert len(kept) == 3
    passes = _read_lines_counted(monkeypatch)
    for path in made[-3:]:
        load_slim(path)
    assert passes == []
