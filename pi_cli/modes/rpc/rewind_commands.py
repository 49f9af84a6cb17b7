"""RPC commands for checkpoints and rewind (pi_cli's own, issue 18).

* ``{"type": "rewind", "entryId": ID, "files": true, "conversation": true}`` →
  ``{"changedFiles": [...], "changes": {"modified", "created", "deleted"}, "text": ...}``: restores
  the files to the checkpoint taken before user entry ID and/or moves the leaf before it; fails with
  "Cannot rewind while the agent is running" during a run, and says plainly when no checkpoint
  covers the message.
* ``{"type": "get_checkpoints"}`` → ``{"checkpoints": [{"entryId", "checkpointId", "timestamp",
  "text"}], "notice": str | null}`` (notice: why the last snapshot was skipped, if it was).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_cli.modes.rpc import protocol as p
from pi_cli.modes.rpc.host import CommandHost

if TYPE_CHECKING:
    from pi_cli.modes.rpc import commands as c


async def rewind(server: CommandHost, cmd: c.RewindCommand) -> dict[str, Any]:
    result = await server.session.checkpoints.rewind(cmd.entryId, files=cmd.files, conversation=cmd.conversation)
    return p.success(cmd.id, "rewind", result)


async def get_checkpoints(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    from pi_cli.store.entry_messages import user_text

    checkpoints = server.session.checkpoints
    manager = server.session.store.manager
    listed = []
    for item in checkpoints.checkpoints():
        entry = manager.get_entry(item["entryId"]) if manager is not None else None
        text = user_text(entry["message"]) if entry is not None and entry.get("type") == "message" else None
        listed.append({**item, "text": text})
    return p.success(cmd.id, "get_checkpoints", {"checkpoints": listed, "notice": checkpoints.notice})
