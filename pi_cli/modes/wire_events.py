"""The JSON/RPC wire form of session events (pi 1.6.0's ``JsonAgentSessionEvent``).

In-process subscribers (TUI, ACP, extensions) get cumulative snapshots: a ``message_update`` carries
the partial ``message`` and ``assistantMessageEvent.partial``. On the wire pi 1.6.0 sends
``message_update`` delta-only, so a long answer costs linear, not quadratic, output:

* ``message`` and ``assistantMessageEvent.partial`` are dropped; a top-level ``usage`` (the partial's
  cumulative usage) takes their place;
* ``toolcall_start`` gains ``id`` and ``toolName`` (read from the partial's block), since the client
  no longer sees the block itself;
* an assistant ``message_start`` carries ``stopReason: "pending"`` (the message is still streaming;
  ``message_end`` has the terminal reason) — unless the message never streamed (an error before
  the first chunk, the closing turn of an abort): then, as in pi 1.6.0, it is already the final
  message, ``stopReason`` and ``errorMessage`` included.

Every other event is passed through unchanged (same object).
"""

from __future__ import annotations

from typing import Any

from pi_cli.ai.types import empty_usage

_FINAL_AT_START = ("error", "aborted")


def to_wire(event: dict[str, Any]) -> dict[str, Any]:
    """Return ``event`` as pi 1.6.0 writes it to JSON/RPC output (a new dict when changed)."""
    kind = event.get("type")
    if kind == "message_update":
        return _update_to_wire(event)
    if kind == "message_start":
        message = event.get("message")
        # A streamed message starts from a partial whose reason is still the initial "stop"; one that
        # arrives whole (never streamed) already ends in "error" or "aborted".
        if (
            isinstance(message, dict)
            and message.get("role") == "assistant"
            and message.get("stopReason") not in _FINAL_AT_START
        ):
            return {**event, "message": {**message, "stopReason": "pending"}}
    return event


def _update_to_wire(event: dict[str, Any]) -> dict[str, Any]:
    inner = event.get("assistantMessageEvent")
    inner = inner if isinstance(inner, dict) else {}
    partial = inner.get("partial")
    if not isinstance(partial, dict):
        message = event.get("message")
        partial = message if isinstance(message, dict) else {}
    wire_inner = {k: v for k, v in inner.items() if k != "partial"}
    if inner.get("type") == "toolcall_start":
        content = partial.get("content") or []
        index = inner.get("contentIndex", 0)
        block = content[index] if isinstance(index, int) and 0 <= index < len(content) else {}
        block = block if isinstance(block, dict) else {}
        wire_inner["id"] = block.get("id", "")
        wire_inner["toolName"] = block.get("name", "")
    usage = partial.get("usage")
    out = {k: v for k, v in event.items() if k not in ("message", "assistantMessageEvent")}
    out["usage"] = usage if isinstance(usage, dict) else empty_usage()
    out["assistantMessageEvent"] = wire_inner
    return out
