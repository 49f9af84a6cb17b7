"""The AgentSession's view of session storage.

With a :class:`~pi_cli.store.manager.SessionManager` every write goes to it (a failed write is
reported once and the session goes on in memory); without one (``--no-session`` embedders, tests)
the session lives in memory: an id (UUIDv7, as pi uses), a header for ``--mode json``'s first
line, and a name. Either way the AgentSession calls the same methods, so persistence is one
object's concern.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.store.manager import SessionManager


def _to_stderr(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def uuid7() -> str:
    """A time-ordered UUID version 7 (48-bit ms timestamp, random rest)."""
    ms = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


def iso_now() -> str:
    """ISO-8601 UTC with milliseconds and ``Z``, as JavaScript's ``toISOString``."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


class SessionStoreBridge:
    """Writes to a SessionManager, or keeps an in-memory session."""

    def __init__(self, manager: SessionManager | None, cwd: Path) -> None:
        self.manager = manager
        self.cwd = cwd
        self._id = uuid7()
        self._timestamp = iso_now()
        self._name: str | None = None
        # Session-file write failures (one line each); ``on_write_error`` shows one (default: stderr).
        self.write_errors: list[str] = []
        self.on_write_error: Callable[[str], None] = _to_stderr

    @property
    def session_id(self) -> str:
        if self.manager is not None and self.manager.session_id:
            return self.manager.session_id
        return self._id

    @property
    def session_file(self) -> str | None:
        if self.manager is None or self.manager.session_file is None:
            return None
        return str(self.manager.session_file)

    @property
    def session_name(self) -> str | None:
        # The manager's entries are the truth: after new_session/switch_session the old name
        # must not linger (pi's get_state has no sessionName for a fresh session).
        return self.manager.session_name if self.manager is not None else self._name

    def header(self) -> dict[str, Any]:
        """The session header line (``--mode json`` prints it first)."""
        if self.manager is not None and self.manager.header:
            return dict(self.manager.header)
        return {
            "type": "session",
            "version": 3,
            "id": self.session_id,
            "timestamp": self._timestamp,
            "cwd": str(self.cwd),
        }

    def write(self, write: Callable[[SessionManager], Any]) -> None:
        """Run one append on the manager with :meth:`_write`'s failure handling."""
        self._write(write)

    def _write(self, write: Callable[[SessionManager], Any]) -> None:
        """An append that must not break the run: a failed write (disk full, permissions) is
        reported once per distinct error and the conversation goes on in memory; the manager keeps
        the unwritten entries and writes them with the next append that succeeds."""
        if self.manager is None:
            return
        try:
            write(self.manager)
        except OSError as exc:
            message = (
                f"Warning: could not write session file {self.session_file}: {exc.strerror or exc}; "
                "continuing in memory"
            )
            if message not in self.write_errors:
                self.write_errors.append(message)
                self.on_write_error(message)

    def append_message(self, message: dict[str, Any]) -> None:
        if message.get("role") == "custom":
            # An extension's custom message is pi's ``custom_message`` entry, not a ``message`` one.
            kind, content, display = message.get("customType", ""), message.get("content"), message.get("display", True)
            details = message.get("details")
            self._write(lambda m: m.append_custom_message_entry(kind, content, bool(display), details))
            return
        self._write(lambda m: m.append_message(message))

    def append_custom_entry(self, custom_type: str, data: Any = None) -> dict[str, Any] | None:
        """An extension's ``custom`` entry (``pi.append_entry``); never sent to the model. Returns
        the entry as stored, None when the session keeps no entries or the write failed."""
        ids: list[str] = []
        self._write(lambda m: ids.append(m.append_custom_entry(custom_type, data)))
        if not ids or self.manager is None:
            return None
        return self.manager.get_entry(ids[0])

    def omit_message(self, message: Any) -> dict[str, Any] | None:
        """Keep a failed attempt in the file but out of the context, as pi 1.6.0 does (auto-retry,
        overflow recovery): a ``context_edit`` entry with ``replacement: null`` on the entry holding
        ``message``. Returns that entry for ``entry_appended``; None when the message is not stored."""
        manager = self.manager
        if manager is None:
            return None
        target = None
        for entry in reversed(manager.get_branch()):
            if entry.get("type") == "message" and (entry.get("message") is message or entry.get("message") == message):
                target = entry.get("id")
                break
        if not isinstance(target, str):
            return None
        ids: list[str] = []
        self._write(lambda m: ids.append(m.append_context_edit(target, None)))
        return manager.get_entry(ids[0]) if ids else None

    def append_label_change(self, target_id: str, label: str | None) -> None:
        """Set (None or empty: clear) the bookmark label of entry ``target_id`` (``pi.set_label``).
        Raises KeyError for an unknown entry; a session without a manager has no entries to label."""
        if self.manager is None:
            raise KeyError(f"Entry {target_id} not found (this session keeps no entries)")
        if self.manager.get_entry(target_id) is None:
            raise KeyError(f"Entry {target_id} not found")
        self._write(lambda m: m.append_label_change(target_id, label))

    def append_model_change(self, provider: str, model_id: str) -> None:
        self._write(lambda m: m.append_model_change(provider, model_id))

    def append_thinking_level_change(self, level: str) -> None:
        self._write(lambda m: m.append_thinking_level_change(level))

    def set_name(self, name: str) -> None:
        self._name = name
        self._write(lambda m: m.append_session_info(name))
