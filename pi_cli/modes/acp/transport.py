"""The ACP message transport over this process's stdin and stdout.

Newline-delimited JSON-RPC 2.0, as ACP's stdio transport defines it. Unlike the SDK's own stdio
transport, a line that is not JSON, or not a JSON object, is answered with a JSON-RPC error
(``-32700`` parse error, ``-32600`` invalid request) instead of being dropped silently, and the
process keeps serving. A new file's diff keeps its ``"oldText": null``, which the SDK's
serialisation would drop. Records end at ``\\n`` only (:mod:`pi_cli.modes.rpc.jsonl`), so U+2028 inside
a string is not a line break. Stdout carries protocol messages and nothing else.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pi_cli.modes.rpc.jsonl import JsonlWriter, start_record_reader

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def error_reply(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    """A JSON-RPC error response (``id`` null when the request's id could not be read)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def decode_record(record: bytes) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(message, None)`` for a JSON object line, ``(None, error reply)`` for anything else.
    A blank line yields ``(None, None)``."""
    if not record.strip():
        return None, None
    try:
        obj = json.loads(record)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return None, error_reply(PARSE_ERROR, f"Parse error: {exc}")
    if not isinstance(obj, dict):
        return None, error_reply(INVALID_REQUEST, "Invalid request: expected a JSON object")
    if "method" not in obj and "id" not in obj:
        return None, error_reply(INVALID_REQUEST, "Invalid request: no method or id")
    return obj, None


def _restore_new_file_diffs(message: dict[str, Any]) -> dict[str, Any]:
    """Put back ``"oldText": null`` in the diffs of a ``session/update`` or permission request.

    The SDK serialises outgoing params with ``exclude_none``, which drops a new file's
    ``oldText: None``; pi-acp sends the key (schema: ``string | null``, null for a new file) and
    toad draws no diff without it. Only tool-call ``content`` lists are touched: a tool's raw
    input may hold anything, including objects that look like diffs. Mutates and returns ``message``.
    """
    params = message.get("params")
    if not isinstance(params, dict):
        return message
    for holder in (params.get("update"), params.get("toolCall")):
        content = holder.get("content") if isinstance(holder, dict) else None
        for item in content if isinstance(content, list) else ():
            if isinstance(item, dict) and item.get("type") == "diff":
                item.setdefault("oldText", None)
    return message


class StdioTransport:
    """The SDK's ``Transport`` protocol (``send``/``receive``/``close``) over two descriptors.

    Input is read on a daemon thread (pipes, files and terminals alike) and handed to the event
    loop; ``receive`` returns ``None`` at EOF.
    """

    def __init__(self, in_fd: int, out_fd: int) -> None:
        self._in_fd = in_fd
        self._writer = JsonlWriter(out_fd)
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._started = False
        self._replay: list[dict[str, Any]] = []  # messages read already, to be received again

    def _start(self) -> None:
        start_record_reader(self._in_fd, self._inbox, "acp-stdin")
        self._started = True

    async def send(self, message: dict[str, Any]) -> None:
        self._writer.write(_restore_new_file_diffs(message))

    def push_back(self, message: dict[str, Any]) -> None:
        """Have the next :meth:`receive` return ``message`` again (read before the SDK listened)."""
        self._replay.append(message)

    async def receive(self) -> dict[str, Any] | None:
        if self._replay:
            return self._replay.pop(0)
        if not self._started:
            self._start()
        while True:
            record = await self._inbox.get()
            if record is None:
                return None
            message, reply = decode_record(record)
            if reply is not None:
                self._writer.write(reply)
            if message is not None:
                return message

    async def close(self) -> None:
        self._writer.closed = True
