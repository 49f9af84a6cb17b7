"""Checkpoints of a project's files, kept in a shadow git repository under the agent dir.

``CheckpointStore(cwd)`` keeps ``<agentDir>/checkpoints/<sha1 of cwd>/`` (a bare repository with
its own index) and drives it with ``--work-tree=<cwd>``. The project's ``.git`` is never read or
written: git itself never adds a ``.git`` entry, nested repositories are skipped, and every call
goes through :class:`~pi_cli.checkpoints.git_runner.ShadowGit` (user config neutralised).

What is recorded: every file git would see in the work tree, minus what ``.gitignore`` files
(nested ones too), the project's ``.git/info/exclude`` and the shadow's own exclude ignore, and
minus regular files over ``max_file_bytes`` (those are left alone by snapshot and restore alike).
Git records no directories, so the folders holding no recorded file (empty ones, ones with only
ignored or oversized files) are listed in the checkpoint commit's message (a ``pi-dirs:`` line of
JSON) and made again on restore: a folder that existed at the checkpoint comes back, as in pi.

Contracts:

* ``await snapshot(label)`` → checkpoint id (a commit sha) or None when refused (huge tree, git
  failure; ``notice`` then holds one line saying why). When nothing changed since the last
  checkpoint the same id comes back and nothing is written; the index is kept between calls, so
  the unchanged case costs one ``git status`` and one ``git ls-files -o --directory`` (stat
  calls, no hashing).
* ``await diff(from_id)`` → ``{"modified", "created", "deleted"}``: paths changed between the
  checkpoint and the current tree (created = exists now, not then).
* ``await restore(id)`` → the same shape, describing which files the restore changed on disk;
  folders of the checkpoint that are missing are made again (not listed: the lists hold files).
  The state before is snapshotted first and the restored state after, so a restore can itself be
  undone. Folders made since the checkpoint are left alone unless git emptied them of files.
* ``await list()`` → checkpoints newest first: ``{"id", "timestamp" (ms), "label"}``.

Crash safety: objects and the commit are written before the ref moves (``update-ref`` with the
expected old value is the last step), so a crash leaves the previous checkpoint as the head and,
at worst, a staged index that the next snapshot commits.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import shutil
import stat
import time
from pathlib import Path
from typing import Any

from pi_cli.checkpoints.git_runner import GitError, ShadowGit

HEAD_REF = "refs/heads/checkpoints"
DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024
DEFAULT_MAX_FILES = 50_000
STATUS_TIMEOUT = 15.0
_MAX_PATHSPECS = 200
# Commit-message line that lists a checkpoint's folders without recorded files (JSON array).
_DIRS_PREFIX = "pi-dirs: "
# Attributes that could rewrite bytes on checkout (eol, filters, encodings) are switched off;
# $GIT_DIR/info/attributes takes precedence over the project's .gitattributes files.
_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -export-subst\n"

Paths = list[str]
Entries = list[dict[str, Any]]
Changes = dict[str, Paths]


class CheckpointError(RuntimeError):
    """A checkpoint operation could not be done; the message is one line for the user."""


def shadow_dir_for(cwd: Path, agent_dir: Path) -> Path:
    """Where the checkpoints of ``cwd`` live: one directory per project (sha1 of its path)."""
    key = hashlib.sha1(str(cwd).encode("utf-8")).hexdigest()
    return agent_dir / "checkpoints" / key


class CheckpointStore:
    """Checkpoints of one project directory (see the module docstring for the contracts)."""

    def __init__(
        self,
        cwd: Path,
        agent_dir: Path,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        max_files: int = DEFAULT_MAX_FILES,
    ) -> None:
        self.cwd = cwd.resolve()
        self.agent_dir = agent_dir
        self.git_dir = shadow_dir_for(self.cwd, agent_dir.resolve())
        self.max_file_bytes = max_file_bytes
        self.max_files = max_files
        self.notice: str | None = None  # why the last snapshot was refused, if it was
        self.refused = False  # a huge/slow tree: stop trying in this process
        project_exclude = self.cwd / ".git" / "info" / "exclude"
        self._git = ShadowGit(self.git_dir, self.cwd, project_exclude if project_exclude.is_file() else None)
        self._git.env["GIT_LITERAL_PATHSPECS"] = "1"  # file names are names, not patterns
        self._lock = asyncio.Lock()
        self._ready = False
        self._tree_of: dict[str, str] = {}
        self._dirs_of: dict[str, list[str]] = {}

    # -- public API ----------------------------------------------------------------------

    async def snapshot(self, label: str) -> str | None:
        """Record the work tree; returns the checkpoint id, or None when refused (see ``notice``)."""
        async with self._lock:
            try:
                return await self._snapshot(label)
            except (GitError, OSError, CheckpointError) as exc:
                self.notice = f"Checkpoint skipped: {exc}"
                return None

    async def diff(self, from_id: str) -> Changes:
        """Paths changed from checkpoint ``from_id`` to the current work tree."""
        async with self._lock:
            target = await self._resolve(from_id)
            tree = await self._stage()
            assert tree is not None
            return await self._diff_trees(target, tree)

    async def restore(self, checkpoint_id: str) -> Changes:
        """Make the work tree match checkpoint ``checkpoint_id`` byte for byte (tracked files only:
        ignored and oversized files are left alone); returns what changed on disk."""
        async with self._lock:
            target = await self._resolve(checkpoint_id)
            before = await self._snapshot(f"before restore to {checkpoint_id[:12]}")
            if before is None:
                raise CheckpointError(self.notice or "the current files could not be recorded")
            changes = await self._diff_trees(before, target)
            if any(changes.values()):
                await self._git.run("read-tree", "--reset", "-u", target)
            made = self._make_dirs(await self._recorded_dirs(target))
            if any(changes.values()) or made:
                await self._snapshot(f"restore to {checkpoint_id[:12]}")
            return changes

    async def list(self) -> Entries:
        """Checkpoints, newest first: ``{"id", "timestamp", "label"}`` (timestamp in ms)."""
        async with self._lock:
            if not self.git_dir.joinpath("HEAD").is_file() or self._head() is None:
                return []
            _, out = await self._git.run("log", "-z", "--format=%H%x1f%ct%x1f%s", HEAD_REF)
            result = []
            for record in out.decode("utf-8", "replace").split("\0"):
                parts = record.strip("\n").split("\x1f")
                if len(parts) == 3:
                    result.append({"id": parts[0], "timestamp": int(parts[1]) * 1000, "label": parts[2]})
            return result

    async def exists(self, checkpoint_id: str) -> bool:
        """True when ``checkpoint_id`` names a checkpoint of this store."""
        async with self._lock:
            try:
                await self._resolve(checkpoint_id)
            except CheckpointError:
                return False
            return True

    # -- internals -----------------------------------------------------------------------

    def _ensure_repo(self) -> None:
        """Create the shadow repository once (atomically: built aside, then renamed in)."""
        if self._ready:
            return
        if not self.git_dir.joinpath("HEAD").is_file():
            self.git_dir.parent.mkdir(parents=True, exist_ok=True)
            temp = self.git_dir.with_name(f"{self.git_dir.name}.tmp-{os.getpid()}")
            shutil.rmtree(temp, ignore_errors=True)
            temp.mkdir()
            for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags", "info"):
                (temp / sub).mkdir(parents=True, exist_ok=True)
            (temp / "HEAD").write_text(f"ref: {HEAD_REF}\n")
            (temp / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = true\n")
            (temp / "pi_cli-work-tree").write_text(str(self.cwd) + "\n")
            try:
                os.rename(temp, self.git_dir)
            except OSError:
                shutil.rmtree(temp, ignore_errors=True)  # another process won the race
        self._write_info()
        self._clear_stale_lock()
        self._ready = True

    def _write_info(self) -> None:
        excludes = [".git"]
        # If the agent dir sits inside the project, never snapshot our own store.
        with contextlib.suppress(ValueError):
            excludes.append("/" + self.agent_dir.resolve().relative_to(self.cwd).as_posix())
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        for name, text in (("exclude", "\n".join(excludes) + "\n"), ("attributes", _ATTRIBUTES)):
            path = info / name
            if not path.is_file() or path.read_text() != text:
                path.write_text(text)

    def _clear_stale_lock(self) -> None:
        """An index.lock left by a killed process would block every later call; one older than a
        minute cannot belong to a live checkpoint call (they take milliseconds)."""
        lock = self.git_dir / "index.lock"
        with contextlib.suppress(OSError):
            if time.time() - lock.stat().st_mtime > 60:
                lock.unlink()

    def _head(self) -> str | None:
        try:
            value = (self.git_dir / HEAD_REF).read_text().strip()
        except OSError:
            return None
        return value or None

    async def _resolve(self, checkpoint_id: str) -> str:
        self._ensure_repo()
        if not checkpoint_id or not all(c in "0123456789abcdef" for c in checkpoint_id.lower()):
            raise CheckpointError(f"Unknown checkpoint: {checkpoint_id!r}")
        code, out = await self._git.run("rev-parse", "--verify", "-q", f"{checkpoint_id}^{{commit}}", check=False)
        if code != 0:
            raise CheckpointError(f"Unknown checkpoint: {checkpoint_id}")
        return out.decode().strip()

    async def _tree(self, commit: str) -> str:
        tree = self._tree_of.get(commit)
        if tree is None:
            _, out = await self._git.run("rev-parse", f"{commit}^{{tree}}")
            tree = self._tree_of[commit] = out.decode().strip()
        return tree

    async def _snapshot(self, label: str) -> str | None:
        if self.refused:
            return None
        self._ensure_repo()
        head = self._head()
        tree = await self._stage(clean_is_none=head is not None)
        dirs = await self._bare_dirs()  # after staging: the index now holds every recorded file
        head_dirs = await self._recorded_dirs(head) if head is not None else []
        if tree is None and head is not None and dirs == head_dirs:
            return head  # nothing changed at all: the fast path
        if tree is None:
            assert head is not None
            tree = await self._tree(head)  # only folders changed
        if head is not None and await self._tree(head) == tree and dirs == head_dirs:
            return head
        parents = ["-p", head] if head else []
        message = label or "checkpoint"
        if dirs:
            message += "\n\n" + _DIRS_PREFIX + json.dumps(dirs, ensure_ascii=False)
        _, out = await self._git.run("commit-tree", tree, *parents, "-m", message)
        commit = out.decode().strip()
        # The ref moves last, and only from the head we built on (another process may have moved it).
        await self._git.run("update-ref", HEAD_REF, commit, head or "0" * 40)
        self._tree_of[commit] = tree
        self._dirs_of[commit] = dirs
        self.notice = None
        return commit

    async def _bare_dirs(self) -> Paths:
        """Folders of the work tree with no recorded file under them, sorted (``a``, ``a/b``).

        ``ls-files -o --directory`` names the top of each such subtree (``a/`` for ``a/b/``), so each
        is walked for the folders below it; folders an ignore rule covers are dropped, and a nested
        git repository is named but not entered."""
        _, out = await self._git.run(
            "ls-files", "-o", "--directory", "--exclude-standard", "-z", timeout=STATUS_TIMEOUT
        )
        tops = [e[:-1] for e in out.decode("utf-8", "surrogateescape").split("\0") if e.endswith("/")]
        found: set[str] = set(tops)
        below: list[str] = []
        for top in tops:
            if (self.cwd / top / ".git").exists():
                continue
            for here, names, _files in os.walk(self.cwd / top):
                names[:] = [n for n in names if n != ".git"]
                for name in list(names):
                    path = Path(here, name)
                    below.append(path.relative_to(self.cwd).as_posix())
                    if (path / ".git").exists():
                        names.remove(name)  # a nested repository: its contents are not ours
        if below:
            _, ignored = await self._git.run(
                "check-ignore", "-z", "--stdin", stdin=_nul_join(below), check=False, timeout=STATUS_TIMEOUT
            )
            dropped = set(ignored.decode("utf-8", "surrogateescape").split("\0"))
            # An ignored folder hides everything below it.
            found.update(p for p in below if not any(p == d or p.startswith(d + "/") for d in dropped if d))
        return sorted(found)

    async def _recorded_dirs(self, commit: str) -> Paths:
        """The ``pi-dirs:`` list of checkpoint ``commit`` (empty for checkpoints made before it existed)."""
        dirs = self._dirs_of.get(commit)
        if dirs is None:
            _, out = await self._git.run("cat-file", "commit", commit)
            dirs = []
            for line in out.decode("utf-8", "surrogateescape").splitlines():
                if line.startswith(_DIRS_PREFIX):
                    with contextlib.suppress(ValueError):
                        loaded = json.loads(line[len(_DIRS_PREFIX) :])
                        dirs = [d for d in loaded if isinstance(d, str)]
            self._dirs_of[commit] = dirs
        return dirs

    def _make_dirs(self, dirs: Paths) -> bool:
        """Make the folders of ``dirs`` that are missing; True when any was made. A path that is
        now a file, or that would lead outside the work tree, is left alone."""
        made = False
        for rel in dirs:
            target = (self.cwd / rel).resolve()
            if target == self.cwd or self.cwd not in target.parents or target.is_dir():
                continue
            with contextlib.suppress(OSError):  # a file stands there now: the file wins
                target.mkdir(parents=True)
                made = True
        return made

    async def _stage(self, clean_is_none: bool = False, retry: bool = True) -> str | None:
        """Bring the shadow index up to date with the work tree; returns its tree id.

        With ``clean_is_none`` (snapshot's fast path), None means git status saw nothing at all:
        the index matches the work tree and the head commit, so the head is still current."""
        try:
            _, out = await self._git.run(
                "status", "--porcelain", "-z", "--no-renames", "--untracked-files=all", timeout=STATUS_TIMEOUT
            )
        except GitError as exc:
            if "longer than" in str(exc):
                self.refused = True
                raise CheckpointError(f"scanning {self.cwd} took too long; checkpoints are off for it") from None
            raise
        entries = [e for e in out.decode("utf-8", "surrogateescape").split("\0") if e]
        if not entries and clean_is_none:
            return None
        to_add: Paths = []
        to_drop: Paths = []
        skipped: Paths = []
        untracked = 0
        for entry in entries:
            code, path = entry[:2], entry[3:]
            if path.endswith("/"):
                continue  # a nested git repository: not ours to record
            if code == "??":
                untracked += 1
            elif code[1] not in "DMT":
                continue  # staged only (an interrupted snapshot): write-tree picks it up
            if code[1] != "D" and self._too_big(path):
                if code != "??":
                    to_drop.append(path)  # grew past the limit: stop tracking, leave it alone
                skipped.append(path)
                continue
            to_add.append(path)
        if untracked > self.max_files:
            self.refused = True
            raise CheckpointError(
                f"{self.cwd} has more than {self.max_files:,} files not ignored by .gitignore;"
                " checkpoints are off for it"
            )
        if to_drop:
            await self._git.run("rm", "--cached", "-q", "--ignore-unmatch", "--pathspec-from-file=-",
                                "--pathspec-file-nul", stdin=_nul_join(to_drop))  # fmt: skip
        if to_add:
            exit_code = await self._add(to_add, skipped)
            if exit_code != 0 and retry:
                return await self._stage(False, retry=False)  # a file vanished meanwhile: look again
            if exit_code != 0:
                raise CheckpointError("the work tree kept changing while it was being recorded")
        _, out = await self._git.run("write-tree")
        return out.decode().strip()

    async def _add(self, paths: Paths, skipped: Paths) -> int:
        """Stage ``paths``. Many paths (a first snapshot) go as one ``add -A`` of the whole tree
        minus the oversized files: git matches a long pathspec list against every file, which is
        quadratic (5 s for 10,000 files), while a whole-tree add takes a fraction of a second.
        That add also writes its blobs into one pack (bulk check-in, ``bigFileThreshold=1``)
        instead of 10,000 loose object files (another 5 s of file creation here)."""
        if len(paths) <= _MAX_PATHSPECS:
            code, _ = await self._git.run("add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul",
                                          stdin=_nul_join(paths), check=False)  # fmt: skip
            return code
        excludes = [f":(exclude,literal){p}" for p in skipped]
        saved = self._git.env.pop("GIT_LITERAL_PATHSPECS")
        try:
            code, _ = await self._git.run("add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul",
                                          stdin=_nul_join([".", *excludes]), check=False,
                                          config=("core.bigFileThreshold=1",))  # fmt: skip
        finally:
            self._git.env["GIT_LITERAL_PATHSPECS"] = saved
        return code

    def _too_big(self, rel: str) -> bool:
        try:
            info = os.lstat(self.cwd / rel)
        except OSError:
            return False
        return stat.S_ISREG(info.st_mode) and info.st_size > self.max_file_bytes

    async def _diff_trees(self, old: str, new: str) -> Changes:
        _, out = await self._git.run("diff-tree", "-r", "-z", "--no-renames", "--name-status", old, new)
        parts = out.decode("utf-8", "surrogateescape").split("\0")
        changes: Changes = {"modified": [], "created": [], "deleted": []}
        kinds = {"A": "created", "D": "deleted"}
        for status, path in zip(parts[0::2], parts[1::2], strict=False):
            if status:
                changes[kinds.get(status[0], "modified")].append(path)
        return changes


def _nul_join(paths: Paths) -> bytes:
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)
