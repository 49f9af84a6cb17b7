"""The AgentSession's view of session storage.

When a ``SessionManager`` (``pi_cli.store.manager``) is given, every call is forwarded to it
(methods it lacks are skipped). Without one, the session lives in memory: an id (UUIDv7, as pi
uses), a header for ``--mode json``'s first line, and a name. Either way the AgentSession calls
the same methods, so persistence is one object's concern.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


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
    """Forwards to a SessionManager, or keeps an in-memory session."""

    def __init__(self, manager: Any, cwd: Path) -> None:
        self.manager = manager
        self.cwd = cwd
        self._id = uuid7()
        self._timestamp = iso_now()
        self._name: str | None = None
        # Session-file write failures (one line each); ``on_write_error`` shows one (default: stderr).
        self.write_errors: list[str] = []
        self.on_write_error: Callable[[str], None] = _to_stderr

    def _call(self, name: str, *args: Any) -> Any:
        if self.manager is None:
            return None
        method = getattr(self.manager, name, None)
        if method is None:
            return None
        return method(*args)

    @property
    def session_id(self) -> str:
        if self.manager is not None:
            value = getattr(self.manager, "session_id", None)
            if value:
                return str(value)
        return self._id

    @property
    def session_file(self) -> str | None:
        if self.manager is None:
            return None
        value = getattr(self.manager, "session_file", None)
        return str(value) if value else None

    @property
    def session_name(self) -> str | None:
        if self.manager is not None:
            for attr in ("session_name", "name"):
                value = getattr(self.manager, attr, None)
                if callable(value):
                    value = value()
                if isinstance(value, str) and value:
                    return value
            # The manager's entries are the truth: after new_session/switch_session the old name
            # must not linger (pi's get_state has no sessionName for a fresh session).
            return None
        return self._name

    def header(self) -> dict[str, Any]:
        """The session header line (``--mode json`` prints it first)."""
        if self.manager is not None:
            header = getattr(self.manager, "header", None)
            if callable(header):
                header = header()
            if isinstance(header, dict):
                return header
        return {
            "type": "session",
            "version": 3,
            "id": self.session_id,
            "timestamp": self._timestamp,
            "cwd": str(self.cwd),
        }

    def _write(self, name: str, *args: Any) -> None:
        """An append that must not break the run: a failed write (disk full, permissions) is
        reported once per distinct error and the conversation goes on in memory; the manager keeps
        the unwritten entries and writes them with the next append that succeeds."""
        try:
            self._call(name, *args)
        except OSError as exc:
            message = (
                f"Warning: could not write session file {self.session_file}: {exc.strerror or exc}; "
                "continuing in memory"
            )
            if message not in self.write_errors:
                self.write_errors.append(message)
                self.on_write_error(message)

    def append_message(self, message: dict[str, Any]) -> None:
        if message.get("role") == "custom" and getattr(self.manager, "append_custom_message_entry", None):
            # An extension's custom message is pi's ``custom_message`` entry, not a ``message`` one.
            fields = (message.get("customType", ""), message.get("content"), bool(message.get("display", True)))
            self._write("append_custom_message_entry", *fields, message.get("details"))
            return
        self._write("append_message", message)

    def append_custom_entry(self, custom_type: str, data: Any = None) -> None:
        """An extension's ``custom`` entry (``pi.append_entry``); never sent to the model."""
        self._write("append_custom_entry", custom_type, data)

    def append_model_change(self, provider: str, model_id: str) -> None:
        self._write("append_model_change", provider, model_id)

    def append_thinking_level_change(self, level: str) -> None:
        self._write("append_thinking_level_change", level)

    def set_name(self, name: str) -> None:
        self._name = name
        self._write("append_session_info", name)

    def build_context(self) -> list[dict[str, Any]]:
        messages = self._call("build_context")
        if isinstance(messages, list):
            return messages
        if isinstance(messages, dict) and isinstance(messages.get("messages"), list):
            return list(messages["messages"])
        return []
