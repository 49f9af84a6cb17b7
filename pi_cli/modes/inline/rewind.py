"""``/rewind`` in inline mode (issue 18), as text commands that print to scrollback.

* ``/rewind`` lists the user messages, numbered oldest first, each marked ``[files]`` when a file
  checkpoint covers it;
* ``/rewind N [both|files|conversation]`` (default ``both``) first prints what restoring the files
  would change, then rewinds; rewinding the conversation prints the message text to send again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import RenderableType

from pi_cli.modes.inline import render
from pi_cli.session.checkpointing import change_summary

_MODES = {"both": (True, True), "files": (True, False), "conversation": (False, True)}
USAGE = "Usage: /rewind [N [both|files|conversation]]"


async def rewind_command(session: Any, args: str, show: Callable[[RenderableType], None]) -> None:
    """The ``/rewind`` handler (errors are raised as one-line exceptions, shown by the caller)."""
    if getattr(session.store, "manager", None) is None:
        raise ValueError("/rewind needs a saved session (this one is in memory only).")
    candidates = list(session.get_fork_messages())
    checkpoints = session.checkpoints
    if not args:
        if not candidates:
            show(render.notice("No messages to rewind to"))
            return
        lines = [USAGE]
        for index, item in enumerate(candidates, 1):
            mark = "[files]" if checkpoints.checkpoint_for(item["entryId"]) else "[no file checkpoint]"
            lines.append(f"{index:>3}. {mark} {' '.join(item['text'].split())[:100]}")
        show(render.notice("\n".join(lines), "cyan"))
        return
    number, _, mode = args.partition(" ")
    mode = mode.strip() or "both"
    if not number.isdigit() or not 1 <= int(number) <= len(candidates) or mode not in _MODES:
        raise ValueError(USAGE + (f" (N from 1 to {len(candidates)})" if candidates else ""))
    entry_id = candidates[int(number) - 1]["entryId"]
    files, conversation = _MODES[mode]
    if files and checkpoints.checkpoint_for(entry_id):
        show(render.notice("Restoring files: " + change_summary(await checkpoints.preview(entry_id)), "cyan"))
    result = await checkpoints.rewind(entry_id, files=files, conversation=conversation)
    done = "Rewound" + (" conversation" if conversation else "")
    if files:
        done += (" and " if conversation else " ") + "files (" + change_summary(result["changes"]) + ")"
    if conversation:
        done += "\nThe message was: " + result["text"]
    show(render.notice(done, "green"))
