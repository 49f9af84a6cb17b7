"""Git checkpoints: after every turn, the state of the tracked files is kept as a commit under
``refs/pi-checkpoints/`` — without touching the working tree, the index, HEAD or the stash list.

``pi -e example:git_checkpoint``. ``git stash create`` writes a stash-like commit of the working
tree and index and returns its id (it changes nothing else); a clean tree checkpoints ``HEAD``. A
turn that changed nothing (worktree and index) since the last checkpoint adds none. ``/checkpoints`` lists them with
the command that brings one back (``git stash apply <id>``). Untracked files are not included
(``git stash create`` ignores them). Outside a git repository, or without git, it does nothing.
"""

from __future__ import annotations

import time
from typing import Any

from pi_cli.extensions import ExtensionAPI

REF_ROOT = "refs/pi-checkpoints"


def register(pi: ExtensionAPI) -> None:
    state: dict[str, Any] = {"turn": 0, "last": None}

    async def git(*args: str) -> dict[str, Any] | None:
        """``git args`` in the session's cwd; None when git is missing."""
        try:
            return await pi.exec("git", list(args), timeout=30_000)  # ms, as pi
        except OSError:
            return None

    async def in_repo() -> bool:
        result = await git("rev-parse", "--is-inside-work-tree")
        return result is not None and result["code"] == 0 and result["stdout"].strip() == "true"

    async def checkpoint(event: dict[str, Any], ctx: Any) -> None:
        state["turn"] += 1
        if not await in_repo():
            return
        created = await git("stash", "create", f"pi checkpoint after turn {state['turn']}")
        commit = created["stdout"].strip() if created is not None and created["code"] == 0 else ""
        created_stash = bool(commit)
        if not commit:  # nothing to stash: the tree is HEAD (or the repo has no commit yet)
            head = await git("rev-parse", "--verify", "-q", "HEAD")
            commit = head["stdout"].strip() if head is not None and head["code"] == 0 else ""
        if not commit:
            return
        # Stash commits are new objects every time (timestamps): compare what they hold, the
        # worktree tree and (for a stash) the index tree, its second parent.
        trees = await git("rev-parse", f"{commit}^{{tree}}", *([f"{commit}^2^{{tree}}"] if created_stash else []))
        content = trees["stdout"] if trees is not None and trees["code"] == 0 else commit
        if content == state["last"]:
            return
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        session = (ctx.session.session_id or "session")[:8]
        ref = f"{REF_ROOT}/{stamp}-{session}-turn{state['turn']:04d}"  # sorts by time
        stored = await git("update-ref", ref, commit)
        if stored is not None and stored["code"] == 0:
            state["last"] = content
        else:
            ctx.ui.notify(f"git_checkpoint: could not store {ref}: {stored and stored['stderr'].strip()}", "warning")

    pi.on("turn_end", checkpoint)

    async def checkpoints(args: str, ctx: Any) -> None:
        if not await in_repo():
            ctx.ui.notify("No checkpoints: not a git repository.", "info")
            return
        listing = await git("for-each-ref", "--sort=-refname", "--format=%(objectname:short) %(refname)", REF_ROOT)
        lines = [line for line in (listing["stdout"] if listing else "").splitlines() if line.strip()]
        if not lines:
            ctx.ui.notify("No checkpoints yet (one is stored after each turn).", "info")
            return
        pairs = (line.partition(" ") for line in lines)
        shown = [f"{commit}  {ref.removeprefix(REF_ROOT + '/')}" for commit, _, ref in pairs]
        ctx.ui.notify(
            f"{len(lines)} checkpoint(s), newest first (restore one with: git stash apply <id>):\n" + "\n".join(shown),
            "info",
        )

    pi.register_command("checkpoints", checkpoints, "List the git checkpoints stored after each turn")
