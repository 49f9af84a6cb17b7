"""The ``/resume`` (and ``pi -r``) session picker.

Lists the sessions of this project (Tab: all projects), most recently active first. Typing
filters on the name, the first message and the text of all messages. Enter dismisses with the
chosen file's path; Escape with None. Ctrl-N shows named sessions only. Ctrl-R renames the
highlighted session (the search field becomes the name field: Enter saves, Escape cancels);
Ctrl-D asks ``Delete session?`` and deletes the file only after Enter or ``y`` (any other key
cancels). The session that is open cannot be deleted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Key
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from pi_cli.modes.interactive.screens.sheet import BottomSheet, list_keys
from pi_cli.store.catalog import SessionInfo, delete_session, list_all_sessions, list_sessions, rename_session, threaded

Loader = Callable[[bool], list[SessionInfo]]
HINT = "enter open · tab all projects · ctrl+n named only · ctrl+r rename · ctrl+d delete · esc cancel"


def default_loader(cwd: str | Path, session_dir: str | Path | None) -> Loader:
    """Sessions of ``cwd`` (in ``session_dir`` when given), or of every project when asked."""

    def load(all_projects: bool) -> list[SessionInfo]:
        return list_all_sessions() if all_projects else list_sessions(cwd, session_dir)

    return load


def age(ms: int, now_ms: int | None = None) -> str:
    """``5m``, ``3h``, ``2d`` … since ``ms`` (epoch milliseconds)."""
    seconds = max(0, ((now_ms if now_ms is not None else int(time.time() * 1000)) - ms) // 1000)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return "now"


def matches(info: SessionInfo, query: str) -> bool:
    """Every word of ``query`` occurs in the name, first message or message text (any case)."""
    haystack = f"{info.name or ''} {info.first_message} {info.all_messages_text} {info.id}".lower()
    return all(word in haystack for word in query.lower().split())


def row_text(info: SessionInfo, width: int, show_cwd: bool) -> str:
    """One line: title (name or first message), then count, age and (all projects) the cwd."""
    title = " ".join((info.name or info.first_message).split())
    detail = f"{info.message_count} msgs · {age(info.modified)}"
    if show_cwd:
        detail += f" · {info.cwd}"
    room = max(10, width - len(detail) - 4)
    if len(title) > room:
        title = title[: room - 1] + "…"
    return f"{title.ljust(room)}  {detail}"


class ResumeScreen(BottomSheet[str | None]):
    """Pick a session file; dismisses with its path (as text) or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *list_keys("Open"),
        Binding("tab", "toggle_scope", "All projects", priority=True),
        Binding("ctrl+n", "toggle_named", "Named only", priority=True),
        Binding("ctrl+r", "rename", "Rename", priority=True),
        Binding("ctrl+d", "delete", "Delete", priority=True),
    ]

    DEFAULT_CSS = """
    ResumeScreen > Vertical { max-height: 90%; }
    ResumeScreen #resume-title { color: $text-muted; height: 1; }
    ResumeScreen #resume-status { color: $text-muted; height: auto; }
    ResumeScreen OptionList, ResumeScreen OptionList:focus {
        border: none; height: auto; max-height: 20; background: $surface;
    }
    """

    def __init__(self, loader: Loader, current_file: str | None = None) -> None:
        super().__init__()
        self.loader = loader
        self.current_file = str(Path(current_file).resolve()) if current_file else None
        self.all_projects = False
        self.named_only = False
        self.sessions: list[SessionInfo] = []
        self.shown: list[SessionInfo] = []
        self.mode = "browse"  # browse | rename | confirm
        self.query_text = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Resume session (this project)", id="resume-title")
            yield Input(placeholder="type to search", id="resume-search")
            yield OptionList(id="resume-list")
            yield Static(HINT, id="resume-status")

    async def on_mount(self) -> None:
        self.query_one(Input).focus()
        await self.reload()

    async def reload(self) -> None:
        """Read the session list again (after a scope change, rename or delete)."""
        self.sessions = await asyncio.to_thread(self.loader, self.all_projects)
        scope = "all projects" if self.all_projects else "this project"
        self._fill()
        named = ", named only" if self.named_only else ""
        self.query_one("#resume-title", Static).update(f"Resume session ({scope}{named}) · {len(self.shown)} sessions")

    def _fill(self) -> None:
        # A subagent's child session (and a fork) hangs under its parent, indented.
        rows = [
            (info, depth)
            for info, depth in threaded(self.sessions)
            if matches(info, self.query_text) and (info.name is not None or not self.named_only)
        ]
        self.shown = [info for info, _ in rows]
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        width = max(40, self.size.width - 4)
        options.add_options(
            [Option("  " * depth + ("↳ " if depth else "") + row_text(info, width - 2 * depth - (2 if depth else 0),
                    self.all_projects)) for info, depth in rows]
        )  # fmt: skip
        if self.shown:
            options.highlighted = min(highlighted or 0, len(self.shown) - 1)

    def selected(self) -> SessionInfo | None:
        index = self.query_one(OptionList).highlighted
        return self.shown[index] if index is not None and index < len(self.shown) else None

    def _status(self, text: str = HINT) -> None:
        self.query_one("#resume-status", Static).update(text)

    def _is_current(self, info: SessionInfo) -> bool:
        return self.current_file is not None and str(info.path.resolve()) == self.current_file

    # --- input ------------------------------------------------------------------------------

    @on(Input.Changed, "#resume-search")
    def _search(self, event: Input.Changed) -> None:
        if self.mode == "browse":
            self.query_text = event.value
            self._fill()

    def on_key(self, event: Key) -> None:
        if self.mode != "confirm":
            return
        event.stop()
        event.prevent_default()
        if event.character in ("y", "Y"):
            self.run_worker(self._delete_selected(), exclusive=True, group="resume-delete")
        else:
            self._leave_mode()

    def _leave_mode(self, status: str = HINT) -> None:
        self.mode = "browse"
        search = self.query_one(Input)
        search.placeholder = "type to search"
        search.value = self.query_text
        search.focus()
        self._status(status)

    async def _delete_selected(self) -> None:
        info = self.selected()
        if info is None:
            self._leave_mode()
            return
        try:
            delete_session(info.path)
        except OSError as exc:
            self._leave_mode(f"Could not delete {info.path}: {exc}")
            return
        self._leave_mode(f"Deleted {info.path.name}")
        await self.reload()

    # --- actions ----------------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        if self.mode == "confirm":
            self._leave_mode()
            return
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = ((options.highlighted or 0) + step) % options.option_count

    def action_toggle_scope(self) -> None:
        if self.mode != "browse":
            return
        self.all_projects = not self.all_projects
        self.run_worker(self.reload(), exclusive=True, group="resume-load")

    def action_toggle_named(self) -> None:
        if self.mode == "browse":
            self.named_only = not self.named_only
            self.run_worker(self.reload(), exclusive=True, group="resume-load")

    def action_rename(self) -> None:
        info = self.selected()
        if self.mode != "browse" or info is None:
            return
        self.mode = "rename"
        search = self.query_one(Input)
        search.placeholder = "session name"
        search.value = info.name or ""
        search.focus()
        self._status("Rename session: enter saves · esc cancels")

    def action_delete(self) -> None:
        info = self.selected()
        if self.mode != "browse" or info is None:
            return
        if self._is_current(info):
            self._status("Cannot delete the currently active session")
            return
        self.mode = "confirm"
        self.query_one(OptionList).focus()
        self._status(f"Delete session? [Enter/y] confirm · [Esc/n] cancel  {info.name or info.first_message}")

    async def action_choose(self) -> None:
        if self.mode == "confirm":
            await self._delete_selected()
            return
        info = self.selected()
        if self.mode == "rename":
            name = self.query_one(Input).value.strip()
            if info is not None and name:
                try:
                    await asyncio.to_thread(rename_session, info.path, name)
                except (OSError, ValueError) as exc:
                    self._leave_mode(f"Could not rename: {exc}")
                    return
                self._leave_mode(f"Renamed to: {name}")
                await self.reload()
            else:
                self._leave_mode()
            return
        if info is not None:
            self.dismiss(str(info.path))

    def action_cancel(self) -> None:
        if self.mode != "browse":
            self._leave_mode()
            return
        self.dismiss(None)
