"""What the agent sees of a session: the messages on the path from the root to the leaf.

Bookkeeping entries (model and thinking-level changes, labels, session info) contribute no message
but set the context's model and thinking level; the last compaction on the path replaces everything
before its ``firstKeptEntryId`` with its summary. A ``context_edit`` entry (pi 1.6.0) changes what
its target contributes: ``replacement: null`` omits it (a failed attempt the session retried),
``{"content": ...}`` replaces its content; the latest edit of a target on the path wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_cli.store.entry_messages import branch_summary_message, compaction_summary_message, custom_message
from pi_cli.store.jsonl import Entry


@dataclass(slots=True)
class SessionContext:
    """What :meth:`SessionManager.build_context` resolves for the current leaf.

    ``model`` is ``{"provider", "modelId"}`` of the last model change or assistant reply on the path.
    """

    messages: list[dict[str, Any]]
    thinking_level: str = "off"
    model: dict[str, str] | None = None


def message_from_entry(entry: Entry, *, include_compaction: bool = True) -> dict[str, Any] | None:
    """The agent message an entry contributes to the context, or None for bookkeeping entries."""
    kind = entry.get("type")
    if kind == "message":
        message: dict[str, Any] = entry["message"]
        return message
    if kind == "custom_message":
        return custom_message(
            entry.get("customType", ""), entry.get("content", ""), bool(entry.get("display")),
            entry.get("details"), entry.get("timestamp", ""),
        )  # fmt: skip
    if kind == "branch_summary" and entry.get("summary"):
        return branch_summary_message(entry["summary"], entry.get("fromId", ""), entry.get("timestamp", ""))
    if kind == "compaction" and include_compaction:
        return compaction_summary_message(
            entry.get("summary", ""), int(entry.get("tokensBefore") or 0), entry.get("timestamp", "")
        )
    return None


def context_edits(path: list[Entry]) -> dict[str, Entry]:
    """The latest ``context_edit`` entry on ``path`` for each target id."""
    return {str(e.get("targetId")): e for e in path if e.get("type") == "context_edit"}


def _edited(message: dict[str, Any], replacement: Any) -> dict[str, Any]:
    """pi's ``projectContextEntry``: the message with the replacement's content (a string becomes
    one text block for assistant and tool-result messages)."""
    role = message.get("role")
    if role not in ("user", "assistant", "toolResult", "custom") or not isinstance(replacement, dict):
        return message
    content = replacement.get("content")
    if role in ("assistant", "toolResult") and isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return {**message, "content": content}


def visible_message(entry: Entry, edits: dict[str, Entry]) -> dict[str, Any] | None:
    """What ``entry`` shows in the context after the ``context_edit`` entries ``edits`` (from
    :func:`context_edits`): None for bookkeeping, compactions and omitted entries, the edited copy
    for a replaced one."""
    message = message_from_entry(entry, include_compaction=False)
    edit = edits.get(str(entry.get("id"))) if message is not None else None
    if edit is None or message is None:
        return message
    replacement = edit.get("replacement")
    return None if replacement is None else _edited(message, replacement)


def _last(kinds: list[Any], kind: str) -> int:
    """The index of the last ``kind`` in ``kinds``, or -1."""
    return len(kinds) - 1 - kinds[::-1].index(kind) if kind in kinds else -1


def _model_of(path: list[Entry], kinds: list[Any]) -> dict[str, str] | None:
    """``{"provider", "modelId"}`` of the last model change or assistant reply on ``path``."""
    for index in range(len(path) - 1, -1, -1):
        kind = kinds[index]
        if kind == "model_change":
            entry = path[index]
            return {"provider": entry.get("provider", ""), "modelId": entry.get("modelId", "")}
        if kind == "message" and path[index]["message"].get("role") == "assistant":
            msg = path[index]["message"]
            return {"provider": msg.get("provider", ""), "modelId": msg.get("model", "")}
    return None


def build_session_context(path: list[Entry]) -> SessionContext:
    """Resolve a root → leaf path into context messages, honouring the last compaction on it:
    its summary first, then the kept entries from ``firstKeptEntryId``, then what follows it.
    The thinking level is the last change's, the model the last change's or reply's."""
    # One pass reads each entry's type; the rest are C-level searches over that list (a resumed
    # session's path has tens of thousands of entries, nearly all messages).
    kinds = [entry.get("type") for entry in path]
    ctx = SessionContext(messages=[], model=_model_of(path, kinds))
    thinking = _last(kinds, "thinking_level_change")
    if thinking >= 0:
        ctx.thinking_level = path[thinking].get("thinkingLevel", "off")
    compaction_index = _last(kinds, "compaction")
    edits = context_edits(path) if "context_edit" in kinds else {}
    append = ctx.messages.append

    def emit(start: int, stop: int) -> None:
        for index in range(start, stop):
            kind = kinds[index]
            item = path[index]
            if kind == "message" and not edits:
                append(item["message"])
                continue
            if kind == "compaction":
                continue
            edit = edits.get(str(item.get("id"))) if edits else None
            if edit is not None and edit.get("replacement") is None:
                continue
            message = message_from_entry(item)
            if message is not None:
                append(message if edit is None else _edited(message, edit["replacement"]))

    if compaction_index < 0:
        emit(0, len(path))
        return ctx
    compaction = path[compaction_index]
    summary = message_from_entry(compaction)
    assert summary is not None
    append(summary)
    first_kept = compaction.get("firstKeptEntryId")
    kept_from = next((i for i in range(compaction_index) if path[i].get("id") == first_kept), compaction_index)
    emit(kept_from, compaction_index)
    emit(compaction_index + 1, len(path))
    return ctx
