"""Ask before the session is replaced (pi's ``confirm-destructive`` example).

``pi -e example:confirm_destructive``. ``/new`` asks "Clear session?"; ``/resume`` asks when the
current session holds user messages; ``/fork`` and ``/clone`` ask before branching. A "no"
cancels the operation through ``session_before_switch`` / ``session_before_fork``. Without a UI
(print, json) nothing is asked and nothing is cancelled: nobody is there to answer.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI

FORK_YES = "Yes, create fork"
FORK_NO = "No, stay in current session"


def register(pi: ExtensionAPI) -> None:
    async def before_switch(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        if not ctx.has_ui:
            return None
        if event["reason"] == "new":
            if await ctx.ui.confirm("Clear session?", "This will start over without the current messages."):
                return None
            ctx.ui.notify("Clear cancelled", "info")
            return {"cancel": True}
        has_work = any(
            e["type"] == "message" and e["message"].get("role") == "user" for e in ctx.session_manager.get_entries()
        )
        if not has_work or await ctx.ui.confirm("Switch session?", "The current session has messages. Switch anyway?"):
            return None
        ctx.ui.notify("Switch cancelled", "info")
        return {"cancel": True}

    async def before_fork(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        if not ctx.has_ui:
            return None
        choice = await ctx.ui.select(f"Fork from entry {str(event['entryId'])[:8]}?", [FORK_YES, FORK_NO])
        if choice == FORK_YES:
            return None
        ctx.ui.notify("Fork cancelled", "info")
        return {"cancel": True}

    pi.on("session_before_switch", before_switch)
    pi.on("session_before_fork", before_fork)
