"""What :func:`~pi_cli.store.slim.lazy_entries.load_slim` found in a huge session file, kept on disk so
that opening the file again, unchanged, reads that small index (~3.6 MB for a 57 MB session:
~25 ms) instead of checking every line again (~130 ms). ``pi -c`` of a session nobody wrote to
since, or an RPC client that restarts ``pi --mode rpc -c``, opens it this way.

Where: ``<agent dir>/cache/session-index/<digest of the path>.bin``, never beside the session
(pi's session folders hold what pi writes, nothing else). At most :data:`KEEP` files are kept
(the least recently written go).

The contract — an index is never used for a file that changed since it was read:

* it is used only when the file's ``(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)``, its
  path as given, and :func:`code_digest` (the loader's source, the pydantic-core install) are
  those recorded with it. A write to a file always moves its ctime, which no program can set
  back; appending also changes the size. An appended file is therefore a miss, read whole as
  before (and its index written anew).
* it is written only for a read during which the file did not change (the same stat before and
  after) and of a file that had not changed for :data:`QUIET_NS` before: file times come from a
  coarse clock (a few ms), so a write in the same tick as the one before could leave them as they
  were; a second of quiet leaves no such twin.
* an index file that cannot be read, is of another shape, or holds another key is a miss;
  failing to write one is silent (the cache only ever saves time).
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import struct
import sys
import time
from functools import cache
from pathlib import Path

from pi_cli.config.paths import agent_dir
from pi_cli.store.jsonl import LoadedFile

KEEP = 16  # index files kept; each is ~6% of its session's size
QUIET_NS = 1_000_000_000  # a file changed more recently than this is not indexed (see above)
_FORMAT = f"pi-session-index/1/{sys.implementation.cache_tag}/marshal{marshal.version}"
_LENGTH = struct.Struct("<I")  # the key's length, before the key and then the payload
# The modules whose code builds what a load gives (their source is read, not imported).
_HERE = Path(__file__).parent
_LOADER_SOURCES = (_HERE / "lazy_entries.py", _HERE / "message_index.py", _HERE.parent / "jsonl.py",
                   _HERE.parent / "stats.py")  # fmt: skip

Key = tuple[str, str, int, int, int, int, int, str]


@cache
def code_digest() -> str | None:
    """A digest of what decides what a load gives: the source of the modules that build slim
    entries, and which pydantic-core checks message lines (its install: path, size and time of
    its ``__init__``, found without importing it). None when any of it cannot be read: then
    nothing is cached. A changed loader never reads an old index."""
    from importlib.util import find_spec

    digest = hashlib.blake2b(digest_size=16)
    try:
        for source in _LOADER_SOURCES:
            digest.update(source.read_bytes())
        spec = find_spec("pydantic_core")
        origin = spec.origin if spec is not None else None
        if origin is None:
            return None
        validator = os.stat(origin)
    except (OSError, ValueError, ImportError):
        return None
    digest.update(f"{origin}:{validator.st_size}:{validator.st_mtime_ns}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def cache_dir() -> Path:
    return agent_dir() / "cache" / "session-index"


def _key(path: Path, stat: os.stat_result) -> Key | None:
    digest = code_digest()
    if digest is None:
        return None
    return (_FORMAT, str(path), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, digest)


def _index_file(path: Path) -> Path:
    name = hashlib.blake2b(os.path.abspath(path).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return cache_dir() / f"{name}.bin"


def lookup(path: Path, stat: os.stat_result) -> LoadedFile | None:
    """The load of ``path`` recorded for exactly this ``stat`` of it, or None."""
    key = _key(path, stat)
    if key is None:
        return None
    try:
        with _index_file(path).open("rb") as handle:
            head = handle.read(_LENGTH.size)
            (length,) = _LENGTH.unpack(head)
            if marshal.loads(handle.read(length)) != key:
                return None
            entries, warnings, torn_tail_offset = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError, struct.error):
        return None
    if not isinstance(entries, list) or not isinstance(warnings, list):
        return None
    if torn_tail_offset is not None and not isinstance(torn_tail_offset, int):
        return None
    return LoadedFile(entries=entries, warnings=warnings, torn_tail_offset=torn_tail_offset)


def store(path: Path, before: os.stat_result, after: os.stat_result, loaded: LoadedFile) -> None:
    """Record ``loaded``, read from ``path`` while its stat went from ``before`` to ``after``, if
    the contract above allows it. Call before anything changes ``loaded``'s entries."""
    key = _key(path, before)
    if key is None or _key(path, after) != key or time.time_ns() - before.st_ctime_ns < QUIET_NS:
        return
    target = _index_file(path)
    temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # first: an unwritable cache costs no encoding
        payload = marshal.dumps((loaded.entries, loaded.warnings, loaded.torn_tail_offset))
        head = marshal.dumps(key)
        # 0600 like the session files: the index holds some of their text (summaries, names).
        with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:
            handle.write(_LENGTH.pack(len(head)))
            handle.write(head)
            handle.write(payload)
        os.replace(temporary, target)  # readers see the old index or the new one, never half
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            temporary.unlink()
        return
    _prune(target.parent)


def _prune(folder: Path) -> None:
    """Keep the :data:`KEEP` most recently written index files."""
    with contextlib.suppress(OSError):
        files = [(entry.stat().st_mtime_ns, entry.path) for entry in os.scandir(folder) if entry.name.endswith(".bin")]
        files.sort(reverse=True)
        for _mtime, stale in files[KEEP:]:
            with contextlib.suppress(OSError):
                os.unlink(stale)
