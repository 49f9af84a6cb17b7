"""The session tree as rows of text, for both front ends' ``/tree`` (no UI toolkit here).

Rows read like pi's: ``user: hello``, ``assistant: …``, ``[bash]: echo x``,
``[compaction: 12k tokens]``. A linear run of entries stays in one column; the branches below a
branch point hang off ``├─``/``└─`` connectors, oldest first. Bookkeeping entries (model and
thinking-level changes, labels, custom state, session names) are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_cli.store.entry_messages import user_text
from pi_cli.store.tree import SessionTreeNode

HIDDEN_TYPES = frozenset({"model_change", "thinking_level_change", "label", "custom", "session_info", "context_edit"})


@dataclass(frozen=True, slots=True)
class TreeRow:
    entry_id: str
    prefix: str  # tree connectors drawn before the bullet
    text: str
    on_path: bool  # on the root → leaf path (the conversation the agent sees)
    label: str | None = None


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe_entry(entry: dict[str, Any]) -> str:
    """pi-style one-line description of an entry (without the bullet)."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message") or {}
        role = message.get("role")
        if role == "user":
            return f"user: {_one_line(user_text(message, ' '))}"
        if role == "assistant":
            content = message.get("content") or []
            text = " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
            calls = [b.get("name", "?") for b in content if isinstance(b, dict) and b.get("type") == "toolCall"]
            if text.strip():
                return f"assistant: {_one_line(text)}"
            if calls:
                return f"assistant: [calls {', '.join(map(str, calls))}]"
            return f"assistant: ({message.get('stopReason', 'empty')})"
        if role == "toolResult":
            return f"[{message.get('toolName', 'tool')}]: {_one_line(user_text(message, ' '), 80)}"
        if role == "bashExecution":
            return f"[bash]: {_one_line(str(message.get('command', '')))}"
        return f"{role}: {_one_line(user_text(message, ' '))}"
    if kind == "compaction":
        return f"[compaction: {int(entry.get('tokensBefore') or 0) // 1000}k tokens]"
    if kind == "branch_summary":
        return f"[branch summary]: {_one_line(str(entry.get('summary', '')), 80)}"
    if kind == "custom_message":
        return f"[{entry.get('customType', 'custom')}]: {_one_line(user_text(entry, ' '))}"
    return f"[{kind}]"


def _branches(children: list[SessionTreeNode], cont: str) -> list[tuple[SessionTreeNode, str, str]]:
    """(child, its first-line prefix, its continuation prefix) below a point with ``cont``."""
    if len(children) == 1:
        return [(children[0], cont, cont)]
    last = len(children) - 1
    return [
        (child, cont + ("└─ " if n == last else "├─ "), cont + ("   " if n == last else "│  "))
        for n, child in enumerate(children)
    ]


def flatten(roots: list[SessionTreeNode], path_ids: set[str]) -> list[TreeRow]:
    """Depth-first rows, oldest branch first, with connectors below each branch point."""
    rows: list[TreeRow] = []
    stack = list(reversed(_branches(roots, "")))
    while stack:
        node, first, cont = stack.pop()
        entry = node.entry
        if entry.get("type") in HIDDEN_TYPES and len(node.children) == 1:
            stack.append((node.children[0], first, cont))  # its connector moves to the next shown row
            continue
        if entry.get("type") not in HIDDEN_TYPES:
            rows.append(TreeRow(entry["id"], first, describe_entry(entry), entry["id"] in path_ids, node.label))
        stack.extend(reversed(_branches(node.children, cont)))
    return rows


def initial_index(rows: list[TreeRow], branch_ids: list[str]) -> int:
    """Row of the leaf, or of its nearest shown ancestor (``branch_ids`` is leaf first)."""
    where = {row.entry_id: n for n, row in enumerate(rows)}
    for entry_id in branch_ids:
        if entry_id in where:
            return where[entry_id]
    return max(0, len(rows) - 1)
