"""Strict JSON Lines framing, as pi's RPC mode does it.

Output: ``json.dumps(obj) + "\\n"``, compact, UTF-8, non-ASCII kept (U+2028/U+2029 stay raw
inside strings, exactly like ``JSON.stringify``). Input: records end at ``\\n`` only, one trailing
``\\r`` is stripped; U+2028, U+2029, ``\\r`` alone and other Unicode line breaks are ordinary
characters. (``str.splitlines`` would break on them, which is why this module exists.)
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Iterator
from typing import Any, Protocol


class _Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


def _default(value: Any) -> Any:
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_default)


def serialize_json_line(obj: Any) -> bytes:
    """One JSONL record as bytes, newline included."""
    return (_ENCODER.encode(obj) + "\n").encode("utf-8", errors="surrogatepass")


def split_records(buffer: bytes) -> tuple[list[bytes], bytes]:
    """Complete records in ``buffer`` (``\\r`` before ``\\n`` stripped) and the unfinished rest."""
    parts = buffer.split(b"\n")
    rest = parts.pop()
    return [p[:-1] if p.endswith(b"\r") else p for p in parts], rest


def iter_records(stream: _Readable, chunk_size: int = 65536) -> Iterator[bytes]:
    """Records of a binary stream; a final record without ``\\n`` is yielded at EOF."""
    pending = b""
    while True:
        read1 = getattr(stream, "read1", None)
        chunk = read1(chunk_size) if read1 is not None else stream.read(chunk_size)
        if not chunk:
            break
        records, pending = split_records(pending + chunk)
        yield from records
    if pending:
        yield pending[:-1] if pending.endswith(b"\r") else pending


class JsonlWriter:
    """Writes records straight to a file descriptor (stdout by default), unbuffered and whole."""

    __slots__ = ("_fd", "closed")

    def __init__(self, fd: int | None = None) -> None:
        self._fd = sys.stdout.fileno() if fd is None else fd
        self.closed = False

    def write(self, obj: Any) -> None:
        self.write_bytes(serialize_json_line(obj))

    def write_bytes(self, data: bytes) -> None:
        if self.closed:
            return
        view = memoryview(data)
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        except BrokenPipeError:
            # The reader went away; stop writing rather than die with a traceback.
            self.closed = True
        except BlockingIOError:  # pragma: no cover - stdout is blocking in practice
            import select

            select.select([], [self._fd], [])
            self.write_bytes(bytes(view))
