"""``/rewind`` in inline mode (issue 18), in scrollback.

* ``/rewind`` lists the user messages, numbered oldest first, each marked ``[files]`` when a file
  checkpoint covers it, and the next line picks one;
* ``/rewind N [both|files|conversation]`` (default ``both``) rewinds to before message N.

Either way the files that restoring would change are listed and the rewind waits for a yes; after
it, the message's text is back in the editor, to edit and send again (as the TUI does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import RenderableType

from pi_cli.modes.inline import render
from pi_cli.modes.inline.approvals import InlineApprovals
from pi_cli.session.checkpointing import change_lines, change_summary

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

_MODES = {"both": (True, True), "files": (True, False), "conversation": (False, True)}
USAGE = "Usage: /rewind [N [both|files|conversation]]"


async def rewind_command(
    session: AgentSession, args: str, show: Callable[[RenderableType], None], dialogs: InlineApprovals,
    set_editor_text: Callable[[str], None],
) -> None:  # fmt: skip
    """The ``/rewind`` handler (errors are raised as one-line exceptions, shown by the caller)."""
    if session.store.manager is None:
        raise ValueError("/rewind needs a saved session (this one is in memory only).")
    candidates = list(session.get_fork_messages())
    checkpoints = session.checkpoints
    number, _, mode = args.partition(" ")
    mode = mode.strip() or "both"
    if not number:
        if not candidates:
            show(render.notice("No messages to rewind to"))
            return
        labels = [
            f"{'[files]' if checkpoints.checkpoint_for(c['entryId']) else '[no file checkpoint]'} "
            + " ".join(c["text"].split())[:100]
            for c in candidates
        ]
        picked = await dialogs.pick("Rewind to before which message?", labels)
        if picked is None:
            return
        number = str(picked + 1)
    if not number.isdigit() or not 1 <= int(number) <= len(candidates) or mode not in _MODES:
        raise ValueError(USAGE + (f" (N from 1 to {len(candidates)})" if candidates else ""))
    entry_id = candidates[int(number) - 1]["entryId"]
    files, conversation = _MODES[mode]
    files = files and checkpoints.checkpoint_for(entry_id) is not None
    lines = [f"Rewind to before: {' '.join(candidates[int(number) - 1]['text'].split())[:100]}"]
    if files:
        preview = await checkpoints.preview(entry_id)
        changed = change_lines(preview)
        lines += ["Files to restore:", *changed] if changed else ["Files: no changes to restore"]
    if conversation:
        lines.append("The conversation goes back to before this message (a branch: nothing is deleted).")
    if await dialogs.pick("\n".join(lines), ["Rewind", "Cancel"]) != 0:
        return
    result = await checkpoints.rewind(entry_id, files=files, conversation=conversation)
    done = "Rewound" + (" conversation" if conversation else "")
    if files:
        done += (" and " if conversation else " ") + "files (" + change_summary(result["changes"]) + ")"
    show(render.notice(done, "green"))
    if conversation:
        set_editor_text(result["text"])
