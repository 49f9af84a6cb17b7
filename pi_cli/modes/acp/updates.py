"""Session events → ACP ``session/update`` payloads, for one ACP session.

Text and thinking deltas are coalesced: consecutive deltas of one kind collect in a buffer that is
flushed when another kind of update is due or after :data:`FLUSH_INTERVAL_S`, so a fast stream
costs a few notifications a frame, not one per token. Every other update is sent in event order,
after the buffer, and the sender is awaited (the agent's listener barrier), so a prompt's response
can never overtake its updates.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pi_cli.modes.acp.tool_calls import ToolCallTracker, result_text, text_content

FLUSH_INTERVAL_S = 0.03
Update = dict[str, Any]
Sender = Callable[[Update], Awaitable[None]]

_CHUNK_KINDS = {"text_delta": "agent_message_chunk", "thinking_delta": "agent_thought_chunk"}


def chunk(kind: str, text: str) -> Update:
    """An ``agent_message_chunk`` / ``agent_thought_chunk`` / ``user_message_chunk`` of text."""
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


class UpdateTranslator:
    """Feed it session events with :meth:`on_event`; it sends the ACP updates they mean."""

    def __init__(self, send: Sender, cwd: Path, usage: Callable[[], Update | None]) -> None:
        self._send = send
        self._usage = usage
        self.tools = ToolCallTracker(cwd)
        self._lock = asyncio.Lock()
        self._buffer_kind: str | None = None
        self._buffer: list[str] = []
        self._timer: asyncio.TimerHandle | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self.last_agent_end: dict[str, Any] | None = None

    async def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_update":
            await self._on_message_update(event.get("assistantMessageEvent") or {})
            return
        if kind == "agent_end":
            self.last_agent_end = event
        update = self._translate(event)
        if update is None and kind != "agent_end":
            return
        await self.flush()
        if update is not None:
            await self._emit(update)

    async def _on_message_update(self, inner: dict[str, Any]) -> None:
        delta_kind = _CHUNK_KINDS.get(str(inner.get("type")))
        if delta_kind is not None:
            text = inner.get("delta")
            if isinstance(text, str) and text:
                if self._buffer_kind not in (None, delta_kind):
                    await self.flush()
                self._buffer_kind = delta_kind
                self._buffer.append(text)
                self._arm_timer()
            return
        if inner.get("type") == "toolcall_end":
            call = inner.get("toolCall") or {}
            if isinstance(call.get("id"), str):
                await self.flush()
                fields = self.tools.start_fields(call["id"], str(call.get("name")), call.get("arguments") or {})
                await self._emit({"sessionUpdate": "tool_call", "status": "pending", **fields})

    def _translate(self, event: dict[str, Any]) -> Update | None:
        kind = event.get("type")
        if kind == "tool_execution_start":
            call_id, name, args = event["toolCallId"], str(event["toolName"]), event.get("args") or {}
            self.tools.remember_file(call_id, name, args)
            if call_id in self.tools.announced:
                return {"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": "in_progress"}
            return {
                "sessionUpdate": "tool_call",
                "status": "in_progress",
                **self.tools.start_fields(call_id, name, args),
            }
        if kind == "tool_execution_update":
            text = result_text(event.get("partialResult"))
            if not text:
                return None
            return {
                "sessionUpdate": "tool_call_update",
                "toolCallId": event["toolCallId"],
                "content": [text_content(text)],
            }
        if kind == "tool_execution_end":
            is_error = bool(event.get("isError"))
            content = self.tools.end_content(event["toolCallId"], str(event["toolName"]), event.get("result"), is_error)
            return {
                "sessionUpdate": "tool_call_update",
                "toolCallId": event["toolCallId"],
                "status": "failed" if is_error else "completed",
                "content": content,
            }
        if kind == "message_end" and (event.get("message") or {}).get("role") == "assistant":
            return self._usage()
        if kind == "session_info_changed":
            return {"sessionUpdate": "session_info_update", "title": event.get("name")}
        return None

    def _arm_timer(self) -> None:
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(FLUSH_INTERVAL_S, self._flush_soon)

    def _flush_soon(self) -> None:
        self._timer = None
        task = asyncio.ensure_future(self.flush())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def flush(self) -> None:
        """Send the buffered text (if any) now."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._buffer:
            return
        kind, text = self._buffer_kind, "".join(self._buffer)
        self._buffer_kind, self._buffer = None, []
        assert kind is not None
        await self._emit(chunk(kind, text))

    async def send_now(self, update: Update) -> None:
        """Send an update of the bridge's own (after any buffered text)."""
        await self.flush()
        await self._emit(update)

    async def _emit(self, update: Update) -> None:
        async with self._lock:
            with contextlib.suppress(ConnectionError):  # the client went away: nothing to tell
                await self._send(update)
