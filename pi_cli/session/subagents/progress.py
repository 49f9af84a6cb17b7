"""What one child of a ``subagent`` call is doing, kept up to date from its session's events.

:class:`ChildProgress` listens to the child session (``session.subscribe(progress.on_event)``)
and holds what the parent's partial results and final ``details`` report for it, in
pi-subagents' shape (``usage`` with ``input``/``output``/``cacheRead``/``cacheWrite``/``cost``/
``contextTokens``/``turns``) plus pi_cli's live fields::

    {"agent", "agentSource", "label", "task", "cwd", "status", "model", "currentTool":
     {"name", "summary"} | null, "lastLine", "turns", "toolCalls", "usage", "startedAt",
     "elapsedMs", "sessionFile", "stopReason"?, "error"?}

``status`` is queued → running → done | error | aborted. The listener is cheap on the hot path:
a text delta only appends to a short tail; the last line is cut from it when a snapshot is taken.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_cli.session.subagents.display import tool_summary
from pi_cli.store.stats import TOKEN_KEYS

if TYPE_CHECKING:
    from pi_cli.resources.agents import AgentDefinition
    from pi_cli.session.subagents.host import SessionLike

_TAIL_CHARS = 400  # enough text to hold the last line of a paragraph


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(slots=True)
class ChildProgress:
    """One child's state (see the module docstring for its JSON)."""

    agent: AgentDefinition
    label: str
    task: str
    cwd: str
    status: str = "queued"
    model: str | None = None
    started_ms: int | None = None
    ended_ms: int | None = None
    turns: int = 0
    tool_calls: int = 0
    usage: dict[str, float] = field(default_factory=lambda: {**dict.fromkeys(TOKEN_KEYS, 0), "cost": 0.0})
    context_tokens: int = 0
    session_file: str | None = None
    stop_reason: str | None = None
    error: str | None = None
    answer: str = ""
    _running: dict[str, tuple[str, str]] = field(default_factory=dict)  # toolCallId → (name, summary)
    _tail: str = ""
    _fresh_message: bool = True  # the next text delta starts a new assistant message

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        self.status = "running"
        self.started_ms = _now_ms()

    def fail(self, error: str) -> None:
        """The child could not be built or its prompt was refused (one line)."""
        if self.started_ms is None:
            self.started_ms = _now_ms()
        self.status, self.error, self.ended_ms = "error", error, _now_ms()

    def skip(self) -> None:
        """Aborted before it started."""
        self.status, self.ended_ms = "aborted", _now_ms()

    def attach(self, session: SessionLike) -> None:
        """The child session exists: its model and file are known."""
        model = session.model
        self.model = f"{model['provider']}/{model['id']}" if model is not None else None
        self.session_file = session.session_file

    def finish(self, session: SessionLike, aborted: bool) -> None:
        """The child's run is over: its answer, final usage (its own children included, as its
        statistics roll them up) and status."""
        self.ended_ms = _now_ms()
        self._running.clear()
        stats = session.get_session_stats()
        tokens = stats.get("tokens") or {}
        for key in TOKEN_KEYS:
            self.usage[key] = int(tokens.get(key) or 0)
        self.usage["cost"] = float(stats.get("cost") or 0.0)
        self.session_file = session.session_file
        self.answer = session.get_last_assistant_text() or (self._tail.strip() if aborted else "")
        last = next((m for m in reversed(session.messages) if m.get("role") == "assistant"), None)
        self.stop_reason = str(last.get("stopReason")) if last is not None else None
        if self.status == "error":
            return
        if aborted or self.stop_reason == "aborted":
            self.status = "aborted"
        elif self.stop_reason == "error":
            self.status = "error"
            self.error = str((last or {}).get("errorMessage") or "the model returned an error")
        else:
            self.status = "done"

    # -- the child's events ------------------------------------------------------------------

    def on_event(self, event: dict[str, Any]) -> bool:
        """Take one child-session event; True when it changed what a snapshot shows."""
        kind = event.get("type")
        if kind == "message_update":
            inner = event.get("assistantMessageEvent") or {}
            if inner.get("type") != "text_delta":
                return False
            if self._fresh_message:
                self._tail, self._fresh_message = "", False
            self._tail = (self._tail + str(inner.get("delta") or ""))[-_TAIL_CHARS:]
            return True
        if kind == "message_end":
            message = event.get("message") or {}
            if message.get("role") != "assistant":
                return False
            self._fresh_message = True
            self.turns += 1
            usage = message.get("usage") or {}
            for key in TOKEN_KEYS:
                self.usage[key] += int(usage.get(key) or 0)
            self.usage["cost"] += float((usage.get("cost") or {}).get("total") or 0.0)
            self.context_tokens = int(usage.get("totalTokens") or 0) or self.context_tokens
            return True
        if kind == "tool_execution_start":
            args = event.get("args")
            name = str(event.get("toolName"))
            summary = tool_summary(name, args if isinstance(args, dict) else {})
            self._running[str(event.get("toolCallId"))] = (name, summary)
            return True
        if kind == "tool_execution_end":
            self._running.pop(str(event.get("toolCallId")), None)
            self.tool_calls += 1
            return True
        return False

    # -- snapshots ---------------------------------------------------------------------------

    @property
    def last_line(self) -> str:
        lines = [line.strip() for line in self._tail.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def to_json(self, now_ms: int | None = None) -> dict[str, Any]:
        """The child's entry in ``details.results`` (see the module docstring)."""
        now = now_ms if now_ms is not None else _now_ms()
        started = self.started_ms
        elapsed = 0 if started is None else (self.ended_ms or now) - started
        current = list(self._running.values())[-1] if self._running else None
        out: dict[str, Any] = {
            "agent": self.agent.name,
            "agentSource": self.agent.source,
            "label": self.label,
            "task": self.task,
            "cwd": self.cwd,
            "status": self.status,
            "model": self.model,
            "currentTool": {"name": current[0], "summary": current[1]} if current else None,
            "lastLine": self.last_line,
            "turns": self.turns,
            "toolCalls": self.tool_calls,
            "usage": {**self.usage, "contextTokens": self.context_tokens, "turns": self.turns},
            "startedAt": started,
            "elapsedMs": elapsed,
            "sessionFile": self.session_file,
        }
        if self.stop_reason is not None:
            out["stopReason"] = self.stop_reason
        if self.error is not None:
            out["error"] = self.error
        return out
