"""CheckpointStore: byte-for-byte restores, ignore rules, the project's .git, crash safety."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from pi_cli.checkpoints import CheckpointError, CheckpointStore, shadow_dir_for


def _tree_state(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file outside .git: (mode, bytes)."""
    state: dict[str, tuple[int, bytes]] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/") or not path.is_file():
            continue
        state[rel] = (stat.S_IMODE(path.stat().st_mode), path.read_bytes())
    return state


def _dir_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(path.relative_to(root).as_posix().encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "a.txt").write_text("alpha\n")
    (root / "b.txt").write_text("beta\n")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "old").mkdir()
    (root / "old" / "moved.py").write_text("print('moved')\n")
    (root / "blob.bin").write_bytes(bytes(range(256)) * 4)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "sub").mkdir()
    (root / "sub" / ".gitignore").write_text("secret.txt\n")
    (root / "sub" / "kept.txt").write_text("kept\n")
    (root / "sub" / "secret.txt").write_text("ignored by a nested .gitignore\n")
    (root / "app.log").write_text("log v1\n")
    return root


@pytest.fixture
def store(project: Path, tmp_path: Path) -> CheckpointStore:
    return CheckpointStore(project, tmp_path / "agent")


async def test_restore_is_byte_for_byte(project: Path, store: CheckpointStore) -> None:
    first = await store.snapshot("before")
    assert first is not None
    before = _tree_state(project)
    (project / "a.txt").write_text("alpha changed\n")  # modify
    (project / "b.txt").unlink()  # delete
    (project / "old" / "moved.py").rename(project / "moved.py")  # rename (old dir empties)
    (project / "run.sh").chmod(0o755)  # chmod
    (project / "blob.bin").write_bytes(b"\x00\xff" * 1000)  # binary
    (project / "deep" / "new").mkdir(parents=True)
    (project / "deep" / "new" / "file.txt").write_text("new dir\n")  # create in a new dir
    diff = await store.diff(first)
    assert sorted(diff["created"]) == ["deep/new/file.txt", "moved.py"]
    assert sorted(diff["deleted"]) == ["b.txt", "old/moved.py"]
    assert sorted(diff["modified"]) == ["a.txt", "blob.bin", "run.sh"]
    changes = await store.restore(first)
    assert sorted(changes["deleted"]) == ["deep/new/file.txt", "moved.py"]
    assert sorted(changes["created"]) == ["b.txt", "old/moved.py"]
    assert _tree_state(project) == before
    assert not (project / "deep").exists()


async def test_restore_can_be_undone(project: Path, store: CheckpointStore) -> None:
    first = await store.snapshot("one")
    assert first is not None
    (project / "a.txt").write_text("agent wrote this\n")
    after_agent = _tree_state(project)
    await store.restore(first)
    history = await store.list()
    assert [h["label"] for h in history[:2]] == [f"restore to {first[:12]}", f"before restore to {first[:12]}"]
    await store.restore(history[1]["id"])
    assert _tree_state(project) == after_agent


async def test_ignored_and_oversized_files_are_left_alone(project: Path, tmp_path: Path) -> None:
    store = CheckpointStore(project, tmp_path / "agent", max_file_bytes=1000)
    (project / "huge.dat").write_bytes(b"x" * 5000)
    first = await store.snapshot("one")
    assert first is not None
    (project / "app.log").write_text("log v2\n")
    (project / "sub" / "secret.txt").write_text("still mine\n")
    (project / "build").mkdir()
    (project / "build" / "out.o").write_bytes(b"obj")
    (project / "huge.dat").write_bytes(b"y" * 6000)
    await store.restore(first)
    assert (project / "app.log").read_text() == "log v2\n"
    assert (project / "sub" / "secret.txt").read_text() == "still mine\n"
    assert (project / "build" / "out.o").read_bytes() == b"obj"
    assert (project / "huge.dat").read_bytes() == b"y" * 6000
    _, out = await store._git.run("ls-tree", "-r", "--name-only", first)
    names = out.decode().split()
    assert "huge.dat" not in names and "app.log" not in names and "sub/secret.txt" not in names
    assert "sub/kept.txt" in names


async def test_a_file_growing_past_the_limit_is_dropped_not_restored(project: Path, tmp_path: Path) -> None:
    store = CheckpointStore(project, tmp_path / "agent", max_file_bytes=1000)
    await store.snapshot("one")
    (project / "a.txt").write_bytes(b"z" * 2000)
    second = await store.snapshot("two")
    assert second is not None
    _, out = await store._git.run("ls-tree", "-r", "--name-only", second)
    assert "a.txt" not in out.decode().split()


@pytest.fixture
def staged_project(project: Path) -> Path:
    subprocess.run(["git", "-C", str(project), "add", "a.txt"], check=True)
    return project


async def test_project_git_dir_untouched(staged_project: Path, store: CheckpointStore) -> None:
    project = staged_project
    digest = _dir_digest(project / ".git")
    first = await store.snapshot("one")
    assert first is not None
    (project / "a.txt").write_text("x\n")
    await store.restore(first)
    assert _dir_digest(project / ".git") == digest
    assert not any(name.startswith(".git/") or name == ".git" for name in (await store.diff(first))["created"])


async def test_unchanged_snapshot_returns_same_id(store: CheckpointStore, project: Path) -> None:
    first = await store.snapshot("one")
    assert first is not None
    assert await store.snapshot("two") == first
    assert len(await store.list()) == 1
    (project / "a.txt").write_text("changed\n")
    second = await store.snapshot("three")
    assert second not in (None, first)


async def test_shadow_lives_under_agent_dir_and_ignores_user_git_config(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[core]\n\tautocrlf = true\n[commit]\n\tgpgsign = true\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_DIR", str(project / ".git"))  # must not leak into our calls
    store = CheckpointStore(project, tmp_path / "agent")
    (project / "crlf.txt").write_bytes(b"one\ntwo\n")
    (project / ".gitattributes").write_text("* text eol=crlf\n")
    first = await store.snapshot("one")
    assert first is not None
    assert store.git_dir == shadow_dir_for(project.resolve(), (tmp_path / "agent").resolve())  # noqa: ASYNC240
    (project / "crlf.txt").unlink()
    await store.restore(first)
    assert (project / "crlf.txt").read_bytes() == b"one\ntwo\n"


async def test_huge_tree_refused_with_notice(project: Path, tmp_path: Path) -> None:
    store = CheckpointStore(project, tmp_path / "agent", max_files=5)
    assert await store.snapshot("one") is None
    assert store.notice is not None and "more than 5 files" in store.notice
    assert await store.snapshot("two") is None  # stays off, no rescan


async def test_crash_after_staging_leaves_consistent_store(project: Path, store: CheckpointStore) -> None:
    first = await store.snapshot("one")
    assert first is not None
    (project / "a.txt").write_text("staged but never committed\n")
    await store._stage()  # a crash here: index moved, ref did not
    assert store._head() == first
    (project / "index.lock").write_text("")  # a lock in the *project* is none of our business
    second = await store.snapshot("two")
    assert second not in (None, first)
    assert (await store.diff(first))["modified"] == ["a.txt"]


async def test_unknown_checkpoint_is_a_clear_error(store: CheckpointStore) -> None:
    await store.snapshot("one")
    with pytest.raises(CheckpointError, match="Unknown checkpoint"):
        await store.restore("0123456789abcdef0123456789abcdef01234567")
    with pytest.raises(CheckpointError, match="Unknown checkpoint"):
        await store.diff("--help")


async def test_stale_index_lock_is_cleared(project: Path, store: CheckpointStore) -> None:
    await store.snapshot("one")
    lock = store.git_dir / "index.lock"
    lock.write_text("")
    os.utime(lock, (1, 1))
    fresh = CheckpointStore(project, store.agent_dir)
    (project / "a.txt").write_text("after a crash\n")
    assert await fresh.snapshot("two") is not None


async def test_folders_of_the_checkpoint_come_back_empty_ones_too(project: Path, store: CheckpointStore) -> None:
    """Git records files only; a rewind still brings back every folder the checkpoint had (pi 1.6)."""
    (project / "empty").mkdir()
    (project / "nest" / "deeper").mkdir(parents=True)
    (project / "only_logs").mkdir()
    (project / "only_logs" / "x.log").write_text("ignored\n")
    (project / "build" / "inner").mkdir(parents=True)  # ignored by .gitignore: not recorded
    first = await store.snapshot("with folders")
    assert first is not None
    for folder in ("empty", "nest", "only_logs", "old", "build"):
        shutil.rmtree(project / folder)
    await store.restore(first)
    assert (project / "empty").is_dir() and (project / "nest" / "deeper").is_dir()
    assert (project / "only_logs").is_dir() and not (project / "only_logs" / "x.log").exists()
    assert (project / "old" / "moved.py").is_file()
    assert not (project / "build").exists()  # ignored folders are left alone


async def test_a_folder_removed_without_file_changes_is_a_new_checkpoint(project: Path, store: CheckpointStore) -> None:
    (project / "empty").mkdir()
    first = await store.snapshot("one")
    (project / "empty").rmdir()
    second = await store.snapshot("two")
    assert first is not None and second is not None and second != first
    assert await store.snapshot("three") == second  # and unchanged again after that
    await store.restore(first)
    assert (project / "empty").is_dir()
