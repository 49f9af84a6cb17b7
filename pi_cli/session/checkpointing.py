"""Checkpoints and rewind for an AgentSession (issue 18).

A session's :class:`SessionCheckpoints` snapshots the project's files (``pi_cli.checkpoints``)
before each user message's run and after each tool batch, and records, for every user message,
the checkpoint taken just before it as a ``custom`` session entry::

    {"type": "custom", "customType": "pi_cli.checkpoint",
     "data": {"entryId": <user message entry id>, "checkpointId": <sha>}}

pi ignores custom entries, so such sessions still open in pi; sessions written by pi (or before
checkpoints existed) simply have no checkpoint for their messages, and rewind says so.

``await rewind(entry_id, files=True, conversation=True)`` restores the files to that checkpoint
(the restore is itself checkpointed, so it can be undone) and/or moves the session's leaf to just
before the message (a branch: nothing is deleted); it returns ``{"changedFiles", "changes",
"text"}``. Refused while a run or a ``!`` command is going. Settings: ``checkpoints.enabled``
(default true), ``checkpoints.maxFileBytes`` (default 5 MB), ``checkpoints.maxFiles`` (50,000).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.checkpoints import CheckpointError, CheckpointStore
from pi_cli.checkpoints.store import DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_FILES
from pi_cli.config.paths import agent_dir
from pi_cli.errors import SessionError

if TYPE_CHECKING:
    from pi_cli.config.settings import Settings
    from pi_cli.session.store_bridge import SessionStoreBridge

CUSTOM_TYPE = "pi_cli.checkpoint"


def _setting(settings: Settings, key: str, default: Any) -> Any:
    """``checkpoints.<key>`` from the settings object (unknown sections arrive as plain data)."""
    section = settings.to_json().get("checkpoints")
    if not isinstance(section, dict):
        return default
    value = section.get(key, default)
    if isinstance(default, bool):
        return value if isinstance(value, bool) else default
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def change_summary(changes: dict[str, list[str]]) -> str:
    """``2 modified, 1 created, 1 deleted`` (or ``no file changes``), for the UIs."""
    parts = [f"{len(changes[k])} {k}" for k in ("modified", "created", "deleted") if changes.get(k)]
    return ", ".join(parts) if parts else "no file changes"


# ``preview`` keys say what the restore does: "created" files come back (they were deleted since),
# "deleted" ones go (they were created since).
_CHANGE_WORDS = (
    ("modified", "modified"),
    ("created", "restored (deleted since)"),
    ("deleted", "deleted (created since)"),
)


def change_lines(changes: dict[str, list[str]]) -> list[str]:
    """The files a restore changes, one per line, as a restore would treat each:
    ``  modified                 src/app.py``."""
    return [f"  {word:24} {path}" for key, word in _CHANGE_WORDS for path in changes.get(key, [])]


@dataclass(eq=False)
class SessionCheckpoints:
    """The checkpoint side of one session (see the module docstring): snapshots of ``cwd``
    recorded in ``session_store``'s session; a rewind refuses while ``busy()`` and ends with ``reload()``
    (the agent's transcript from the moved leaf). ``enabled=False`` turns them off whatever the
    settings say."""

    cwd: Path
    settings: Settings
    session_store: SessionStoreBridge
    busy: Callable[[], bool]
    reload: Callable[[], None]
    # A subagent's child session takes none (``enabled=False``): its parent's checkpoints
    # cover the run the child is part of, and children running at once would race on them.
    enabled: bool = True
    notice: str | None = field(default=None, init=False)
    _store: CheckpointStore | None = field(default=None, init=False)
    _pending: str | None = field(default=None, init=False)  # taken before the run, waiting for the user entry id

    def __post_init__(self) -> None:
        self.enabled = self.enabled and bool(_setting(self.settings, "enabled", True))

    @property
    def store(self) -> CheckpointStore:
        if self._store is None:
            self._store = CheckpointStore(
                self.cwd, agent_dir(),
                max_file_bytes=int(_setting(self.settings, "maxFileBytes", DEFAULT_MAX_FILE_BYTES)),
                max_files=int(_setting(self.settings, "maxFiles", DEFAULT_MAX_FILES)),
            )  # fmt: skip
        return self._store

    def _active(self) -> bool:
        # Without a session file there is no entry to attach a checkpoint to and nothing to rewind.
        return self.enabled and self.session_store.manager is not None

    async def _snapshot(self, label: str) -> str | None:
        store = self.store
        checkpoint = await store.snapshot(label)
        if checkpoint is None:
            self.notice = store.notice  # shown by get_checkpoints and /rewind
        return checkpoint

    async def before_run(self) -> None:
        """Hook: a user message's run is about to start."""
        if self._active():
            self._pending = await self._snapshot("before user message")

    async def on_event(self, event: dict[str, Any]) -> None:
        """Hook: an agent event was handled (user message persisted, tool batch done)."""
        if not self._active():
            return
        kind = event.get("type")
        if kind == "message_end" and event.get("message", {}).get("role") == "user":
            checkpoint = self._pending or await self._snapshot("before steering message")
            self._pending = None
            manager = self.session_store.manager
            entry_id = manager.get_leaf_id() if manager is not None else None
            if checkpoint and entry_id:
                self.session_store.append_custom_entry(CUSTOM_TYPE, {"entryId": entry_id, "checkpointId": checkpoint})
        elif kind == "turn_end" and event.get("toolResults"):
            await self._snapshot("after tool batch")

    # -- rewind ----------------------------------------------------------------------------

    def checkpoints(self) -> list[dict[str, Any]]:
        """Every recorded (user entry, checkpoint) pair of this session file, in file order."""
        manager = self.session_store.manager
        if manager is None:
            return []
        out = []
        for entry in manager.get_entries():
            data = entry.get("data")
            if entry.get("type") != "custom" or entry.get("customType") != CUSTOM_TYPE or not isinstance(data, dict):
                continue
            if isinstance(data.get("entryId"), str) and isinstance(data.get("checkpointId"), str):
                out.append({"entryId": data["entryId"], "checkpointId": data["checkpointId"],
                            "timestamp": entry.get("timestamp")})  # fmt: skip
        return out

    def checkpoint_for(self, entry_id: str) -> str | None:
        found = [c["checkpointId"] for c in self.checkpoints() if c["entryId"] == entry_id]
        return found[-1] if found else None

    async def preview(self, entry_id: str) -> dict[str, list[str]]:
        """What restoring the files of ``entry_id`` would change: the checkpoint → now diff turned
        around (files created since will be deleted, files deleted since will be created)."""
        checkpoint = self._require_checkpoint(entry_id)
        try:
            diff = await self.store.diff(checkpoint)
        except CheckpointError as exc:
            raise SessionError(str(exc)) from None
        return {"modified": diff["modified"], "created": diff["deleted"], "deleted": diff["created"]}

    def _require_checkpoint(self, entry_id: str) -> str:
        checkpoint = self.checkpoint_for(entry_id)
        if checkpoint is None:
            raise SessionError(
                "No checkpoint covers this message: its files cannot be restored"
                " (recorded without checkpoints, e.g. by pi or with checkpoints off)."
            )
        return checkpoint

    async def rewind(self, entry_id: str, files: bool = True, conversation: bool = True) -> dict[str, Any]:
        """Restore files and/or move the leaf before user entry ``entry_id`` (module docstring)."""
        if self.busy():
            raise SessionError("Cannot rewind while the agent is running")
        manager = self.session_store.manager
        if manager is None:
            raise SessionError("Rewind needs a session file (this session is not saved).")
        entry = manager.get_entry(entry_id)
        if entry is None or entry.get("type") != "message" or entry["message"].get("role") != "user":
            raise SessionError(f"Invalid entry ID for rewind: {entry_id}")
        checkpoint = self._require_checkpoint(entry_id) if files else None
        changes: dict[str, list[str]] = {"modified": [], "created": [], "deleted": []}
        if checkpoint is not None:
            try:
                changes = await self.store.restore(checkpoint)
            except CheckpointError as exc:
                raise SessionError(f"Could not restore files: {exc}") from None
        from pi_cli.store.entry_messages import user_text

        text = user_text(entry["message"])
        if conversation:
            parent = entry.get("parentId")
            if parent is None:
                manager.reset_leaf()
            else:
                manager.branch(parent)
            self.reload()
        changed = sorted({p for paths in changes.values() for p in paths})
        return {"changedFiles": changed, "changes": changes, "text": text}
