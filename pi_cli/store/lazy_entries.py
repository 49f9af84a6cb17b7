"""Loading huge session files without holding every entry's body in memory.

A session of tens of megabytes is mostly message bodies (tool output above all) that the current
context no longer needs: everything before the last compaction is only read again for ``/tree``,
export or a fork. :func:`load_slim` scans such a file line by line and keeps, for each long message
line, a *slim* entry: its type, id, parentId and timestamp, a stub ``message`` with the role (and,
for assistant replies, provider and model, which the context needs to restore the model), and the
line's place in the file under :data:`REF`. Short lines and every other entry type are parsed as
usual. :func:`materialize` reads a slim entry's line back when its body is needed.

Damage is handled as :func:`~pi_cli.store.jsonl.parse_session_text` does (a torn last line is
skipped and reported, a corrupt middle line is reported with its number); a slim line that turns
out unreadable later becomes a placeholder message that says so.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from pi_cli.store.jsonl import Entry, LoadedFile, SessionFileError, parse_session_text

REF = "\x00ref"  # (offset, length) of a slim entry's line; never written to disk
SLIM_FILE_BYTES = 8 * 1024 * 1024  # smaller files are parsed whole
SLIM_LINE_BYTES = 2048  # shorter lines are parsed whole

# pi writes these four keys first, in this order (compact JSON; spaces are tolerated).
_HEAD = re.compile(
    rb'\{\s*"type"\s*:\s*"(message|custom_message|branch_summary|custom)"\s*,\s*"id"\s*:\s*"([^"\\]+)"\s*,'
    rb'\s*"parentId"\s*:\s*(null|"[^"\\]*")\s*,\s*"timestamp"\s*:\s*"([^"\\]*)"'
)
_ROLE = re.compile(rb'"role"\s*:\s*"([A-Za-z]+)"')
_VERSION_3 = re.compile(rb'"version"\s*:\s*3\b')


def is_slim(entry: Entry) -> bool:
    return REF in entry


def _slim(body: bytes, offset: int) -> Entry | None:
    head = _HEAD.match(body)
    if head is None or not body.endswith(b"}"):
        return None
    kind = head.group(1).decode()
    parent = head.group(3)
    entry: Entry = {
        "type": kind,
        "id": head.group(2).decode(),
        "parentId": None if parent == b"null" else parent[1:-1].decode(),
        "timestamp": head.group(4).decode(),
        REF: (offset, len(body)),
    }
    if kind == "message":
        role = _ROLE.search(body)
        if role is None:
            return None
        stub: dict[str, Any] = {"role": role.group(1).decode()}
        if stub["role"] == "assistant":  # the context restores the model from the last reply
            try:
                message = json.loads(body).get("message") or {}
            except ValueError:
                return None
            stub.update({k: message[k] for k in ("provider", "model") if k in message})
        entry["message"] = stub
    return entry


def load_slim(path: Path) -> LoadedFile:
    """Like :func:`~pi_cli.store.jsonl.load_session_file`, with long message lines kept slim.
    Falls back to a whole parse for small files and for files of an older format (they migrate)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return LoadedFile()
    except OSError as exc:
        raise SessionFileError(f"Cannot read session file {path}: {exc.strerror or exc}") from exc
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise SessionFileError(f"Cannot read session file {path}: {exc.strerror or exc}") from exc
    with handle:
        first = handle.readline()
        if size < SLIM_FILE_BYTES or _VERSION_3.search(first) is None:
            handle.seek(0)
            return _checked(parse_session_text(handle.read(), str(path)), path)
        result = _checked(parse_session_text(first, str(path)), path)
        offset = len(first)
        for number, raw in enumerate(handle, start=2):
            start, offset = offset, offset + len(raw)
            body = raw[:-1] if raw.endswith(b"\n") else raw
            body = body[:-1] if body.endswith(b"\r") else body
            entry = _slim(body, start) if len(body) >= SLIM_LINE_BYTES and raw.endswith(b"\n") else None
            if entry is None and raw.endswith(b"\n"):
                entry = _parse_plain(body)
            if entry is not None:
                result.entries.append(entry)
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
    return result


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
        note = f"[this entry could not be read back from {path}]"
        placeholder["message"] = {**entry["message"], "content": [{"type": "text", "text": note}]}
    return placeholder
