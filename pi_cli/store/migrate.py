"""Bring session files written by older pi versions up to format version 3.

* v1 → v2: v1 files were a flat list. Every entry gets an ``id`` and a ``parentId`` pointing at the
  entry before it (so the list becomes a single-branch tree), and compaction entries trade their
  ``firstKeptEntryIndex`` (an index into the file's lines, header included) for
  ``firstKeptEntryId``.
* v2 → v3: the message role ``hookMessage`` was renamed ``custom``.

A header without ``version`` means v1. Migration mutates the entries in place; the caller rewrites
the file when :func:`migrate_entries` reports a change.
"""

from __future__ import annotations

from pi_cli.store.jsonl import CURRENT_SESSION_VERSION, Entry, new_entry_id


def _v1_to_v2(entries: list[Entry]) -> None:
    taken: set[str] = set()
    previous: str | None = None
    for entry in entries:
        if entry.get("type") == "session":
            entry["version"] = 2
            continue
        entry_id = new_entry_id(taken)
        taken.add(entry_id)
        entry["id"] = entry_id
        entry["parentId"] = previous
        previous = entry_id
    # Resolved in a second pass: a compaction may point forward to an entry without an id yet.
    for entry in entries:
        if entry.get("type") != "compaction" or "firstKeptEntryIndex" not in entry:
            continue
        index = entry.pop("firstKeptEntryIndex")
        if isinstance(index, int) and 0 <= index < len(entries):
            target = entries[index]
            if target.get("type") != "session":
                entry["firstKeptEntryId"] = target["id"]


def _v2_to_v3(entries: list[Entry]) -> None:
    for entry in entries:
        if entry.get("type") == "session":
            entry["version"] = 3
        elif entry.get("type") == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "hookMessage":
                message["role"] = "custom"


def session_version(entries: list[Entry]) -> int:
    """The format version declared by the header (1 when absent)."""
    for entry in entries:
        if entry.get("type") == "session":
            version = entry.get("version")
            return version if isinstance(version, int) else 1
    return 1


def migrate_entries(entries: list[Entry]) -> bool:
    """Upgrade ``entries`` (header included) to the current version in place; True if anything changed."""
    version = session_version(entries)
    if version >= CURRENT_SESSION_VERSION:
        return False
    if version < 2:
        _v1_to_v2(entries)
    if version < 3:
        _v2_to_v3(entries)
    return True
