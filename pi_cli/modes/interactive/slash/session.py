"""Session commands of the interactive mode: ``/resume``, ``/tree``, ``/fork``, ``/clone``, and a
JSONL-aware ``/export``; plus the ``pi -r`` picker at start (:meth:`SessionCommands.open_resume`).

The app's ``CommandRunner`` maps the names to these handlers. Each command works on the
AgentSession's session manager (``session.store.manager``): the session file operations are the
AgentSession's own (``switch_session``, ``fork``, ``clone``); tree navigation uses
``AgentSession.navigate_tree`` (extensions' tree events included). After any of them the
transcript is rebuilt from the session's messages. Commands refuse to run while the agent works.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

# The screens and the branch summariser are imported by the commands that show them, not with the
# app: the first frame needs none of them (tests/test_layers.py keeps it so).
from pi_cli.ai.abort import AbortController
from pi_cli.modes.command_actions import BUSY, NO_STORAGE, export_session

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession
    from pi_cli.store.manager import SessionManager


T = TypeVar("T")


class SessionCommands:
    """The commands, bound to one app (``app.session``, ``app.transcript``, ``app.editor`` …)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    @property
    def session(self) -> AgentSession:
        session: AgentSession = self.app.session
        return session

    @property
    def manager(self) -> SessionManager | None:
        return self.session.store.manager

    async def _notice(self, text: str, kind: str = "info") -> None:
        await self.app.show_notice(text, kind)

    async def _ready(self, name: str, needs_file: bool = True) -> bool:
        if self.app.running:
            await self._notice(BUSY.format(name=name), "warning")
            return False
        if needs_file and (self.manager is None or not self.manager.persist):
            await self._notice(NO_STORAGE.format(name=name), "warning")
            return False
        return True

    def _ask(self, screen: Any, then: Callable[[Any], Awaitable[None]]) -> None:
        """Push ``screen``; run ``then(result)`` as a worker once it is dismissed."""

        def done(result: Any) -> None:
            self.app.run_worker(then(result), exclusive=True, group="session-command")

        self.app.push_screen(screen, done)

    async def reload_transcript(self) -> None:
        """Rebuild the transcript from the session's messages (after switch, fork, tree …)."""

        app = self.app
        await app.transcript.clear_entries()
        app.renderer.forget()
        await app.transcript.add(app.start_header(), app.start_header)
        messages = self.session.messages
        if messages:
            await app.renderer.load_history(messages)
        app.refresh_footer()
        app.refresh_queue()

    # --- /resume ----------------------------------------------------------------------------

    async def cmd_resume(self, args: str) -> None:
        if await self._ready("resume"):
            self.open_resume()

    def open_resume(self, at_start: bool = False) -> None:
        """Show the session picker. ``at_start`` (``pi -r``): cancelling it quits, as pi does."""
        from pi_cli.modes.interactive.screens.resume import ResumeScreen, default_loader

        manager = self.manager
        session_dir = manager.session_dir if manager is not None else None
        loader = default_loader(self.app.cwd, session_dir)

        async def chosen(path: str | None) -> None:
            if path is None and at_start:
                self.app.exit(0, message="No session selected")
            else:
                await self._resume_chosen(path)

        self._ask(ResumeScreen(loader, self.session.session_file), chosen)

    async def _attempt(self, failed: str, cancelled: str, operation: Awaitable[T]) -> T | None:
        """``operation``'s result; None after saying why there is none: ``failed`` with the error
        (the session stays as it was), or ``cancelled`` when an extension's before-event said so."""
        try:
            result = await operation
        except Exception as exc:
            await self._notice(f"{failed}: {exc}", "error")
            return None
        if isinstance(result, dict) and result.get("cancelled"):
            await self._notice(cancelled, "warning")
            return None
        return result

    async def _resume_chosen(self, path: str | None) -> None:
        if not path or path == self.session.session_file:
            return
        # a damaged or vanished file is said so, and the current session kept
        cancelled = "Resume cancelled by an extension"
        if await self._attempt("Could not open session", cancelled, self.session.switch_session(path)) is None:
            return
        await self.reload_transcript()
        await self._notice("Resumed session")

    # --- /tree ------------------------------------------------------------------------------

    async def cmd_tree(self, args: str) -> None:
        if await self._ready("tree", needs_file=False):
            await self.open_tree()

    async def open_tree(self, selected_id: str | None = None) -> None:
        """Show the navigator, with ``selected_id`` (default: the leaf) selected."""
        from pi_cli.modes.interactive.screens.tree import TreeScreen, flatten, initial_index

        manager = self.manager
        if manager is None:
            await self._notice(NO_STORAGE.format(name="tree"), "warning")
            return
        leaf = manager.get_leaf_id()
        branch = [e["id"] for e in manager.iter_branch()] if leaf else []
        rows = flatten(manager.get_tree(), set(branch))
        if not rows:
            await self._notice("No entries in session")
            return
        start = initial_index(rows, [selected_id] if selected_id else branch)
        self._ask(TreeScreen(rows, start, leaf), self._tree_chosen)

    async def _tree_chosen(self, entry_id: str | None) -> None:
        from pi_cli.compaction.branch_summary import collect_entries_for_branch_summary

        manager = self.manager
        if not entry_id or manager is None:
            return
        if entry_id == manager.get_leaf_id():
            await self._notice("Already at this point")
            return
        leaving, _ = collect_entries_for_branch_summary(manager, manager.get_leaf_id(), entry_id)
        if not leaving or self.session.settings.branch_summary.skip_prompt:
            await self.navigate(entry_id, summarize=False)
        else:
            self.ask_summary(entry_id)

    def ask_summary(self, entry_id: str) -> None:
        """pi's ``Summarize branch?`` choice; Escape goes back to the tree at the same entry."""
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem
        from pi_cli.modes.interactive.screens.tree import InstructionsScreen

        items = [PickItem("none", "No summary"), PickItem("summarize", "Summarize"),
                 PickItem("custom", "Summarize with custom prompt")]  # fmt: skip

        async def answered(choice: str | None) -> None:
            if choice is None:
                await self.open_tree(entry_id)
            elif choice == "custom":
                self._ask(InstructionsScreen("Custom summarization instructions"), instructed)
            else:
                await self.navigate(entry_id, summarize=choice == "summarize")

        async def instructed(text: str | None) -> None:
            if text is None:
                self.ask_summary(entry_id)
            else:
                await self.navigate(entry_id, summarize=True, instructions=text or None)

        self._ask(PickerScreen("Summarize branch?", items), answered)

    async def navigate(self, entry_id: str, *, summarize: bool, instructions: str | None = None) -> None:
        """Move the leaf to ``entry_id`` (pi's rules, see ``AgentSession.navigate_tree``, which also
        runs extensions' ``session_before_tree`` / ``session_tree``) and reload. While a summary is
        written, Escape aborts it and the tree opens again at the same entry."""
        from pi_cli.modes.interactive.screens.tree import SummarizingScreen

        session = self.session
        controller = AbortController()
        busy: SummarizingScreen | None = None
        if summarize:
            if session.model is None:
                await self._notice("No model available for summarization", "error")
                return
            busy = SummarizingScreen(controller.abort)
            await self.app.push_screen(busy)
        try:
            result = await session.navigate_tree(
                entry_id, summarize=summarize, custom_instructions=instructions, signal=controller.signal
            )
        except Exception as exc:  # summariser failures (network, no key) leave the tree unchanged
            await self._notice(f"Branch summarization failed: {exc}", "error")
            return
        finally:
            if busy is not None and busy is self.app.screen:
                await busy.dismiss(None)
        if result.aborted:
            await self._notice("Branch summarization cancelled")
            await self.open_tree(entry_id)
            return
        if result.cancelled:  # an extension's session_before_tree said no
            await self._notice("Navigation cancelled")
            return
        await self.reload_transcript()
        if result.editor_text is not None and not self.app.editor.text.strip():
            self.app.editor.set_text(result.editor_text)
        await self._notice("Navigated to selected point")
        await self.app.commands.rewind_commands.offer_file_restore(entry_id)  # issue 18: the files too

    # --- /fork and /clone ---------------------------------------------------------------------

    async def cmd_fork(self, args: str) -> None:
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        if not await self._ready("fork"):
            return
        candidates = list(self.session.get_fork_messages())
        if not candidates:
            await self._notice("No messages to fork from")
            return
        items = [PickItem(c["entryId"], " ".join(c["text"].split())[:120]) for c in reversed(candidates)]
        self._ask(PickerScreen("Fork from message", items), self._fork_chosen)

    async def _fork_chosen(self, entry_id: str | None) -> None:
        if not entry_id:
            return
        result = await self._attempt("Fork failed", "Fork cancelled by an extension", self.session.fork(entry_id))
        if result is None:
            return
        await self.reload_transcript()
        self.app.editor.set_text(str(result.get("text", "")))
        await self._notice("Branched to new session")

    async def cmd_clone(self, args: str) -> None:
        if not await self._ready("clone"):
            return
        # A worker, as the other session commands' second halves: session_before_fork handlers
        # may ask through a dialog, which needs the app's message loop free.
        self.app.run_worker(self._clone(), exclusive=True, group="session-command")

    async def _clone(self) -> None:
        if await self._attempt("Clone failed", "Clone cancelled by an extension", self.session.clone()) is None:
            return
        await self.reload_transcript()
        self.app.editor.set_text("")
        await self._notice("Cloned to new session")

    # --- /export ------------------------------------------------------------------------------

    async def cmd_export(self, args: str) -> None:
        """HTML by default; a ``.jsonl`` path writes the active branch as a standalone session."""
        path = await self._attempt("Export failed", "", export_session(self.session, args))
        if path is not None:
            await self._notice(f"Session exported to: {path}")

    async def cmd_share(self, args: str) -> None:
        """Upload the session's page as a secret gist through ``gh`` and show the link."""
        from pi_cli.modes.share import share_session

        await self._notice("Sharing: uploading the session as a secret gist…")
        url = await self._attempt("Share failed", "", share_session(self.session))
        if url is not None:
            await self._notice(f"Shared: {url}")
