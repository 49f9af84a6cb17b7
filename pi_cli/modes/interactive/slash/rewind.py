"""``/rewind`` in the TUI (issue 18): back to before a user message, files and/or conversation.

``/rewind`` lists the user messages (newest first, as ``/fork`` does), marking those with a file
checkpoint. Choosing one lists the files restoring would change (modified, created, deleted: the
first ``_FILES_SHOWN`` of them, then a count) above the choices, and counts them in the options'
detail, then offers "Conversation and files", "Files only" or "Conversation only"
(only the last when no checkpoint covers the message). Rewinding the conversation moves the leaf
to before the message and puts its text back in the editor; the restore is itself a checkpoint.
The work is done by ``session.checkpoints`` (pi_cli.session.checkpointing).
"""

from __future__ import annotations

from typing import Any

from pi_cli.session.checkpointing import change_lines, change_summary

_MODES = {"both": (True, True), "files": (True, False), "conversation": (False, True)}
_FILES_SHOWN = 12  # the picker stays on screen with the transcript behind it


def files_note(changes: dict[str, list[str]]) -> str:
    """The files a restore changes, one per line, at most ``_FILES_SHOWN`` then ``… and N more``."""
    lines = change_lines(changes)
    if not lines:
        return "Files: no changes to restore"
    shown = lines[:_FILES_SHOWN]
    if len(lines) > _FILES_SHOWN:
        shown.append(f"  … and {len(lines) - _FILES_SHOWN} more")
    return "\n".join(["Files to restore:", *shown])


class RewindCommands:
    """Handlers attached to the app's ``CommandRunner`` by :func:`register_rewind_commands`."""

    def __init__(self, app: Any, runner: Any) -> None:
        self.app = app
        self.runner = runner

    async def _notice(self, text: str, kind: str = "info") -> None:
        await self.app.show_notice(text, kind)

    async def cmd_rewind(self, args: str) -> None:
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        session = self.app.session
        if self.app.running:
            await self._notice("Cannot rewind while the agent is running", "warning")
            return
        if session.store.manager is None:
            await self._notice("/rewind needs a saved session (this one is in memory only).", "warning")
            return
        checkpoints = session.checkpoints
        candidates = list(session.get_fork_messages())
        if not candidates:
            await self._notice("No messages to rewind to")
            return
        items = [
            PickItem(c["entryId"], " ".join(c["text"].split())[:120],
                     "files checkpointed" if checkpoints.checkpoint_for(c["entryId"]) else "no file checkpoint")
            for c in reversed(candidates)
        ]  # fmt: skip
        self.app.push_screen(PickerScreen("Rewind to before message", items), self._message_chosen)

    def _message_chosen(self, entry_id: str | None) -> None:
        if entry_id:
            self.app.run_worker(self._offer_modes(entry_id), exclusive=True, group="rewind")

    async def _offer_modes(self, entry_id: str) -> None:
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        checkpoints = self.app.session.checkpoints
        items: list[PickItem] = []
        note = ""
        if checkpoints.checkpoint_for(entry_id):
            try:
                preview = await checkpoints.preview(entry_id)
                summary, note = "files: " + change_summary(preview), files_note(preview)
            except Exception as exc:
                summary = f"files: cannot compare ({exc})"
            items += [PickItem("both", "Conversation and files", summary), PickItem("files", "Files only", summary)]
        items.append(PickItem("conversation", "Conversation only", "files stay as they are"))

        def chosen(mode: str | None) -> None:
            if mode in _MODES:
                self.app.run_worker(self._rewind(entry_id, mode), exclusive=True, group="rewind")

        self.app.push_screen(PickerScreen("Rewind", items, note=note), chosen)

    async def _rewind(self, entry_id: str, mode: str) -> None:
        files, conversation = _MODES[mode]
        try:
            result = await self.app.session.checkpoints.rewind(entry_id, files=files, conversation=conversation)
        except Exception as exc:
            await self._notice(f"Rewind failed: {exc}", "error")
            return
        if conversation:
            await self.runner.session_commands.reload_transcript()
            self.app.editor.set_text(str(result.get("text", "")))
        done = "Rewound" + (" conversation" if conversation else "")
        if files:
            done += (" and " if conversation else " ") + "files (" + change_summary(result["changes"]) + ")"
        await self._notice(done)

    async def offer_file_restore(self, entry_id: str) -> None:
        """After ``/tree`` moved to before user message ``entry_id``: when its checkpoint differs
        from the files now, ask whether to restore the files too (nothing is asked otherwise)."""
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        checkpoints = self.app.session.checkpoints
        if checkpoints is None or not checkpoints.checkpoint_for(entry_id):
            return
        try:
            preview = await checkpoints.preview(entry_id)
        except Exception:
            return  # the navigation itself succeeded; /rewind reports file problems in full
        if not any(preview.values()):
            return
        summary = "files: " + change_summary(preview)
        items = [PickItem("restore", "Restore files too", summary), PickItem("keep", "Keep files as they are")]

        def chosen(choice: str | None) -> None:
            if choice == "restore":
                self.app.run_worker(self._rewind(entry_id, "files"), exclusive=True, group="rewind")

        self.app.push_screen(PickerScreen("Restore files to this point?", items), chosen)
