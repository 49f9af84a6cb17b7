"""No new, resumed or forked session over uncommitted work (pi's ``dirty-repo-guard`` example).

``pi -e example:dirty_repo_guard``. Before ``/new``, ``/resume``, ``/fork`` and ``/clone`` it runs
``git status --porcelain``; with changes it asks whether to go on anyway (TUI, inline, RPC) and,
without a UI, cancels. Outside a git repository (or without git) it lets everything through.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI

PROCEED = "Yes, proceed anyway"
COMMIT_FIRST = "No, let me commit first"


def register(pi: ExtensionAPI) -> None:
    async def guard(ctx: Any, action: str) -> dict[str, Any] | None:
        try:
            status = await pi.exec("git", ["status", "--porcelain"], timeout=10_000)
        except OSError:  # no git at all: nothing to guard
            return None
        changed = [line for line in status["stdout"].splitlines() if line.strip()]
        if status["code"] != 0 or not changed:
            return None
        if not ctx.has_ui:
            return {"cancel": True}
        choice = await ctx.ui.select(
            f"You have {len(changed)} uncommitted file(s). {action} anyway?", [PROCEED, COMMIT_FIRST]
        )
        if choice == PROCEED:
            return None
        ctx.ui.notify("Commit your changes first", "warning")
        return {"cancel": True}

    async def before_switch(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        return await guard(ctx, "New session" if event["reason"] == "new" else "Switch session")

    async def before_fork(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        return await guard(ctx, "Fork")

    pi.on("session_before_switch", before_switch)
    pi.on("session_before_fork", before_fork)
