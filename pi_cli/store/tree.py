"""A session's entries as a tree, for ``/tree`` and the RPC ``get_tree`` command."""

from __future__ import annotations

from dataclasses import dataclass, field

from pi_cli.store.jsonl import Entry


@dataclass(slots=True)
class SessionTreeNode:
    """One entry with its children and its bookmark label (if any)."""

    entry: Entry
    children: list[SessionTreeNode] = field(default_factory=list)
    label: str | None = None
    label_timestamp: str | None = None


def build_tree(entries: list[Entry], labels: dict[str, str], label_times: dict[str, str]) -> list[SessionTreeNode]:
    """``entries`` as a forest (normally one root); children sorted oldest first.

    Entries whose parent is missing become roots rather than disappearing; id-less (damaged)
    entries are left out. ``labels``/``label_times`` map entry ids to their current bookmark.
    """
    nodes: dict[str, SessionTreeNode] = {}
    order: list[SessionTreeNode] = []
    for entry in entries:
        if "id" not in entry:
            continue
        node = SessionTreeNode(entry, [], labels.get(entry["id"]), label_times.get(entry["id"]))
        nodes[entry["id"]] = node
        order.append(node)
    roots: list[SessionTreeNode] = []
    for node in order:
        parent_id = node.entry.get("parentId")
        parent = nodes.get(parent_id) if isinstance(parent_id, str) and parent_id != node.entry["id"] else None
        (parent.children if parent is not None else roots).append(node)
    for node in order:
        node.children.sort(key=lambda n: str(n.entry.get("timestamp", "")))
    return roots
