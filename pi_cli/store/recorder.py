"""Persist an agent's transcript as it happens: one session entry per finished message.

``SessionRecorder(manager).attach(agent)`` subscribes to the agent's events. At every
``message_end`` the message is appended (and thereby flushed and fsynced once the session file
exists): ``user``/``assistant``/``toolResult`` as ``message`` entries, ``custom`` ones as
``custom_message`` entries. Other roles (``bashExecution``, summaries) are persisted by whoever
creates them (``manager.append_message`` for a ``!cmd`` run; compaction/branch summaries via their
own entries). This is exactly what pi's AgentSession does, so a killed process loses at most the
message that was still streaming.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_cli.store.manager import SessionManager

PERSISTED_ROLES = frozenset({"user", "assistant", "toolResult"})


class SessionRecorder:
    """Appends finished messages from agent events to a :class:`SessionManager`.

    ``manager`` may be swapped (``/new``, ``/resume``, fork) by assigning ``recorder.manager``.
    ``on_error`` receives a one-line message if a write fails (the run goes on; default: ignore).
    """

    __slots__ = ("last_entry_id", "manager", "on_error")

    def __init__(self, manager: SessionManager, on_error: Callable[[str], None] | None = None) -> None:
        self.manager = manager
        self.on_error = on_error
        self.last_entry_id: str | None = None

    def attach(self, agent: Any) -> Callable[[], None]:
        """Subscribe to ``agent`` (anything with ``subscribe(listener) -> unsubscribe``)."""
        unsubscribe: Callable[[], None] = agent.subscribe(self.on_event)
        return unsubscribe

    def on_event(self, event: dict[str, Any], signal: Any = None) -> None:
        """Agent listener (sync on purpose: the append is done before the next event is handled)."""
        if event.get("type") != "message_end":
            return
        message = event.get("message")
        if isinstance(message, dict):
            self.record(message)

    def record(self, message: dict[str, Any]) -> str | None:
        """Persist one finished message; returns the new entry id (None if the role is not ours)."""
        role = message.get("role")
        try:
            if role == "custom":
                self.last_entry_id = self.manager.append_custom_message_entry(
                    str(message.get("customType", "")), message.get("content", ""),
                    bool(message.get("display", True)), message.get("details"),
                )  # fmt: skip
            elif role in PERSISTED_ROLES:
                self.last_entry_id = self.manager.append_message(message)
            else:
                return None
        except OSError as exc:
            if self.on_error is not None:
                self.on_error(f"Could not write session file {self.manager.session_file}: {exc.strerror or exc}")
            return None
        return self.last_entry_id
