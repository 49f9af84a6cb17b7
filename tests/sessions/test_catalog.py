"""Listing, id-prefix lookup and the CLI's session flag resolution."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_cli.store.catalog import (
    SessionAbortedError,
    SessionArgsError,
    SessionNotFoundError,
    delete_session,
    list_all_sessions,
    list_sessions,
    open_session_for_cli,
    rename_session,
)
from pi_cli.store.manager import SessionManager

from .helpers import assistant, user


def make(cwd: str, text: str) -> SessionManager:
    sm = SessionManager.create(cwd, fsync=False)
    sm.append_message(user(text))
    sm.append_message(assistant("ok"))
    return sm


def test_list_sessions_per_project_and_all(agent_dir: Path) -> None:
    a = make("/work/a", "first in a")
    make("/work/b", "first in b")
    infos = list_sessions("/work/a")
    assert [i.id for i in infos] == [a.session_id]
    assert infos[0].first_message == "first in a" and infos[0].message_count == 2
    assert infos[0].path.parent == agent_dir / "sessions" / "--work-a--"
    assert len(list_all_sessions()) == 2


def test_rename_and_delete(agent_dir: Path) -> None:
    a = make("/work/a", "hello")
    assert a.session_file is not None
    rename_session(a.session_file, "Renamed")
    assert list_sessions("/work/a")[0].name == "Renamed"
    delete_session(a.session_file)
    assert list_sessions("/work/a") == []


def test_cli_resolution(agent_dir: Path, tmp_path: Path) -> None:
    a = make("/work/a", "hello")
    other = make("/work/b", "elsewhere")
    assert open_session_for_cli("/work/a", continue_=True).session_id == a.session_id
    assert open_session_for_cli("/work/a", session=a.session_id[:13]).session_id == a.session_id
    assert a.session_file is not None
    assert open_session_for_cli("/work/a", session=str(a.session_file)).session_id == a.session_id
    with pytest.raises(SessionNotFoundError, match=r"^No session found matching 'zzzz'$"):
        open_session_for_cli("/work/a", session="zzzz")
    with pytest.raises(SessionNotFoundError, match=r"^No session found matching 'zzzz'$"):
        open_session_for_cli("/work/a", fork="zzzz")
    with pytest.raises(SessionArgsError, match=r"^--fork cannot be combined with --session, --continue$"):
        open_session_for_cli("/work/a", fork="x", session="y", continue_=True)
    forked = open_session_for_cli("/work/a", fork=a.session_id[:8])
    assert forked.header["parentSession"] == str(a.session_file) and forked.session_id != a.session_id
    # A session of another project: pi asks before forking it here.
    with pytest.raises(SessionAbortedError):
        open_session_for_cli("/work/a", session=other.session_id, confirm_fork=lambda cwd: cwd != "/work/b")
    moved = open_session_for_cli("/work/a", session=other.session_id, confirm_fork=lambda cwd: True)
    assert moved.cwd == "/work/a" and moved.build_context().messages[0]["content"][0]["text"] == "elsewhere"
    mem = open_session_for_cli("/work/a", no_session=True)
    assert mem.session_file is None and not mem.persist
    fresh = open_session_for_cli("/work/new")
    assert fresh.session_file is not None and not fresh.session_file.exists()
    explicit = open_session_for_cli("/work/a", session_dir=tmp_path / "flat")
    assert explicit.session_file is not None and explicit.session_file.parent == tmp_path / "flat"


async def test_a_resumed_session_is_the_one_continue_reopens(tmp_path: Path) -> None:
    """Issue 33: /resume an older session, quit without a word, then ``pi -c``: the older one
    (the one last open), not the newer fork."""
    import os
    import time as _time

    from pi_cli.session.assembly import build_session
    from pi_cli.session.store_bridge import SessionStoreBridge
    from pi_cli.store.manager import SessionManager

    work = tmp_path / "work"
    work.mkdir()
    reply = {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "api": "faux", "provider": "faux",
             "model": "faux-1", "stopReason": "stop", "timestamp": 3}  # fmt: skip
    older = SessionManager.create(work, tmp_path / "sessions", fsync=False)
    older.append_message({"role": "user", "content": [{"type": "text", "text": "old"}], "timestamp": 1})
    older.append_message(reply)
    old_file = older.session_file
    assert old_file is not None
    os.utime(old_file, (_time.time() - 100, _time.time() - 100))
    newer = SessionManager.create(work, tmp_path / "sessions", fsync=False)
    newer.append_message({"role": "user", "content": [{"type": "text", "text": "new"}], "timestamp": 2})
    newer.append_message(reply)
    session = build_session(cwd=work, store=SessionStoreBridge(newer, work), system_prompt="t")
    await session.switch_session(str(old_file))
    assert SessionManager.continue_recent(work, tmp_path / "sessions").session_file == old_file
