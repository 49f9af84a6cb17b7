"""A session as an append-only tree of entries, persisted as pi's JSONL (see :mod:`store`).

Every entry has an ``id`` and a ``parentId``; appending makes the new entry a child of the current
leaf and moves the leaf to it. On load the leaf is the last entry of the file. :meth:`branch` moves
the leaf back to an earlier entry, so the next append starts a sibling branch in the same file.
:meth:`build_context` walks leaf → root and returns the messages the agent should see, replacing
everything before a compaction by its summary.

Persistence follows pi: nothing touches the disk until the session holds an assistant message
(so sessions that never got an answer leave no file); then the header and all buffered entries are
written at once, and each later entry is appended (flushed and fsynced) as soon as it is added.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pi_cli.store.context import SessionContext, build_session_context, message_from_entry
from pi_cli.store.entry_messages import user_text
from pi_cli.store.jsonl import (
    CURRENT_SESSION_VERSION,
    Entry,
    SessionFileError,
    SessionWriter,
    default_session_dir,
    file_name_for,
    iso_now,
    load_session_file,
    new_entry_id,
    new_session_id,
    read_header,
    rewrite_session_file,
)
from pi_cli.store.lazy_context import LazyMessages
from pi_cli.store.lazy_entries import REF, gc_paused, is_slim, load_slim, materialize
from pi_cli.store.migrate import migrate_entries
from pi_cli.store.stats import session_stats
from pi_cli.store.tree import SessionTreeNode, build_tree

__all__ = [
    "SessionContext",
    "SessionManager",
    "SessionTreeNode",
    "build_session_context",
    "find_most_recent_session",
    "message_from_entry",
]


class SessionManager:
    """One session: its entries, the leaf pointer, and (when persisted) its file.

    Build with :meth:`create`, :meth:`open`, :meth:`continue_recent`, :meth:`in_memory` or
    :meth:`fork_from`. ``warnings`` lists lines skipped while loading (shown to the user by callers).
    """

    def __init__(
        self,
        cwd: str | Path,
        session_dir: Path | None,
        session_file: Path | None,
        persist: bool,
        *,
        fsync: bool = True,
    ) -> None:
        self.cwd = str(cwd)
        self.session_dir = session_dir
        self.persist = persist
        self.fsync = fsync
        self.warnings: list[str] = []
        self.session_file: Path | None = None
        self.session_id = ""
        self.header: Entry = {}
        self._entries: list[Entry] = []
        self._by_id: dict[str, Entry] = {}
        self._position: dict[str, int] = {}  # id → index in _entries
        self._source: Path | None = None  # the file slim entries are read back from
        self._labels: dict[str, str] = {}
        self._label_times: dict[str, str] = {}
        self.leaf_id: str | None = None
        # How much is on disk: the header, and the first ``_written`` entries of ``_entries``.
        self._header_written = False
        self._written = 0
        self._has_assistant = False
        self._writer: SessionWriter | None = None
        if session_file is not None:
            self.set_session_file(session_file)
        else:
            self.new_session()

    # --- construction -------------------------------------------------------------------

    @classmethod
    def create(cls, cwd: str | Path, session_dir: str | Path | None = None, *, fsync: bool = True) -> SessionManager:
        """A new, empty session whose file will appear in ``session_dir`` (default: per-cwd dir)."""
        directory = Path(session_dir) if session_dir else default_session_dir(cwd)
        return cls(cwd, directory, None, True, fsync=fsync)

    @classmethod
    def open(
        cls, path: str | Path, session_dir: str | Path | None = None, cwd_override: str | None = None,
        *, fsync: bool = True,
    ) -> SessionManager:  # fmt: skip
        """Open a session file (created on first assistant reply if it does not exist yet).
        The cwd comes from the file's header unless overridden; raises :class:`SessionFileError`."""
        file = Path(path).expanduser().resolve()
        cwd = cwd_override
        if cwd is None:
            header = read_header(file)
            cwd = str(header["cwd"]) if header and isinstance(header.get("cwd"), str) else os.getcwd()
        directory = Path(session_dir) if session_dir else file.parent
        return cls(cwd, directory, file, True, fsync=fsync)

    @classmethod
    def continue_recent(cls, cwd: str | Path, session_dir: str | Path | None = None) -> SessionManager:
        """The most recently modified session of this dir (``-c``), or a new one if there is none."""
        directory = Path(session_dir) if session_dir else default_session_dir(cwd)
        recent = find_most_recent_session(directory)
        return cls(cwd, directory, recent, True)

    @classmethod
    def in_memory(cls, cwd: str | Path | None = None) -> SessionManager:
        """A session that is never written (``--no-session``)."""
        return cls(cwd or os.getcwd(), None, None, False)

    @classmethod
    def fork_from(
        cls, source: str | Path, target_cwd: str | Path, session_dir: str | Path | None = None
    ) -> SessionManager:
        """Copy every entry of ``source`` into a new file of ``target_cwd`` (``--fork``); the new
        header's ``parentSession`` is the source path."""
        src = Path(source).expanduser()
        loaded = load_session_file(src)
        if not loaded.entries:
            raise SessionFileError(f"Cannot fork: source session file is empty or invalid: {src}")
        migrate_entries(loaded.entries)
        directory = Path(session_dir) if session_dir else default_session_dir(target_cwd)
        header = _new_header(new_session_id(), str(target_cwd), str(src))
        target = directory / file_name_for(header["timestamp"], header["id"])
        rewrite_session_file(target, [header, *loaded.entries[1:]])
        manager = cls(target_cwd, directory, target, True)
        manager.warnings = loaded.warnings + manager.warnings
        return manager

    def set_session_file(self, path: Path) -> None:
        """Load ``path`` (migrating old formats, rewriting the file if it was migrated)."""
        self.session_file = Path(path)
        loaded = load_slim(self.session_file)  # huge files: long message lines stay on disk
        self._source = self.session_file
        self.warnings = list(loaded.warnings)
        if not loaded.entries:
            explicit = self.session_file
            exists = explicit.exists()
            self.new_session()
            self.session_file = explicit
            if exists and self.persist:
                # An empty file: give it a header now so nothing is ever appended headerless.
                rewrite_session_file(explicit, [self.header], fsync=self.fsync)
                self._attach_writer(explicit)
            return
        self.header = loaded.entries[0]
        self.session_id = str(self.header["id"])
        migrated = migrate_entries(loaded.entries)
        self._entries = loaded.entries[1:]
        truncate_at = loaded.torn_tail_offset
        if migrated and self.persist:
            rewrite_session_file(self.session_file, loaded.entries, fsync=self.fsync)
            truncate_at = None
        with gc_paused():
            self._rebuild_index()
        self._attach_writer(self.session_file, truncate_at)

    def new_session(self, parent_session: str | None = None, session_id: str | None = None) -> Path | None:
        """Start over with an empty session (``/new``); returns the future file path."""
        self.session_id = session_id or new_session_id()
        self.header = _new_header(self.session_id, self.cwd, parent_session)
        self._entries = []
        self._source = None
        self._rebuild_index()
        self._header_written = False
        self._written = 0
        self._writer = None
        if self.persist and self.session_dir is not None:
            self.session_file = self.session_dir / file_name_for(self.header["timestamp"], self.session_id)
        return self.session_file

    def _rebuild_index(self) -> None:
        self._by_id.clear()
        self._position.clear()
        self._labels.clear()
        self._label_times.clear()
        self.leaf_id = None
        self._has_assistant = False
        for position, entry in enumerate(self._entries):
            self._index(entry, position)

    def _index(self, entry: Entry, position: int) -> None:
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            self._by_id[entry_id] = entry
            self._position[entry_id] = position
            self.leaf_id = entry_id
        kind = entry.get("type")
        if kind == "message" and entry.get("message", {}).get("role") == "assistant":
            self._has_assistant = True
        elif kind == "label":
            target = entry.get("targetId")
            if isinstance(target, str):
                if entry.get("label"):
                    self._labels[target] = entry["label"]
                    self._label_times[target] = entry.get("timestamp", "")
                else:
                    self._labels.pop(target, None)
                    self._label_times.pop(target, None)

    # --- persistence --------------------------------------------------------------------

    def _attach_writer(self, file: Path, truncate_at: int | None = None) -> None:
        """After ``file`` was found or written whole: the header and every entry are on disk.

        ``truncate_at`` cuts a torn last line off before the next append.
        """
        self._header_written = True
        self._written = len(self._entries)
        self._writer = SessionWriter(file, fsync=self.fsync, truncate_at=truncate_at)

    def _persist(self) -> None:
        if not self.persist or self.session_file is None or not self._has_assistant:
            return
        if self._writer is None:
            self._writer = SessionWriter(self.session_file, fsync=self.fsync)
        pending = self._entries[self._written :]
        self._writer.append([self.header, *pending] if not self._header_written else pending)
        self._header_written = True
        self._written = len(self._entries)

    def _append(self, kind: str, fields: dict[str, Any], parent_id: str | bool | None = False) -> str:
        entry: Entry = {
            "type": kind,
            "id": new_entry_id(self._by_id),
            "parentId": self.leaf_id if parent_id is False else parent_id,
            "timestamp": iso_now(),
        }
        entry.update({k: v for k, v in fields.items() if v is not None})
        self._entries.append(entry)
        self._index(entry, len(self._entries) - 1)
        self._persist()
        return str(entry["id"])

    # --- appending ----------------------------------------------------------------------

    def append_message(self, message: dict[str, Any]) -> str:
        """Append a user/assistant/toolResult/bashExecution/custom message; returns the entry id.
        Summaries are not messages: use :meth:`append_compaction` / :meth:`branch_with_summary`."""
        return self._append("message", {"message": message})

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self._append("model_change", {"provider": provider, "modelId": model_id})

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append("thinking_level_change", {"thinkingLevel": thinking_level})

    def append_compaction(
        self, summary: str, first_kept_entry_id: str, tokens_before: int,
        details: Any = None, from_hook: bool | None = None,
    ) -> str:  # fmt: skip
        return self._append(
            "compaction",
            {
                "summary": summary,
                "firstKeptEntryId": first_kept_entry_id,
                "tokensBefore": tokens_before,
                "details": details,
                "fromHook": from_hook,
            },
        )

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        """Extension state that is stored but never sent to the model."""
        return self._append("custom", {"customType": custom_type, "data": data})

    def append_custom_message_entry(self, custom_type: str, content: Any, display: bool, details: Any = None) -> str:
        """A custom message that takes part in the context (as a user message)."""
        fields = {"customType": custom_type, "content": content, "display": display, "details": details}
        return self._append("custom_message", fields)

    def append_session_info(self, name: str) -> str:
        """Set the display name (``/name``); an empty name clears it."""
        return self._append("session_info", {"name": name.strip()})

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Set (or, with None/empty, clear) a bookmark label on an entry."""
        if target_id not in self._by_id:
            raise KeyError(f"Entry {target_id} not found")
        return self._append("label", {"targetId": target_id, "label": label or None})

    # --- reading ------------------------------------------------------------------------

    def get_header(self) -> Entry:
        return self.header

    def get_entries(self) -> list[Entry]:
        """All entries in file order (header excluded), whole (slim ones are read back)."""
        return [self._full(e) for e in self._entries]

    def get_entry(self, entry_id: str) -> Entry | None:
        entry = self._by_id.get(entry_id)
        return self._full(entry) if entry is not None else None

    def _full(self, entry: Entry) -> Entry:
        """``entry`` whole: a slim entry (see :mod:`lazy_entries`) is read back from the file."""
        return materialize(entry, self._source) if is_slim(entry) else entry

    def _keep_full(self, entry: Entry) -> Entry:
        """Like :meth:`_full`, and the whole entry replaces the slim one in memory (for entries the
        context holds anyway, so they are not read twice)."""
        if not is_slim(entry):
            return entry
        full = self._full(entry)
        entry_id = entry["id"]
        position = self._position.get(entry_id)
        if position is not None and self._entries[position] is entry:
            self._entries[position] = full
            self._by_id[entry_id] = full
        return full

    def get_leaf_id(self) -> str | None:
        return self.leaf_id

    def get_leaf_entry(self) -> Entry | None:
        return self.get_entry(self.leaf_id) if self.leaf_id else None

    def get_children(self, parent_id: str | None) -> list[Entry]:
        return [self._full(e) for e in self._entries if e.get("parentId") == parent_id and "id" in e]

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

    def _context(self, lazy: bool) -> tuple[SessionContext, LazyMessages | None]:
        if self.leaf_id is None:
            return SessionContext(messages=[]), None
        path = list(self._iter_slim_branch())
        path.reverse()
        start = 0
        compaction = next((i for i in range(len(path) - 1, -1, -1) if path[i].get("type") == "compaction"), None)
        if compaction is not None:
            first_kept = path[compaction].get("firstKeptEntryId")
            start = next((i for i in range(compaction) if path[i].get("id") == first_kept), compaction)
        stubs = False
        for index in range(start, len(path)):
            if lazy and self._source is not None and path[index].get("type") == "message" and is_slim(path[index]):
                stubs = True  # the stub (role, model) is all build_session_context reads of it
                continue
            path[index] = self._keep_full(path[index])
        context = build_session_context(path)
        if not stubs or self._source is None:
            return context, None
        messages = LazyMessages(context.messages, self._source, self._adopt_messages)
        context.messages = []
        return context, messages

    def _adopt_messages(self, held: list[dict[str, Any]], decoded: list[dict[str, Any]]) -> None:
        """The context's messages were decoded (the agent's first request): slim entries whose stub
        is among ``held`` become whole entries around the decoded message, so the message exists
        once in memory and later reads of the entry need not decode it again."""
        position = {id(e["message"]): i for i, e in enumerate(self._entries) if REF in e and "message" in e}
        for stub, message in zip(held, decoded, strict=True):
            index = position.get(id(stub))
            if index is None or message is stub:
                continue
            slim = self._entries[index]
            whole = {key: value for key, value in slim.items() if key != REF}
            whole["message"] = message
            self._entries[index] = whole
            self._by_id[whole["id"]] = whole

    def get_tree(self) -> list[SessionTreeNode]:
        """All entries as a forest; see :func:`pi_cli.store.tree.build_tree`."""
        return build_tree(self.get_entries(), self._labels, self._label_times)

    @property
    def session_name(self) -> str | None:
        """The display name from the latest ``session_info`` entry (None when unnamed)."""
        return self.get_session_name()

    def get_session_name(self) -> str | None:
        for entry in reversed(self._entries):  # session_info entries are never slim
            if entry.get("type") == "session_info":
                name = str(entry.get("name") or "").strip()
                return name or None
        return None

    def get_user_messages_for_forking(self) -> list[dict[str, str]]:
        """``[{entryId, text}]`` for every user message (``/fork`` picker, RPC get_fork_messages)."""
        out: list[dict[str, str]] = []
        for slim in self._entries:
            if slim.get("type") != "message" or slim["message"].get("role") != "user":
                continue
            entry = self._full(slim)
            if entry.get("type") == "message":
                text = user_text(entry["message"])
                if text and isinstance(entry.get("id"), str):  # an id-less (damaged) entry cannot be forked
                    out.append({"entryId": entry["id"], "text": text})
        return out

    # --- branching ----------------------------------------------------------------------

    def branch(self, entry_id: str) -> None:
        """Move the leaf to an earlier entry; the next append starts a new branch there."""
        if entry_id not in self._by_id:
            raise KeyError(f"Entry {entry_id} not found")
        self.leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry (the next append becomes a new root)."""
        self.leaf_id = None

    def branch_with_summary(
        self, entry_id: str | None, summary: str, details: Any = None, from_hook: bool | None = None
    ) -> str:
        """Branch to ``entry_id`` and record a summary of the branch being left there."""
        if entry_id is not None and entry_id not in self._by_id:
            raise KeyError(f"Entry {entry_id} not found")
        self.leaf_id = entry_id
        fields = {"fromId": entry_id or "root", "summary": summary, "details": details, "fromHook": from_hook}
        return self._append("branch_summary", fields, parent_id=entry_id)

    def create_branched_session(self, leaf_id: str) -> Path | None:
        """Switch to a new session holding only the root → ``leaf_id`` path (``/fork``, ``/clone``).
        Labels on kept entries are re-created at the end. Returns the new file path (None in memory)."""
        path = [e for e in self.get_branch(leaf_id) if e.get("type") != "label"]
        if not path:
            raise KeyError(f"Entry {leaf_id} not found")
        previous_file = self.session_file
        kept = {e["id"] for e in path}
        labels = [(t, lbl, self._label_times.get(t)) for t, lbl in self._labels.items() if t in kept]
        self.new_session(parent_session=str(previous_file) if self.persist and previous_file else None)
        taken = set(kept)
        parent = path[-1]["id"]
        label_entries: list[Entry] = []
        for target, label, stamp in labels:
            label_id = new_entry_id(taken)
            taken.add(label_id)
            label_entries.append(
                {"type": "label", "id": label_id, "parentId": parent, "timestamp": stamp or iso_now(),
                 "targetId": target, "label": label}
            )  # fmt: skip
            parent = label_id
        self._entries = [*path, *label_entries]
        self._rebuild_index()
        if self.persist and self.session_file is not None and self._has_assistant:
            rewrite_session_file(self.session_file, [self.header, *self._entries], fsync=self.fsync)
            self._attach_writer(self.session_file)
        return self.session_file if self.persist else None

    def export_branch_jsonl(self, output: str | Path) -> Path:
        """Write the active branch as a standalone session file with parentIds re-chained."""
        chain: list[Entry] = []
        parent: str | None = None
        for entry in self.get_branch():
            if entry.get("type") == "label":
                continue
            copy = dict(entry)
            copy["parentId"] = parent
            parent = copy["id"]
            chain.append(copy)
        target = Path(output)
        rewrite_session_file(target, [dict(self.header), *chain])
        return target

    # --- statistics ---------------------------------------------------------------------

    def get_stats(self) -> dict[str, Any]:
        """pi's ``get_session_stats`` numbers over the current context (contextUsage left to callers)."""
        session_file = str(self.session_file) if self.persist and self.session_file else None
        return session_stats(self.build_context().messages, session_file, self.session_id, None)


def _new_header(session_id: str, cwd: str, parent_session: str | None) -> Entry:
    """A header of the current session version, stamped now; ``parentSession`` only when there is one."""
    header: Entry = {
        "type": "session",
        "version": CURRENT_SESSION_VERSION,
        "id": session_id,
        "timestamp": iso_now(),
        "cwd": cwd,
    }
    if parent_session:
        header["parentSession"] = parent_session
    return header


def find_most_recent_session(directory: Path) -> Path | None:
    """The newest (by mtime) ``*.jsonl`` in ``directory`` that starts with a session header."""
    try:
        candidates = [p for p in directory.iterdir() if p.suffix == ".jsonl" and p.is_file()]
    except OSError:
        return None
    candidates.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for path in candidates:
        if read_header(path) is not None:
            return path
    return None
