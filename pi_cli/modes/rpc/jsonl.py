"""Strict JSON Lines framing, as pi's RPC mode does it.

Output: ``json.dumps(obj) + "\\n"``, compact, UTF-8, non-ASCII kept (U+2028/U+2029 stay raw
inside strings, exactly like ``JSON.stringify``). Input: records end at ``\\n`` only, one trailing
``\\r`` is stripped; U+2028, U+2029, ``\\r`` alone and other Unicode line breaks are ordinary
characters. (``str.splitlines`` would break on them, which is why this module exists.)
:func:`start_record_reader` feeds a descriptor's records to an event loop (RPC and ACP stdin).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
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


class JsonChunks(Protocol):
    """A sequence that can give its JSON array's body itself (e.g. copied from a session file):
    ``json_chunks`` yields pieces whose concatenation is the items' JSON texts separated by commas
    (no brackets); ``encode`` gives the text of an item it cannot copy."""

    def __iter__(self) -> Iterator[Any]: ...
    def json_chunks(self, encode: Callable[[Any], bytes]) -> Iterator[bytes | memoryview]: ...


_SPLICE = "\x00pi-json-chunks\x00"  # stands for a JsonChunks value while the rest is encoded
_SPLICE_JSON = json.dumps(_SPLICE)


def _encode_item(value: Any) -> bytes:
    return _ENCODER.encode(value).encode("utf-8", errors="surrogatepass")


def serialize_json_parts(obj: Any) -> Iterator[bytes | memoryview]:
    """Like :func:`serialize_json_line`, in pieces: a :class:`JsonChunks` value inside ``obj`` is
    written as a JSON array of the pieces it gives, never built as one string (a 57 MB
    ``get_messages`` answer is copied out of the session file a few megabytes at a time)."""
    spliced: list[JsonChunks] = []

    def default(value: Any) -> Any:
        if callable(getattr(value, "json_chunks", None)):
            spliced.append(value)
            return _SPLICE
        return _default(value)

    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=default)
    text = encoder.encode(obj) + "\n"
    pieces = text.split(_SPLICE_JSON)
    if not spliced or len(pieces) != len(spliced) + 1:  # none, or a string that looks like the marker
        yield serialize_json_line(_materialized(obj)) if spliced else text.encode("utf-8", errors="surrogatepass")
        return
    for piece, value in zip(pieces, [*spliced, None], strict=True):
        yield piece.encode("utf-8", errors="surrogatepass")
        if value is not None:
            yield b"["
            yield from value.json_chunks(_encode_item)
            yield b"]"


def _materialized(value: Any) -> Any:
    if callable(getattr(value, "json_chunks", None)):
        return list(value)
    if isinstance(value, dict):
        return {k: _materialized(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_materialized(v) for v in value]
    return value


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


class _FdReader:
    """The minimal binary-stream surface :func:`iter_records` needs, over a raw descriptor."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def read(self, size: int) -> bytes:
        return os.read(self._fd, size)


def start_record_reader(fd: int, queue: asyncio.Queue[bytes | None], name: str) -> None:
    """Read ``fd``'s records on a daemon thread (named ``name``) and put each on ``queue`` in the
    running loop; ``None`` follows the last one (EOF or a read error). Works for pipes, files and
    terminals alike. Raw descriptor reads: a daemon thread blocked inside ``sys.stdin.buffer``
    would hold its lock and make interpreter shutdown abort ("could not acquire lock")."""
    loop = asyncio.get_running_loop()

    def pump() -> None:
        try:
            for record in iter_records(_FdReader(fd)):
                loop.call_soon_threadsafe(queue.put_nowait, record)
        except (OSError, ValueError):
            pass
        finally:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, None)
            except RuntimeError:  # the loop is already closed
                pass

    threading.Thread(target=pump, name=name, daemon=True).start()


_CHUNK = 1 << 20  # bytes per write of a big record (the most an unprivileged pipe can hold)


class JsonlWriter:
    """Writes records straight to a file descriptor (stdout by default), unbuffered and whole."""

    __slots__ = ("_fd", "_widened", "closed")

    def __init__(self, fd: int | None = None) -> None:
        self._fd = sys.stdout.fileno() if fd is None else fd
        self._widened = False
        self.closed = False

    def write(self, obj: Any) -> None:
        """One record, whole; a record with :class:`JsonChunks` in it goes out in writes of ~1 MB
        or more (a piece that big is written as it is, not copied into a bigger one)."""
        pending: list[bytes | memoryview] = []
        size = 0
        for part in serialize_json_parts(obj):
            if len(part) >= _CHUNK:
                self._widen_pipe()
                if pending:
                    self.write_bytes(b"".join(pending))
                    pending, size = [], 0
                self.write_bytes(part)
                continue
            pending.append(part)
            size += len(part)
            if size >= _CHUNK:
                self._widen_pipe()
                self.write_bytes(b"".join(pending))
                pending, size = [], 0
        if pending:
            self.write_bytes(pending[0] if len(pending) == 1 else b"".join(pending))

    def _widen_pipe(self) -> None:
        """Once, before the first chunk of a record of megabytes: a pipe holds 64 kB by default,
        so each chunk's write waited for the reader to drain nearly all of it, and the reader then
        waited while the next chunk was gathered (a 57 MB ``get_messages`` took ~0.2 s instead of
        ~0.15 s to cross). A pipe of one chunk lets the two overlap. Not a pipe, not Linux, or
        not allowed: nothing changes."""
        if self._widened:
            return
        self._widened = True
        get_size, set_size = getattr(fcntl, "F_GETPIPE_SZ", None), getattr(fcntl, "F_SETPIPE_SZ", None)
        if get_size is not None and set_size is not None:
            with contextlib.suppress(OSError):
                if fcntl.fcntl(self._fd, get_size) < _CHUNK:
                    fcntl.fcntl(self._fd, set_size, _CHUNK)

    def write_bytes(self, data: bytes | memoryview) -> None:
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
