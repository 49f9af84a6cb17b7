"""``<agentDir>/trust.json``: saved project-trust decisions, shared with pi 1.6.0.

The file maps canonical directory paths (symlinks resolved) to ``true`` (trusted) or ``false``
(not trusted); ``null`` values are tolerated and mean "no decision". The decision for a folder is
the one saved for the folder itself or its closest saved parent. Keys are written sorted, two-space
indented, as pi writes them, so either program can read what the other saved.

Reads and writes hold ``trust.json.lock``, a directory created with ``mkdir`` as pi's
proper-lockfile does, so a pi and a pi_cli process never interleave a read-modify-write. A lock
older than :data:`STALE_AFTER_S` is left over from a crash and is taken over.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pi_cli.config.json_file import write_json_atomic

STALE_AFTER_S = 10.0  # proper-lockfile's default stale age
LOCK_ATTEMPTS = 50
LOCK_DELAY_S = 0.02


class TrustStoreError(ValueError):
    """trust.json could not be read, parsed or written; the message is one line naming the file."""


@dataclass(frozen=True, slots=True)
class TrustEntry:
    """A saved decision: ``path`` is the folder it was saved for (the cwd or a parent)."""

    path: str
    decision: bool


def canonical_dir(path: str | os.PathLike[str]) -> str:
    """The absolute, symlink-free form of ``path`` (the path itself when it cannot be resolved)."""
    absolute = os.path.abspath(os.path.expanduser(os.fspath(path)))
    try:
        return os.path.realpath(absolute, strict=True)
    except (OSError, ValueError):
        return absolute


class TrustStore:
    """Saved decisions in ``<agent_dir>/trust.json``; every method re-reads the file."""

    def __init__(self, agent_dir: str | os.PathLike[str]) -> None:
        self.path = Path(os.path.abspath(os.fspath(agent_dir))) / "trust.json"

    def get(self, cwd: str | os.PathLike[str]) -> bool | None:
        """The decision that applies to ``cwd`` (closest saved folder wins), None when none does."""
        entry = self.entry(cwd)
        return None if entry is None else entry.decision

    def entry(self, cwd: str | os.PathLike[str]) -> TrustEntry | None:
        """The closest saved decision for ``cwd`` or one of its parents, with the folder it names."""
        with self._locked():
            data = self._read()
        current = canonical_dir(cwd)
        while True:
            value = data.get(current)
            if isinstance(value, bool):
                return TrustEntry(current, value)
            parent = os.path.dirname(current)
            if parent == current:
                return None
            current = parent

    def set(self, cwd: str | os.PathLike[str], decision: bool | None) -> None:
        """Save ``decision`` for ``cwd`` (``None`` removes the folder's own entry)."""
        self.set_many([(os.fspath(cwd), decision)])

    def set_many(self, updates: Iterable[tuple[str, bool | None]]) -> None:
        """Apply several ``(folder, decision)`` updates under one lock, then write the file."""
        with self._locked():
            data = self._read()
            for folder, decision in updates:
                key = canonical_dir(folder)
                data.pop(key, None)
                if decision is not None:
                    data[key] = decision
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                write_json_atomic(self.path, {key: data[key] for key in sorted(data)})
            except OSError as exc:
                raise TrustStoreError(f"Could not write trust store {self.path}: {exc.strerror or exc}") from None

    # --- file and lock ---------------------------------------------------------------------------

    def _read(self) -> dict[str, bool | None]:
        try:
            text = self.path.read_text(encoding="utf-8").removeprefix("\ufeff")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise TrustStoreError(f"Failed to read trust store {self.path}: {exc}") from None
        if not text.strip():
            return {}
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TrustStoreError(
                f"Failed to read trust store {self.path}: line {exc.lineno}, column {exc.colno}: {exc.msg}"
            ) from None
        if not isinstance(parsed, dict):
            raise TrustStoreError(f"Invalid trust store {self.path}: expected an object")
        for key, value in parsed.items():
            if value is not None and not isinstance(value, bool):
                raise TrustStoreError(
                    f"Invalid trust store {self.path}: value for {json.dumps(key)} must be true, false, or null"
                )
        return parsed

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        lock = self.path.with_name(self.path.name + ".lock")
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise TrustStoreError(f"Could not create {lock.parent}: {exc.strerror or exc}") from None
        for _attempt in range(LOCK_ATTEMPTS):
            try:
                os.mkdir(lock)
                break
            except FileExistsError:
                with contextlib.suppress(OSError):
                    if time.time() - os.stat(lock).st_mtime > STALE_AFTER_S:
                        os.rmdir(lock)  # a crashed holder's lock
                        continue
                time.sleep(LOCK_DELAY_S)
            except OSError as exc:
                raise TrustStoreError(f"Could not lock trust store {self.path}: {exc.strerror or exc}") from None
        else:
            raise TrustStoreError(f"Timed out waiting for the lock on {lock}")
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.rmdir(lock)
