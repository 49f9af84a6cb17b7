"""Replaying a loaded session to the client as ACP updates (``session/load``).

User text → ``user_message_chunk``; assistant text and thinking → message and thought chunks; each
tool call → one ``tool_call`` already in its final state, with its result's text. Messages of
other roles (user bash runs, summaries, extension messages) have no ACP form and are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pi_cli.modes.acp.tool_calls import result_text, text_content, tool_kind, tool_locations, tool_title
from pi_cli.modes.acp.updates import Update, chunk


def _user_updates(message: dict[str, Any]) -> Iterator[Update]:
    content = message.get("content")
    if isinstance(content, str):
        if content:
            yield chunk("user_message_chunk", content)
        return
    for block in content or []:
        if block.get("type") == "text" and block.get("text"):
            yield chunk("user_message_chunk", block["text"])
        elif block.get("type") == "image":
            image = {"type": "image", "data": block.get("data", ""), "mimeType": block.get("mimeType", "image/png")}
            yield {"sessionUpdate": "user_message_chunk", "content": image}


def replay_updates(messages: list[dict[str, Any]], cwd: Path) -> Iterator[Update]:
    """The updates that show ``messages`` (a session's context) in a client that never saw them."""
    results = {m.get("toolCallId"): m for m in messages if m.get("role") == "toolResult"}
    for message in messages:
        role = message.get("role")
        if role == "user":
            yield from _user_updates(message)
        elif role == "assistant":
            for block in message.get("content") or []:
                kind = block.get("type")
                if kind == "text" and block.get("text"):
                    yield chunk("agent_message_chunk", block["text"])
                elif kind == "thinking" and block.get("thinking"):
                    yield chunk("agent_thought_chunk", block["thinking"])
                elif kind == "toolCall":
                    yield _finished_call(block, results.get(block.get("id")), cwd)


def _finished_call(call: dict[str, Any], result: dict[str, Any] | None, cwd: Path) -> Update:
    name, args = str(call.get("name")), call.get("arguments") or {}
    text = result_text(result) if result is not None else ""
    failed = result is None or bool(result.get("isError"))
    return {
        "sessionUpdate": "tool_call",
        "toolCallId": str(call.get("id")),
        "title": tool_title(name, args),
        "kind": tool_kind(name),
        "status": "failed" if failed else "completed",
        "rawInput": args,
        "locations": tool_locations(name, args, cwd),
        "content": [text_content(text)] if text else [],
    }
