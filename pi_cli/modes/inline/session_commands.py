"""Inline mode's session-file commands: ``/new``, ``/resume``, ``/tree``, ``/fork``, ``/clone``,
``/export`` — the TUI's, with numbered lists in scrollback where the TUI opens a picker.

After a switch (resume, fork, clone, tree) the scrollback gets a short recap of where the session
now stands (its last messages), since inline mode cannot redraw what is already printed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import RenderableType

from pi_cli.modes import command_actions as actions
from pi_cli.modes.inline import render
from pi_cli.modes.inline.approvals import InlineApprovals
from pi_cli.store.entry_messages import user_text

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

Show = Callable[[RenderableType], None]
RECAP_MESSAGES = 4
LIST_LIMIT = 30
# An extension's session_before_switch / session_before_fork said no: the session is unchanged.
_CANCELLED = ("Cancelled by an extension", "yellow")


class SessionCommands:
    """The session-file commands, bound to one session and inline's outputs."""

    def __init__(
        self, session: AgentSession, show: Show, dialogs: InlineApprovals, set_editor_text: Callable[[str], None]
    ) -> None:
        self.session = session
        self._show = show
        self._dialogs = dialogs
        self.set_editor_text = set_editor_text

    def _ready(self, name: str, needs_file: bool = True) -> bool:
        manager = self.session.store.manager
        if self.session.is_streaming:
            self._show(render.notice(actions.BUSY.format(name=name), "yellow"))
            return False
        if needs_file and (manager is None or not manager.persist):
            self._show(render.notice(actions.NO_STORAGE.format(name=name), "yellow"))
            return False
        return True

    def recap(self, heading: str) -> None:
        """``heading``, then the last few messages of the session as it now is."""
        lines = [heading]
        shown = [m for m in self.session.messages if m.get("role") in ("user", "assistant")][-RECAP_MESSAGES:]
        for message in shown:
            text = " ".join(user_text(message, " ").split())
            lines.append(f"  {message['role']}: {text[:100] + ('…' if len(text) > 100 else '')}")
        self._show(render.notice("\n".join(lines), "green"))

    async def new(self, args: str) -> None:
        if self._ready("new", needs_file=False):
            cancelled = (await self.session.new_session()).get("cancelled")
            self._show(render.notice(*_CANCELLED if cancelled else ("✓ New session started", "green")))

    async def resume(self, args: str) -> None:
        """``/resume``: this project's sessions, newest first, to pick from."""
        from pi_cli.store.catalog import list_sessions, threaded

        if not self._ready("resume"):
            return
        manager = self.session.store.manager
        assert manager is not None
        current = self.session.session_file
        listed = [s for s in list_sessions(self.session.cwd, manager.session_dir) if str(s.path) != current]
        rows = threaded(listed)[:LIST_LIMIT]  # a subagent's child session under its parent, indented
        if not rows:
            self._show(render.notice("No other sessions in this project", "dim"))
            return
        sessions = [info for info, _ in rows]
        labels = [
            f"{'  ' * depth}{'↳ ' if depth else ''}{' '.join((s.name or s.first_message).split())[:70]}"
            f" · {s.message_count} msgs"
            for s, depth in rows
        ]
        picked = await self._dialogs.pick("Resume session", labels)
        if picked is None:
            return
        if (await self.session.switch_session(str(sessions[picked].path))).get("cancelled"):
            self._show(render.notice(*_CANCELLED))
            return
        self.recap("Resumed session")

    async def tree(self, args: str) -> None:
        """``/tree``: every entry of the session file, to move the leaf to (no branch summary)."""
        from pi_cli.modes.tree_rows import flatten

        if not self._ready("tree", needs_file=False):
            return
        manager = self.session.store.manager
        if manager is None:
            self._show(render.notice(actions.NO_STORAGE.format(name="tree"), "yellow"))
            return
        leaf = manager.get_leaf_id()
        branch = {e["id"] for e in manager.iter_branch()} if leaf else set()
        rows = flatten(manager.get_tree(), branch)
        if not rows:
            self._show(render.notice("No entries in session", "dim"))
            return
        labels = [f"{row.prefix}{'•' if row.on_path else '·'} {row.text}" for row in rows]
        picked = await self._dialogs.pick("Session tree (• on the current branch)", labels)
        if picked is None:
            return
        target = rows[picked].entry_id
        if target == leaf:
            self._show(render.notice("Already at this point", "dim"))
            return
        result = await self.session.navigate_tree(target)
        if result.cancelled:
            self._show(render.notice("Navigation cancelled", "yellow"))
            return
        if result.editor_text is not None:
            self.set_editor_text(result.editor_text)
        self.recap("Navigated to selected point")

    async def fork(self, args: str) -> None:
        """``/fork``: a new session holding the history before a chosen user message, whose text
        goes back into the editor."""
        if not self._ready("fork"):
            return
        candidates = list(reversed(self.session.get_fork_messages()))[:LIST_LIMIT]
        if not candidates:
            self._show(render.notice("No messages to fork from", "dim"))
            return
        picked = await self._dialogs.pick("Fork from message", [" ".join(c["text"].split())[:100] for c in candidates])
        if picked is None:
            return
        result = await self.session.fork(candidates[picked]["entryId"])
        if result.get("cancelled"):
            self._show(render.notice(*_CANCELLED))
            return
        self.set_editor_text(str(result.get("text", "")))
        self.recap("Branched to new session (the message is back in the editor)")

    async def clone(self, args: str) -> None:
        if self._ready("clone"):
            if (await self.session.clone()).get("cancelled"):
                self._show(render.notice(*_CANCELLED))
                return
            self.recap("Cloned to new session")

    async def export(self, args: str) -> None:
        """``/export [path]``: HTML, or the active branch as JSONL for a ``.jsonl`` path."""
        path = await actions.export_session(self.session, args)
        self._show(render.notice(f"Session exported to: {path}", "green"))

    async def share(self, args: str) -> None:
        """``/share``: the session's page as a secret gist through ``gh``; prints the link."""
        from pi_cli.modes.share import share_session

        self._show(render.notice("Sharing: uploading the session as a secret gist…", "dim"))
        url = await share_session(self.session)
        self._show(render.notice(f"Shared: {url}", "green"))
