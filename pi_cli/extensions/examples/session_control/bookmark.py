"""Bookmarks on the conversation (pi's ``bookmark`` example).

``pi -e example:bookmark``. ``/bookmark [label]`` labels the last assistant reply (``/tree`` shows
the label next to it; the default label is ``bookmark-<time>``), ``/unbookmark`` removes the most
recent label. Labels are entries of the session file, so they survive a restart.
"""

from __future__ import annotations

import time
from typing import Any

from pi_cli.extensions import ExtensionAPI


def register(pi: ExtensionAPI) -> None:
    def bookmark(args: str, ctx: Any) -> None:
        label = args.strip() or f"bookmark-{int(time.time() * 1000)}"
        for entry in reversed(ctx.session_manager.get_branch()):  # this branch's last reply
            if entry["type"] == "message" and entry["message"].get("role") == "assistant":
                pi.set_label(entry["id"], label)
                ctx.ui.notify(f"Bookmarked as: {label}", "info")
                return
        ctx.ui.notify("No assistant message to bookmark", "warning")

    def unbookmark(args: str, ctx: Any) -> None:
        manager = ctx.session_manager
        for entry in reversed(manager.get_entries()):
            label = manager.get_label(entry.get("id", ""))
            if label:
                pi.set_label(entry["id"], None)
                ctx.ui.notify(f"Removed bookmark: {label}", "info")
                return
        ctx.ui.notify("No bookmarked entry found", "warning")

    pi.register_command("bookmark", bookmark, "Bookmark the last reply (/bookmark [label])")
    pi.register_command("unbookmark", unbookmark, "Remove the most recent bookmark")
