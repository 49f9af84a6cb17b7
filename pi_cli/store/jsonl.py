"""pi's session files on disk: layout, ids, and crash-tolerant JSONL reading and writing.

A session file is JSONL: line 1 is the header ``{"type":"session","version":3,"id","timestamp",
"cwd","parentSession?"}``, every further line one entry ``{"type","id","parentId","timestamp",...}``.
Files live in ``<agentDir>/sessions/--<cwd with / \\ : as ->--/<timestamp>_<uuid>.jsonl`` unless a
session dir is given (``--session-dir``, ``PI_CODING_AGENT_SESSION_DIR``, setting ``sessionDir``),
in which case the files go directly into that dir, as pi does.

Durability contract: entries are only ever appended; each append is one ``write`` of whole lines
followed by ``flush`` and (by default) ``fsync``. A process killed at any moment therefore leaves
at most one torn last line. :func:`load_session_file` skips a torn last line with a warning and
reports a corrupt line elsewhere with its line number while loading the rest; the next append
first cuts the torn fragment off so new lines never get glued onto it.
"""

from __future__ import annotations

import json
import os
import secrets
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeAlias

from pi_cli.config.paths import agent_dir

CURRENT_SESSION_VERSION = 3
SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR"

# Entries are JSON objects with pi's camelCase keys; a TypedDict per entry type would not buy
# much because files written by other versions may carry extra or missing fields.
Entry: TypeAlias = dict[str, Any]

ENTRY_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
        "context_edit",
    }
)


class SessionFileError(ValueError):
    """A session file that cannot be used at all (unreadable, or not a session file)."""


# --- ids and timestamps ---------------------------------------------------------------------


def new_session_id() -> str:
    """A UUIDv7 (time-ordered), the id pi gives sessions."""
    ms = time.time_ns() // 1_000_000
    rand = int.from_bytes(secrets.token_bytes(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76  # version 7
    value |= ((rand >> 62) & 0xFFF) << 64  # rand_a, 12 bits
    value |= 0b10 << 62  # RFC 4122 variant
    value |= rand & ((1 << 62) - 1)  # rand_b
    return str(uuid.UUID(int=value))


def new_entry_id(taken: set[str] | dict[str, Any]) -> str:
    """First 8 hex chars of a random UUID, re-drawn on collision (full UUID as a last resort)."""
    for _ in range(100):
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())


def iso_now() -> str:
    """The current UTC time the way JavaScript's ``toISOString`` prints it (millisecond precision)."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def iso_to_ms(timestamp: Any) -> int:
    """Milliseconds since the epoch for an ISO timestamp; 0 when it cannot be parsed."""
    if not isinstance(timestamp, str):
        return 0
    try:
        return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0


def file_name_for(timestamp: str, session_id: str) -> str:
    """``<timestamp with : and . as ->_<id>.jsonl``, pi's session file name."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


# --- directories ----------------------------------------------------------------------------


def encode_cwd(cwd: str | Path) -> str:
    """The directory name pi derives from a cwd: ``/home/u/proj`` → ``--home-u-proj--``."""
    text = str(cwd)
    if text[:1] in ("/", "\\"):
        text = text[1:]
    for ch in "/\\:":
        text = text.replace(ch, "-")
    return f"--{text}--"


def sessions_root() -> Path:
    """``<agentDir>/sessions``: the parent of every per-cwd session dir (used to search all projects)."""
    return agent_dir() / "sessions"


def default_session_dir(cwd: str | Path) -> Path:
    """``<agentDir>/sessions/--<encoded cwd>--`` (not created here)."""
    return sessions_root() / encode_cwd(cwd)


def resolve_session_dir(cwd: str | Path, session_dir: str | Path | None = None, setting: str | None = None) -> Path:
    """Where sessions of ``cwd`` live: ``--session-dir`` > ``$PI_CODING_AGENT_SESSION_DIR`` > the
    ``sessionDir`` setting > the default per-cwd dir. Explicit dirs hold files directly, as in pi."""
    if session_dir:
        return Path(session_dir).expanduser()
    env = os.environ.get(SESSION_DIR_ENV)
    if env:
        return Path(env).expanduser()
    if setting:
        return Path(setting).expanduser()
    return default_session_dir(cwd)


# --- reading --------------------------------------------------------------------------------


@dataclass(slots=True)
class LoadedFile:
    """What :func:`load_session_file` found. ``entries`` includes the header as item 0 (if any).

    ``torn_tail_offset`` is the byte offset where an unterminated, unparseable last line starts
    (None when the file ends cleanly); appending must truncate there first.
    """

    entries: list[Entry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    torn_tail_offset: int | None = None


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("role"), str)


def parse_session_text(data: bytes, source: str = "<session>") -> LoadedFile:
    """Parse the bytes of a session file (see module docstring for how damage is handled)."""
    result = LoadedFile()
    if not data:
        return result
    lines = data.split(b"\n")
    ends_cleanly = lines[-1] == b""
    if ends_cleanly:
        lines.pop()
    offset = 0
    last = len(lines) - 1
    for index, raw in enumerate(lines):
        line_start = offset
        offset += len(raw) + 1
        if not raw.strip():
            continue
        problem: str | None = None
        try:
            value = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            problem = str(exc).split(":")[0]
            value = None
        except RecursionError:  # absurdly deep nesting; json raises this instead of a decode error
            problem, value = "nested too deeply", None
        if problem is None and not (isinstance(value, dict) and isinstance(value.get("type"), str)):
            problem = "not a JSON object with a 'type'"
        # Readers index entry["message"]["role"]; the first line is kept whatever it is, so that
        # load_session_file still refuses (never overwrites) a file that starts without a header.
        if problem is None and result.entries and value["type"] == "message" and not _is_message(value.get("message")):
            problem = "message entry without a message object"
        if problem is None:
            result.entries.append(value)
            continue
        if index == last and not ends_cleanly:
            result.torn_tail_offset = line_start
            result.warnings.append(
                f"{source}:{index + 1}: skipped incomplete last line (the session was interrupted while writing)"
            )
        else:
            result.warnings.append(f"{source}:{index + 1}: skipped corrupt session line ({problem})")
    return result


def load_session_file(path: str | Path) -> LoadedFile:
    """Read a session file. A missing or empty file gives no entries; a file whose first entry is
    not a session header raises :class:`SessionFileError` (we never overwrite such a file)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        return LoadedFile()
    except OSError as exc:
        raise SessionFileError(f"Cannot read session file {p}: {exc.strerror or exc}") from exc
    loaded = parse_session_text(data, str(p))
    if loaded.entries:
        header = loaded.entries[0]
        if header.get("type") != "session" or not isinstance(header.get("id"), str):
            raise SessionFileError(f"Not a pi session file (no session header on its first line): {p}")
    return loaded


def read_header(path: str | Path) -> Entry | None:
    """The header of a session file from its first line only, or None if it has none (cheap)."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(64 * 1024)
        value = json.loads(first)
    except (OSError, ValueError):
        return None
    if isinstance(value, dict) and value.get("type") == "session" and isinstance(value.get("id"), str):
        return value
    return None


# --- writing --------------------------------------------------------------------------------


def dumps_entry(entry: Entry) -> str:
    """One JSON line. ``ensure_ascii=False`` keeps text readable; U+2028/9 stay escaped-safe in JSON."""
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def _jsonl(entries: Iterable[Entry]) -> bytes:
    return "".join(dumps_entry(e) + "\n" for e in entries).encode("utf-8")


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view) :]


class SessionWriter:
    """Appends whole lines to one session file: a single ``write`` per batch, then flush + fsync.

    ``truncate_at`` cuts a torn fragment (from an earlier crash) before the first append.
    """

    __slots__ = ("_fsync", "_truncate_at", "path")

    def __init__(self, path: Path, *, fsync: bool = True, truncate_at: int | None = None) -> None:
        self.path = path
        self._fsync = fsync
        self._truncate_at = truncate_at

    def append(self, entries: Iterable[Entry]) -> None:
        """Write ``entries`` as JSON lines at the end of the file (created 0600 if missing)."""
        payload = _jsonl(entries)
        if not payload:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            if self._truncate_at is not None:
                os.ftruncate(fd, self._truncate_at)
                self._truncate_at = None
            _write_all(fd, payload)
            if self._fsync:
                os.fsync(fd)
        finally:
            os.close(fd)


def rewrite_session_file(path: Path, entries: Iterable[Entry], *, fsync: bool = True) -> None:
    """Replace a file's content atomically (temp file + rename): used after migration and for
    new files that start with copied history, so a crash never leaves half a rewrite."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    payload = _jsonl(entries)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        _write_all(fd, payload)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
