"""``ctx.session_manager``: pi's read-only SessionManager, in snake_case.

Every call reads the session as it is now (after ``/new``, ``/resume`` or ``/fork`` the same view
shows the new file). Entries come back as deep copies: an extension may keep or change what it
got without touching the session (pi hands out its own objects and asks callers not to mutate
them; a copy makes that a guarantee, at the cost of copying — read ``get_branch`` rather than
``get_entries`` on a huge session). A session kept in memory without a manager (``--no-session``
embedders) has a header and no entries.
"""

from __future__ import annotations

import copy
from typing import Any

from pi_cli.extensions.host import ExtensionHost, SessionReader


class ReadonlySessionManager:
    """The session's entries, tree and metadata; nothing here writes (writes are ``pi.*``:
    ``append_entry``, ``set_label``, ``set_session_name``)."""

    def __init__(self, host: ExtensionHost | None, cwd: str) -> None:
        self._host = host
        self._cwd = cwd

    def _manager(self) -> SessionReader | None:
        return None if self._host is None else self._host.store.manager

    def get_cwd(self) -> str:
        manager = self._manager()
        return manager.cwd if manager is not None else self._cwd

    def get_session_dir(self) -> str | None:
        manager = self._manager()
        directory = manager.session_dir if manager is not None else None
        return str(directory) if directory is not None else None

    def get_session_id(self) -> str | None:
        return None if self._host is None else str(self._host.session_id)

    def get_session_file(self) -> str | None:
        """The session file's path; None for a session that is not saved."""
        return None if self._host is None else self._host.session_file

    def get_session_name(self) -> str | None:
        return None if self._host is None else self._host.session_name

    def get_header(self) -> dict[str, Any] | None:
        """The header line (``{type: "session", version, id, timestamp, cwd, parentSession?}``)."""
        return None if self._host is None else copy.deepcopy(dict(self._host.store.header()))

    def get_entries(self) -> list[dict[str, Any]]:
        """Every entry in file order, all branches (the header excluded)."""
        manager = self._manager()
        return [] if manager is None else copy.deepcopy(manager.get_entries())

    def get_entry(self, entry_id: str) -> dict[str, Any] | None:
        manager = self._manager()
        entry = None if manager is None else manager.get_entry(entry_id)
        return copy.deepcopy(entry) if entry is not None else None

    def get_branch(self, from_id: str | None = None) -> list[dict[str, Any]]:
        """The root → ``from_id`` path (default: the leaf), every entry type included."""
        manager = self._manager()
        return [] if manager is None else copy.deepcopy(manager.get_branch(from_id))

    def get_tree(self) -> list[dict[str, Any]]:
        """The entries as a forest of pi's nodes ``{entry, children, label?, labelTimestamp?}``,
        children oldest first."""
        manager = self._manager()
        return [] if manager is None else [_node(node) for node in manager.get_tree()]

    def get_leaf_id(self) -> str | None:
        manager = self._manager()
        return None if manager is None else manager.get_leaf_id()

    def get_leaf_entry(self) -> dict[str, Any] | None:
        manager = self._manager()
        entry = None if manager is None else manager.get_leaf_entry()
        return copy.deepcopy(entry) if entry is not None else None

    def build_session_context(self) -> dict[str, Any]:
        """What the model gets from this branch (pi's ``buildSessionContext``): ``{messages,
        thinkingLevel, model}`` — compactions and branch summaries applied, ``model`` as
        ``{provider, modelId}`` or None."""
        manager = self._manager()
        if manager is None:
            messages = [] if self._host is None else list(self._host.messages)
            return {"messages": copy.deepcopy(messages), "thinkingLevel": "off", "model": None}
        context = manager.build_context()
        return {
            "messages": copy.deepcopy(list(context.messages)),
            "thinkingLevel": context.thinking_level,
            "model": dict(context.model) if context.model else None,
        }

    def get_label(self, entry_id: str) -> str | None:
        """The entry's current bookmark label (``pi.set_label``, ``/tree``), or None."""
        manager = self._manager()
        return None if manager is None else manager.get_label(entry_id)


def _node(node: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"entry": copy.deepcopy(node.entry), "children": [_node(c) for c in node.children]}
    if node.label is not None:
        out["label"] = node.label
    if getattr(node, "label_timestamp", None) is not None:
        out["labelTimestamp"] = node.label_timestamp
    return out
