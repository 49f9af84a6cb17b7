"""Loading huge session files without holding every entry's body in memory.

A session of tens of megabytes is mostly message bodies (tool output above all). :func:`load_slim`
reads such a file once and keeps, for each message line, a *slim* entry: its type, id, parentId
and timestamp, a stub ``message`` with a few facts of the message (see
:mod:`~pi_cli.store.slim.message_index`: role, model, usage, where its JSON text is), and the line's
place in the file under :data:`REF`. Every line is still checked to be well-formed JSON, so damage
is reported when the file is opened, exactly as a whole parse reports it. Long lines of the other
body-carrying types (custom messages, summaries, extension entries) are kept slim the same way;
everything else is parsed as usual. :func:`materialize` reads a slim entry's line back when its
body is needed.

Damage is handled as :func:`~pi_cli.store.jsonl.parse_session_text` does (a torn last line is
skipped and reported, a corrupt middle line is reported with its number); a slim line that turns
out unreadable later (the file changed under us) becomes a placeholder message that says so.
"""

from __future__ import annotations

import gc
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from pi_cli.store.jsonl import Entry, LoadedFile, SessionFileError, parse_session_text
from pi_cli.store.slim import index_cache
from pi_cli.store.slim.message_index import MESSAGE_HEAD, is_json_object, message_facts

REF = "\x00ref"  # (offset, length) of a slim entry's line; never written to disk
SLIM_FILE_BYTES = 8 * 1024 * 1024  # smaller files are parsed whole
SLIM_LINE_BYTES = 2048  # shorter lines of other types than message are parsed whole

# pi writes these four keys first, in this order (compact JSON; spaces are tolerated).
_HEAD = re.compile(
    rb'\{\s*"type"\s*:\s*"(custom_message|branch_summary|custom)"\s*,\s*"id"\s*:\s*"([^"\\]+)"\s*,'
    rb'\s*"parentId"\s*:\s*(null|"[^"\\]*")\s*,\s*"timestamp"\s*:\s*"([^"\\]*)"'
)
_VERSION_3 = re.compile(rb'"version"\s*:\s*3\b')


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: loading builds tens of thousands of plain dicts (no
    cycles), and each collection they trigger walks every live object of the program (a TUI has
    many), which doubled the time to index a 57 MB session."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def is_slim(entry: Entry) -> bool:
    return REF in entry


def _slim_message(raw: bytes, offset: int, previous: str | None) -> Entry | None:
    """A slim message entry for a well-formed line (``raw``: ending ``}\\n``) written the way pi
    writes them, else None. ``previous`` is the id of the entry before (usually the parent: its
    string is shared)."""
    head = MESSAGE_HEAD.match(raw)
    if head is None:
        return None
    start = head.end()
    stub = message_facts(raw[start:-2], offset + start)  # also proves the whole line is JSON
    if stub is None:
        return None
    parent = head.group(3)
    parent_id = None if parent is None else parent.decode()
    return {
        "type": "message",
        "id": head.group(1).decode(),
        "parentId": previous if parent_id == previous else parent_id,
        "timestamp": head.group(4).decode(),
        "message": stub,
        REF: (offset, len(raw) - 1),
    }


def _slim_other(body: bytes, offset: int) -> Entry | None:
    """A slim entry for a long, well-formed custom_message / branch_summary / custom line."""
    head = _HEAD.match(body)
    if head is None or not body.endswith(b"}") or not is_json_object(body):
        return None
    parent = head.group(3)
    return {
        "type": head.group(1).decode(),
        "id": head.group(2).decode(),
        "parentId": None if parent == b"null" else parent[1:-1].decode(),
        "timestamp": head.group(4).decode(),
        REF: (offset, len(body)),
    }


def load_slim(path: Path) -> LoadedFile:
    """Like :func:`~pi_cli.store.jsonl.load_session_file`, with long message lines kept slim.
    Falls back to a whole parse for small files and for files of an older format (they migrate).
    A huge file opened again gives what was found the last time, from
    :mod:`~pi_cli.store.slim.index_cache` (the same entries, warnings and torn tail), plus what
    the lines appended since give."""
    try:
        handle = path.open("rb", buffering=1 << 20)  # line iteration is ~3x faster than with 8 KB
    except FileNotFoundError:
        return LoadedFile()
    except OSError as exc:
        raise SessionFileError(f"Cannot read session file {path}: {exc.strerror or exc}") from exc
    with handle, gc_paused():
        before = os.fstat(handle.fileno())
        found = index_cache.lookup(path, before) if before.st_size >= SLIM_FILE_BYTES else None
        if found is not None and found.size == before.st_size:
            return found.loaded
        if found is not None:  # lines were appended after the indexed part: only they are read
            result, offset, lines = found.loaded, found.size, found.lines
            handle.seek(offset)
            crc_from, crc = found.size, found.crc
        else:
            first = handle.readline()
            if before.st_size < SLIM_FILE_BYTES or _VERSION_3.search(first) is None:
                handle.seek(0)
                return _checked(parse_session_text(handle.read(), str(path)), path)
            result, offset, lines = _checked(parse_session_text(first, str(path)), path), len(first), 1
            crc_from, crc = 0, 0
        # The crc32 an index records, worked out beside the parsing (none when none may be written).
        checksum = index_cache.Checksum(path, crc_from, before.st_size, crc) if index_cache.quiet(before) else None
        lines = _load_lines(handle, path, offset, lines + 1, result)
        crc_now = checksum.value() if checksum is not None else None
        index_cache.store(path, before, os.fstat(handle.fileno()), result, lines, crc_now)
    return result


def _load_lines(handle: BinaryIO, path: Path, offset: int, number: int, result: LoadedFile) -> int:
    """The lines from ``offset`` on into ``result``, the first of them line ``number``; the number
    of the last line read (``number - 1`` when there was none)."""
    previous: str | None = result.entries[-1].get("id") if len(result.entries) > 1 else None
    number -= 1
    for raw in handle:
        number += 1
        start, offset = offset, offset + len(raw)
        entry = _slim_message(raw, start, previous) if raw.endswith(b"}\n") else None
        if entry is None and raw.endswith(b"\n"):
            body = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
            if len(body) >= SLIM_LINE_BYTES:
                entry = _slim_other(body, start)
            if entry is None:
                entry = _parse_plain(body)
        if entry is not None:
            result.entries.append(entry)
            previous = entry.get("id")
            continue
        parsed = parse_session_text(raw, f"{path}:{number}")
        for value in parsed.entries:
            if value.get("type") == "message" and not isinstance((value.get("message") or {}).get("role"), str):
                result.warnings.append(
                    f"{path}:{number}: skipped corrupt session line (message entry without a message object)"
                )
            else:
                result.entries.append(value)
        for warning in parsed.warnings:  # "<path>:<n>:1: ..." → "<path>:<n>: ..."
            result.warnings.append(warning.replace(f"{path}:{number}:1:", f"{path}:{number}:"))
        if parsed.torn_tail_offset is not None:
            result.torn_tail_offset = start
    return number


def _parse_plain(body: bytes) -> Entry | None:
    """A well-formed entry line parsed directly; None sends it to the careful per-line path."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return None
    if value["type"] == "message" and not isinstance((value.get("message") or {}).get("role"), str):
        return None
    return value


def _checked(loaded: LoadedFile, path: Path) -> LoadedFile:
    if loaded.entries:
        header = loaded.entries[0]
        if header.get("type") != "session" or not isinstance(header.get("id"), str):
            raise SessionFileError(f"Not a pi session file (no session header on its first line): {path}")
    return loaded


def materialize(entry: Entry, path: Path | None) -> Entry:
    """The whole entry for a slim one (read from ``path``); other entries are returned as they are."""
    ref = entry.get(REF)
    if ref is None:
        return entry
    offset, length = ref
    try:
        fd = os.open(path, os.O_RDONLY) if path is not None else -1
        try:
            data = os.pread(fd, length, offset)
        finally:
            os.close(fd)
        full = json.loads(data)
        if isinstance(full, dict) and full.get("id") == entry["id"]:
            return full
    except (OSError, ValueError, TypeError):
        pass
    placeholder = {k: v for k, v in entry.items() if k != REF}
    if entry.get("type") == "message":
        placeholder["message"] = unreadable_message(entry["message"], path)
    return placeholder


def unreadable_message(stub: dict[str, Any], path: Path | None) -> dict[str, Any]:
    """What stands in for a message whose text can no longer be read from ``path``."""
    note = f"[this entry could not be read back from {path}]"
    kept = {k: v for k, v in stub.items() if not k.startswith("\x00")}
    return {**kept, "content": [{"type": "text", "text": note}]}
