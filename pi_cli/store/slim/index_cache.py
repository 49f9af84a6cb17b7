"""What :func:`~pi_cli.store.slim.lazy_entries.load_slim` found in a huge session file, kept on disk
so that opening the file again reads that small index (~3.6 MB for a 57 MB session: ~25 ms)
instead of checking every line again (~130 ms), and opening it after entries were appended reads
the index and only the new lines. ``pi -c`` after a conversation, or an RPC client that restarts
``pi --mode rpc -c``, opens a session this way.

Where: ``<agent dir>/cache/session-index/<digest of the path>.bin`` (0600, like the sessions),
never beside the session (pi's session folders hold what pi writes, nothing else). At most
:data:`KEEP` files are kept (the least recently written go).

The contract — an index never stands for bytes that changed since they were read:

* it is used whole only when the file's ``(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)``,
  its path as given, and :func:`code_digest` (the loader's source, the pydantic-core install) are
  those recorded with it. Any write to a file moves its ctime, which programs cannot set.
* a file that grew (same path, device, inode and loader) keeps its index for the bytes indexed
  only when they still have the crc32 recorded for them and end a line (pi appends whole lines),
  and the index had no torn last line (pi cuts one before appending). An accidental change that
  keeps the size, the crc32 and the inode is a one-in-four-billion event.
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
import threading
import time
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

from pi_cli.config.paths import agent_dir
from pi_cli.store.jsonl import LoadedFile

KEEP = 16  # index files kept; each is ~6% of its session's size
QUIET_NS = 1_000_000_000  # a file changed more recently than this is not indexed (see above)
_FORMAT = f"pi-session-index/3/{sys.implementation.cache_tag}/marshal{marshal.version}"
# The file: length-prefixed marshal blobs, the head (key, lines, crc32, torn tail, warnings, number
# of entries) first, then the entries a slice at a time (so neither writing nor reading holds all
# their bytes at once).
_LENGTH = struct.Struct("<I")
_SLICE = 2048
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


def file_crc(path: Path, start: int, stop: int, initial: int = 0) -> tuple[int, bytes] | None:
    """crc32 of bytes ``[start, stop)`` of ``path`` continuing ``initial``, and the last of those
    bytes; None when they cannot all be read (the file shrank or went away)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    buffer = bytearray(256 * 1024)  # one buffer for every read: the check adds ~0.3 MB, not a chunk per read
    view = memoryview(buffer)
    try:
        crc, offset, last = initial, start, b""
        while offset < stop:
            got = os.preadv(fd, [view[: min(len(buffer), stop - offset)]], offset)
            if not got:
                return None
            crc = zlib.crc32(view[:got], crc)
            offset += got
            last = bytes(view[got - 1 : got])
        return crc, last
    except OSError:
        return None
    finally:
        os.close(fd)


class Checksum:
    """:func:`file_crc` on a thread, for a file being parsed: zlib and reads let go of the GIL,
    so on a second core it costs the parse next to nothing."""

    def __init__(self, path: Path, start: int, stop: int, initial: int = 0) -> None:
        self._result: tuple[int, bytes] | None = None
        self._thread = threading.Thread(
            target=self._run, args=(path, start, stop, initial), name="session-index-crc", daemon=True
        )
        self._thread.start()

    def _run(self, path: Path, start: int, stop: int, initial: int) -> None:
        self._result = file_crc(path, start, stop, initial)

    def value(self) -> int | None:
        """The crc32, or None when the bytes could not all be read."""
        self._thread.join()
        return None if self._result is None else self._result[0]


def quiet(stat: os.stat_result) -> bool:
    """Whether a file of this ``stat`` had not changed for :data:`QUIET_NS` (only then may its
    index be written; see the contract above)."""
    return time.time_ns() - stat.st_ctime_ns >= QUIET_NS


@dataclass
class Found:
    """What the index holds for a file: ``loaded`` is what its first ``size`` bytes (``lines``
    lines, crc32 ``crc``) gave. ``size`` is the file's size when nothing was appended since."""

    loaded: LoadedFile
    size: int
    lines: int
    crc: int


def lookup(path: Path, stat: os.stat_result) -> Found | None:
    """The load recorded for ``path`` as it is (``stat``), or for the part of it that was there
    before entries were appended (see the contract above); None if there is none. The part is
    checked before the index is decoded (~25 ms for 57 MB, but a changed file costs no decoding)."""
    key = _key(path, stat)
    if key is None:
        return None
    try:
        with _index_file(path).open("rb") as handle:
            recorded, lines, crc, torn_tail_offset, warnings, count = marshal.loads(_read_blob(handle))
            if not isinstance(lines, int) or not isinstance(crc, int) or not isinstance(warnings, list):
                return None
            if torn_tail_offset is not None and not isinstance(torn_tail_offset, int):
                return None
            size = stat.st_size if recorded == key else _grown(recorded, key)
            if size is None:
                return None
            if size != stat.st_size and (torn_tail_offset is not None or file_crc(path, 0, size) != (crc, b"\n")):
                return None
            entries: list[Any] = []
            while blob := _read_blob(handle):
                entries.extend(marshal.loads(blob))
    except (OSError, EOFError, ValueError, TypeError, struct.error):
        return None
    if len(entries) != count:  # a file cut between two slices
        return None
    return Found(LoadedFile(entries=entries, warnings=warnings, torn_tail_offset=torn_tail_offset), size, lines, crc)


def _read_blob(handle: BinaryIO) -> bytes:
    """The next blob (empty at the end of the file); a cut one raises EOFError."""
    head = handle.read(_LENGTH.size)
    if not head:
        return b""
    (length,) = _LENGTH.unpack(head)
    blob = handle.read(length)
    if len(blob) != length:
        raise EOFError("index file cut short")
    return blob


def _write_blob(handle: BinaryIO, value: Any) -> None:
    blob = marshal.dumps(value)
    handle.write(_LENGTH.pack(len(blob)))
    handle.write(blob)


def _grown(recorded: object, key: Key) -> int | None:
    """The size indexed when ``recorded`` is the key of the same file (path, device, inode) and
    loader at a smaller size, else None."""
    if not isinstance(recorded, tuple) or len(recorded) != len(key):
        return None
    if recorded[:4] != key[:4] or recorded[7] != key[7]:
        return None
    size = recorded[4]
    return size if isinstance(size, int) and 0 < size < key[4] else None


def store(
    path: Path, before: os.stat_result, after: os.stat_result, loaded: LoadedFile, lines: int, crc: int | None
) -> None:
    """Record ``loaded``, read from ``path`` (``lines`` lines of crc32 ``crc``) while its stat went
    from ``before`` to ``after``, if the contract above allows it. Call before anything changes
    ``loaded``'s entries."""
    key = _key(path, before)
    if key is None or crc is None or _key(path, after) != key or not quiet(before):
        return
    target = _index_file(path)
    temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # first: an unwritable cache costs no encoding
        # 0600 like the session files: the index holds some of their text (summaries, names).
        with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:
            entries = loaded.entries
            _write_blob(handle, (key, lines, crc, loaded.torn_tail_offset, loaded.warnings, len(entries)))
            for start in range(0, len(entries), _SLICE):
                _write_blob(handle, entries[start : start + _SLICE])
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
