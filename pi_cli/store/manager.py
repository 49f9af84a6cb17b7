"""A session as an append-only tree of entries, persisted as pi's JSONL (see :mod:`store`).

Every entry has an ``id`` and a ``parentId``; appending makes the new entry a child of the current
leaf and moves the leaf to it. On load the leaf is the last entry of the file. :meth:`branch` moves
the leaf back to an earlier entry, so the next append starts a sibling branch in the same file.
:meth:`build_context` walks leaf → root and returns the messages the agent should see, replacing
everything before a compaction by its summary. The entries, their index and every read (context,
branch, tree) are the manager's :class:`~pi_cli.store.entry_index.EntryIndex` (``index``), whose
reads the manager offers as its own; this module builds, appends, branches and persists.

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
from pi_cli.store.entry_index import EntryIndex
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
from pi_cli.store.migrate import migrate_entries
from pi_cli.store.slim.lazy_context import LazyMessages
from pi_cli.store.slim.lazy_entries import gc_paused, load_slim
from pi_cli.store.stats import session_stats
from pi_cli.store.tree import SessionTreeNode

__all__ = [
    "SessionContext",
    "SessionManager",
    "SessionTreeNode",
    "build_session_context",
    "find_most_recent_session",
    "message_from_entry",
]

# pi writes these kinds' own fields before id/parentId/timestamp (the order of its object literals);
# the same key order keeps pi_cli's session lines and entry_appended events like pi's.
_FIELDS_FIRST = frozenset({"custom", "custom_message"})


class SessionManager:
    """One session: its entries, the leaf pointer, and (when persisted) its file. The entries and
    the reads over them (entries, branch, context, tree, name, fork candidates) are ``index``'s, an
    :class:`EntryIndex`; the manager forwards those reads and does every write.

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
        parent_session: str | None = None,
    ) -> None:
        self.cwd = str(cwd)
        self.session_dir = session_dir
        self.persist = persist
        self.fsync = fsync
        self.warnings: list[str] = []
        self.session_file: Path | None = None
        self.session_id = ""
        self.header: Entry = {}
        self.index = EntryIndex()
        # How much is on disk: the header, and the first ``_written`` entries of ``_entries``.
        self._header_written = False
        self._written = 0
        self._writer: SessionWriter | None = None
        if session_file is not None:
            self.set_session_file(session_file)
        else:
            self.new_session(parent_session)

    # --- construction -------------------------------------------------------------------

    @classmethod
    def create(
        cls, cwd: str | Path, session_dir: str | Path | None = None, *, fsync: bool = True,
        parent_session: str | None = None,
    ) -> SessionManager:  # fmt: skip
        """A new, empty session whose file will appear in ``session_dir`` (default: per-cwd dir);
        ``parent_session`` goes into its header (a subagent's session names its parent's file)."""
        directory = Path(session_dir) if session_dir else default_session_dir(cwd)
        return cls(cwd, directory, None, True, fsync=fsync, parent_session=parent_session)

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
        truncate_at = loaded.torn_tail_offset
        if migrated and self.persist:
            rewrite_session_file(self.session_file, loaded.entries, fsync=self.fsync)
            truncate_at = None
        with gc_paused():
            self.index.reset(loaded.entries[1:], self.session_file)
        self._attach_writer(self.session_file, truncate_at)

    def new_session(self, parent_session: str | None = None, session_id: str | None = None) -> Path | None:
        """Start over with an empty session (``/new``); returns the future file path."""
        self.session_id = session_id or new_session_id()
        self.header = _new_header(self.session_id, self.cwd, parent_session)
        self.index.reset([], None)
        self._header_written = False
        self._written = 0
        self._writer = None
        if self.persist and self.session_dir is not None:
            self.session_file = self.session_dir / file_name_for(self.header["timestamp"], self.session_id)
        return self.session_file

    # --- persistence --------------------------------------------------------------------

    def _attach_writer(self, file: Path, truncate_at: int | None = None) -> None:
        """After ``file`` was found or written whole: the header and every entry are on disk.

        ``truncate_at`` cuts a torn last line off before the next append.
        """
        self._header_written = True
        self._written = len(self.index.entries)
        self._writer = SessionWriter(file, fsync=self.fsync, truncate_at=truncate_at)

    def _persist(self) -> None:
        if not self.persist or self.session_file is None or not self.index.has_assistant:
            return
        if self._writer is None:
            self._writer = SessionWriter(self.session_file, fsync=self.fsync)
        pending = self.index.entries[self._written :]
        self._writer.append([self.header, *pending] if not self._header_written else pending)
        self._header_written = True
        self._written = len(self.index.entries)

    def _append(
        self, kind: str, fields: dict[str, Any], parent_id: str | bool | None = False, nulls: tuple[str, ...] = ()
    ) -> str:
        """Append an entry of ``kind``; fields that are None are left out, except those in ``nulls``."""
        entry: Entry = {"type": kind}
        body = {k: v for k, v in fields.items() if v is not None or k in nulls}
        if kind in _FIELDS_FIRST:
            entry.update(body)
        entry["id"] = self.index.new_id()
        entry["parentId"] = self.index.leaf_id if parent_id is False else parent_id
        entry["timestamp"] = iso_now()
        if kind not in _FIELDS_FIRST:
            entry.update(body)
        self.index.add(entry)
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
        details: Any = None, from_hook: bool | None = None, usage: dict[str, Any] | None = None,
    ) -> str:  # fmt: skip
        """A ``compaction`` entry; ``usage`` is what the summary cost (pi records it with the entry)."""
        return self._append(
            "compaction",
            {
                "summary": summary,
                "firstKeptEntryId": first_kept_entry_id,
                "tokensBefore": tokens_before,
                "details": details,
                "fromHook": from_hook,
                "usage": usage,
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
        if target_id not in self.index:
            raise KeyError(f"Entry {target_id} not found")
        return self._append("label", {"targetId": target_id, "label": label or None})

    def append_context_edit(self, target_id: str, replacement: dict[str, Any] | None = None) -> str:
        """pi 1.6.0's ``context_edit``: ``replacement: None`` omits the target entry from the context
        (kept in the file), ``{"content": ...}`` replaces its content. ``replacement`` is always
        written, ``null`` included."""
        if target_id not in self.index:
            raise KeyError(f"Entry {target_id} not found")
        fields = {"targetId": target_id, "replacement": replacement}
        return self._append("context_edit", fields, nulls=("replacement",))

    # --- reading: the index's (see EntryIndex for each contract) ------------------------

    def get_header(self) -> Entry:
        return self.header

    def get_entries(self) -> list[Entry]:
        return self.index.get_entries()

    def get_entry(self, entry_id: str) -> Entry | None:
        return self.index.get_entry(entry_id)

    def get_leaf_id(self) -> str | None:
        return self.index.leaf_id

    def get_leaf_entry(self) -> Entry | None:
        return self.index.get_leaf_entry()

    def get_children(self, parent_id: str | None) -> list[Entry]:
        return self.index.get_children(parent_id)

    def get_label(self, entry_id: str) -> str | None:
        return self.index.get_label(entry_id)

    def iter_branch(self, from_id: str | None = None) -> Iterator[Entry]:
        return self.index.iter_branch(from_id)

    def get_branch(self, from_id: str | None = None) -> list[Entry]:
        return self.index.get_branch(from_id)

    def latest_compaction(self) -> Entry | None:
        return self.index.latest_compaction()

    def build_context(self) -> SessionContext:
        return self.index.build_context()

    def build_lazy_context(self) -> tuple[SessionContext, LazyMessages | None]:
        return self.index.build_lazy_context()

    def get_tree(self) -> list[SessionTreeNode]:
        return self.index.get_tree()

    @property
    def session_name(self) -> str | None:
        return self.index.get_session_name()

    def get_session_name(self) -> str | None:
        return self.index.get_session_name()

    def get_user_messages_for_forking(self) -> list[dict[str, str]]:
        return self.index.get_user_messages_for_forking()

    # --- branching ----------------------------------------------------------------------

    def branch(self, entry_id: str) -> None:
        """Move the leaf to an earlier entry; the next append starts a new branch there."""
        if entry_id not in self.index:
            raise KeyError(f"Entry {entry_id} not found")
        self.index.leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry (the next append becomes a new root)."""
        self.index.leaf_id = None

    def branch_with_summary(
        self, entry_id: str | None, summary: str, details: Any = None, from_hook: bool | None = None
    ) -> str:
        """Branch to ``entry_id`` and record a summary of the branch being left there."""
        if entry_id is not None and entry_id not in self.index:
            raise KeyError(f"Entry {entry_id} not found")
        self.index.leaf_id = entry_id
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
        labels = self.index.labels_on(kept)
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
        self.index.reset([*path, *label_entries], None)
        if self.persist and self.session_file is not None and self.index.has_assistant:
            rewrite_session_file(self.session_file, [self.header, *self.index.entries], fsync=self.fsync)
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
