"""The in-memory side of a session (see :mod:`pi_cli.store.manager`): its entries in file order,
the id → entry index, labels, the leaf pointer, and every read over them — branch walks, the
context the agent sees, the tree, the session name and the fork candidates.

Entries may be slim (see :mod:`pi_cli.store.slim.lazy_entries`): their message bodies stay in the
session file ``source`` until a read needs them. :class:`EntryIndex` never writes to the file: the
:class:`~pi_cli.store.manager.SessionManager` that holds one appends, branches and persists, and
hands each new entry to :meth:`EntryIndex.add` (or a whole new list to :meth:`EntryIndex.reset`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pi_cli.store.context import SessionContext, build_session_context, context_edits
from pi_cli.store.entry_messages import user_text
from pi_cli.store.jsonl import Entry, new_entry_id
from pi_cli.store.slim.lazy_context import LazyMessages
from pi_cli.store.slim.lazy_entries import REF, gc_paused, is_slim, materialize
from pi_cli.store.tree import SessionTreeNode, build_tree


class EntryIndex:
    """A session's entries and the index over them, with every read the session offers.

    ``entries`` are in file order (header excluded; slim ones stay slim until read). The leaf is
    the last indexed entry unless moved (``leaf_id`` may be set to any indexed id, or None);
    ``has_assistant`` says whether any entry is an assistant message (the manager writes nothing
    before one exists).
    """

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.source: Path | None = None  # the file slim entries are read back from
        self.leaf_id: str | None = None
        self.has_assistant = False
        self._by_id: dict[str, Entry] = {}
        self._position: dict[str, int] = {}  # id → index in entries
        self._labels: dict[str, str] = {}
        self._label_times: dict[str, str] = {}

    # --- indexing -----------------------------------------------------------------------

    def reset(self, entries: list[Entry], source: Path | None) -> None:
        """Hold ``entries`` (slim ones read back from ``source``) instead, indexed anew."""
        self.entries = entries
        self.source = source
        self._rebuild_index()

    def add(self, entry: Entry) -> None:
        """Append ``entry``, which becomes the leaf when it has an id."""
        self.entries.append(entry)
        self._index(entry, len(self.entries) - 1)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._by_id

    def new_id(self) -> str:
        """A fresh entry id, unused in this session."""
        return new_entry_id(self._by_id)

    def labels_on(self, kept: set[str]) -> list[tuple[str, str, str | None]]:
        """``(target id, label, time set)`` of the labels on the ``kept`` entries."""
        return [(t, label, self._label_times.get(t)) for t, label in self._labels.items() if t in kept]

    def _rebuild_index(self) -> None:
        self._by_id.clear()
        self._position.clear()
        self._labels.clear()
        self._label_times.clear()
        self.leaf_id = None
        self.has_assistant = False
        for position, entry in enumerate(self.entries):
            self._index(entry, position)

    def _index(self, entry: Entry, position: int) -> None:
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            self._by_id[entry_id] = entry
            self._position[entry_id] = position
            self.leaf_id = entry_id
        kind = entry.get("type")
        if kind == "message" and entry.get("message", {}).get("role") == "assistant":
            self.has_assistant = True
        elif kind == "label":
            target = entry.get("targetId")
            if isinstance(target, str):
                if entry.get("label"):
                    self._labels[target] = entry["label"]
                    self._label_times[target] = entry.get("timestamp", "")
                else:
                    self._labels.pop(target, None)
                    self._label_times.pop(target, None)

    # --- reading ------------------------------------------------------------------------

    def get_entries(self) -> list[Entry]:
        """All entries in file order (header excluded), whole (slim ones are read back)."""
        return [self._full(e) for e in self.entries]

    def get_entry(self, entry_id: str) -> Entry | None:
        entry = self._by_id.get(entry_id)
        return self._full(entry) if entry is not None else None

    def _full(self, entry: Entry) -> Entry:
        """``entry`` whole: a slim entry (see :mod:`lazy_entries`) is read back from the file."""
        return materialize(entry, self.source) if is_slim(entry) else entry

    def _keep_full(self, entry: Entry) -> Entry:
        """Like :meth:`_full`, and the whole entry replaces the slim one in memory (for entries the
        context holds anyway, so they are not read twice)."""
        if not is_slim(entry):
            return entry
        full = self._full(entry)
        entry_id = entry["id"]
        position = self._position.get(entry_id)
        if position is not None and self.entries[position] is entry:
            self.entries[position] = full
            self._by_id[entry_id] = full
        return full

    def get_leaf_id(self) -> str | None:
        return self.leaf_id

    def get_leaf_entry(self) -> Entry | None:
        return self.get_entry(self.leaf_id) if self.leaf_id else None

    def get_children(self, parent_id: str | None) -> list[Entry]:
        return [self._full(e) for e in self.entries if e.get("parentId") == parent_id and "id" in e]

    def get_label(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    def iter_branch(self, from_id: str | None = None) -> Iterator[Entry]:
        """Entries from ``from_id`` (default: the leaf) up to the root, leaf first. Cycle-safe."""
        for entry in self._iter_slim_branch(from_id):
            yield self._full(entry)

    def _iter_slim_branch(self, from_id: str | None = None) -> Iterator[Entry]:
        seen: set[str] = set()
        current = self._by_id.get(from_id or self.leaf_id or "")
        while current is not None and current["id"] not in seen:
            seen.add(current["id"])
            yield current
            parent = current.get("parentId")
            current = self._by_id.get(parent) if isinstance(parent, str) else None

    def get_branch(self, from_id: str | None = None) -> list[Entry]:
        """The root → ``from_id`` (default: leaf) path, every entry type included."""
        path = list(self.iter_branch(from_id))
        path.reverse()
        return path

    def latest_compaction(self) -> Entry | None:
        """The last compaction entry on the current branch (compactions are never slim)."""
        return next((e for e in self._iter_slim_branch() if e.get("type") == "compaction"), None)

    def build_context(self) -> SessionContext:
        """Messages (and model/thinking level) for the current leaf; see :func:`build_session_context`.
        Only entries the context holds are read whole (from the last compaction's kept entry on)."""
        context, _lazy = self._context(lazy=False)
        return context

    def build_lazy_context(self) -> tuple[SessionContext, LazyMessages | None]:
        """Like :meth:`build_context` for resuming: when messages of the context are slim, their
        bodies stay in the file and come back as a :class:`LazyMessages` (the context's
        ``messages`` is then empty); otherwise ``(build_context(), None)``."""
        with gc_paused():
            return self._context(lazy=True)

    def _slim_path(self) -> list[Entry]:
        """The root → leaf path as held (slim entries stay slim)."""
        if self._is_one_chain():
            return list(self.entries)
        by_id = self._by_id
        path: list[Entry] = []
        append = path.append
        current = by_id.get(self.leaf_id or "")
        while current is not None:
            append(current)
            parent = current.get("parentId")
            current = by_id.get(parent) if isinstance(parent, str) else None
            if len(path) > len(by_id):  # a parent cycle (a damaged file): walk again, stopping at it
                path = list(self._iter_slim_branch())
                break
        path.reverse()
        return path

    def _is_one_chain(self) -> bool:
        """Whether the entries in file order are the whole path to the leaf: each has an id of
        its own and the one before it as parent, and the last is the leaf. (Whatever the first
        one's parent, the walk then gives them all: a parent among them closes a cycle, and a
        walk stops at the first entry it meets again.) A session that never branched is one chain
        (pi appends every entry to the leaf); checking that takes a few C-level passes where
        walking 20,000 parents took ~7 ms."""
        entries, by_id = self.entries, self._by_id
        if not entries or len(by_id) != len(entries) or entries[-1].get("id") != self.leaf_id:
            return False
        ids = list(by_id)  # one entry per id: the ids in file order
        return [entry.get("parentId") for entry in entries[1:]] == ids[:-1]

    def _context(self, lazy: bool) -> tuple[SessionContext, LazyMessages | None]:
        if self.leaf_id is None:
            return SessionContext(messages=[]), None
        path = self._slim_path()
        kinds = [entry.get("type") for entry in path]
        start = 0
        if "compaction" in kinds:
            compaction = len(kinds) - 1 - kinds[::-1].index("compaction")
            first_kept = path[compaction].get("firstKeptEntryId")
            start = next((i for i in range(compaction) if path[i].get("id") == first_kept), compaction)
        stubs = False
        # A stub cannot take a replacement's content: entries so edited are read whole.
        edits = context_edits(path) if "context_edit" in kinds else {}
        replaced = {t for t, e in edits.items() if e.get("replacement") is not None}
        defer = lazy and self.source is not None
        for index in range(start, len(path)):
            entry = path[index]
            if REF not in entry:  # whole already
                continue
            if defer and kinds[index] == "message" and entry.get("id") not in replaced:
                stubs = True  # the stub (role, model) is all build_session_context reads of it
                continue
            path[index] = self._keep_full(entry)
        context = build_session_context(path)
        if not stubs or self.source is None:
            return context, None
        messages = LazyMessages(context.messages, self.source, self._adopt_messages)
        context.messages = []
        return context, messages

    def _adopt_messages(self, held: list[dict[str, Any]], decoded: list[dict[str, Any]]) -> None:
        """The context's messages were decoded (the agent's first request): slim entries whose stub
        is among ``held`` become whole entries around the decoded message, so the message exists
        once in memory and later reads of the entry need not decode it again."""
        position = {id(e["message"]): i for i, e in enumerate(self.entries) if REF in e and "message" in e}
        for stub, message in zip(held, decoded, strict=True):
            index = position.get(id(stub))
            if index is None or message is stub:
                continue
            slim = self.entries[index]
            whole = {key: value for key, value in slim.items() if key != REF}
            whole["message"] = message
            self.entries[index] = whole
            self._by_id[whole["id"]] = whole

    def get_tree(self) -> list[SessionTreeNode]:
        """All entries as a forest; see :func:`pi_cli.store.tree.build_tree`."""
        return build_tree(self.get_entries(), self._labels, self._label_times)

    @property
    def session_name(self) -> str | None:
        """The display name from the latest ``session_info`` entry (None when unnamed)."""
        return self.get_session_name()

    def get_session_name(self) -> str | None:
        for entry in reversed(self.entries):  # session_info entries are never slim
            if entry.get("type") == "session_info":
                name = str(entry.get("name") or "").strip()
                return name or None
        return None

    def get_user_messages_for_forking(self) -> list[dict[str, str]]:
        """``[{entryId, text}]`` for every user message (``/fork`` picker, RPC get_fork_messages)."""
        out: list[dict[str, str]] = []
        for slim in self.entries:
            if slim.get("type") != "message" or slim["message"].get("role") != "user":
                continue
            entry = self._full(slim)
            if entry.get("type") == "message":
                text = user_text(entry["message"])
                if text and isinstance(entry.get("id"), str):  # an id-less (damaged) entry cannot be forked
                    out.append({"entryId": entry["id"], "text": text})
        return out
