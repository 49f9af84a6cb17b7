"""Permissions in inline mode: the approval question in scrollback, ``/permissions``, ``/trust``.

When a tool call asks, the question (the command or the coloured diff) and numbered answers are
printed; the next submitted line that is one of those numbers answers it. Any other line keeps its
usual meaning, so while the question waits, Enter still queues steering and Ctrl-C still aborts
the run (which withdraws the question). "Deny with a message" then takes the next line as the
message (Ctrl-C withdraws it too).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from pi_cli.modes.inline import render
from pi_cli.permissions.policy import MODE_DETAILS

Show = Callable[[RenderableType], None]


def question_block(title: str, options: list[str]) -> RenderableType:
    """The question with diff lines coloured, then ``1. answer`` lines and how to answer."""
    text = Text()
    for index, line in enumerate(title.split("\n")):
        style = "bold yellow" if index == 0 else ""
        if index and line[:1] == "+" and line[1:2] != "+":
            style = "green"
        elif index and line[:1] == "-" and line[1:2] != "-":
            style = "red"
        elif line.startswith("("):
            style = "dim"
        text.append(line + "\n", style=style)
    for number, label in enumerate(options, 1):
        text.append(f"  {number}. {label}\n", style="bold" if number == 1 else "")
    text.append(f"Type 1–{len(options)} and Enter · other text steers · Ctrl-C aborts", style="dim")
    return text


class InlineApprovals:
    """The gate's dialogs for inline mode (an :class:`~pi_cli.permissions.gate.ApprovalUI`)."""

    def __init__(self, show: Show, invalidate: Callable[[], None]) -> None:
        self._show = show
        self._invalidate = invalidate
        self._pending: asyncio.Future[str | None] | None = None
        self._options: list[str] | None = None  # None: free text (a message) answers

    @property
    def waiting(self) -> bool:
        return self._pending is not None and not self._pending.done()

    def offer(self, text: str) -> bool:
        """Let a submitted line answer the waiting question; False when it is not an answer."""
        if not self.waiting or self._pending is None:
            return False
        answer = text.strip()
        if self._options is None:
            if not answer:
                return False
            self._pending.set_result(answer)
            return True
        if answer.isdigit() and 1 <= int(answer) <= len(self._options):
            self._pending.set_result(self._options[int(answer) - 1])
            return True
        return False

    async def _wait(self, options: list[str] | None) -> str | None:
        self._pending = asyncio.get_running_loop().create_future()
        self._options = options
        self._invalidate()
        try:
            return await self._pending
        except asyncio.CancelledError:  # the run was aborted while the question waited
            self._show(render.notice("Question withdrawn", "dim"))
            raise
        finally:
            self._pending = None
            self._invalidate()

    async def select(self, title: str, options: list[str]) -> str | None:
        self._show(question_block(title, options))
        return await self._wait(options)

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        self._show(render.notice(f"{title}: type it and press Enter (Ctrl-C aborts)", "yellow"))
        return await self._wait(None)


async def permissions_command(session: Any, args: str, show: Show) -> None:
    """``/permissions [auto|ask|read-only]``: show or set the approval mode for this session."""
    gate = getattr(session, "permissions", None)
    if gate is None:
        show(render.notice("Permissions are not available in this session.", "dim"))
        return
    if not args:
        lines = [f"{'●' if mode == gate.mode else ' '} {mode:10} {detail}" for mode, detail in MODE_DETAILS.items()]
        show(render.notice("Tool approval mode (/permissions <mode>, Alt+M cycles):\n" + "\n".join(lines), "default"))
        return
    if args not in MODE_DETAILS:
        show(render.error_block(f"Unknown permissions mode: {args} (use auto, ask or read-only)"))
        return
    gate.mode = args
    show(render.notice(f"Permissions: {args} — {MODE_DETAILS[args]}", "green"))


async def trust_command(session: Any, args: str, show: Show) -> None:
    """``/trust``: the saved decision; ``/trust yes|parent|no`` saves one for future pi processes."""
    from pi_cli.config.paths import agent_dir
    from pi_cli.permissions.trust import is_project_trusted, trust_options
    from pi_cli.permissions.trust_store import TrustStore, TrustStoreError

    cwd = str(session.cwd)
    store = TrustStore(agent_dir())
    options = trust_options(cwd)
    choice = {"yes": options[0], "no": options[-1]}
    if len(options) == 3:
        choice["parent"] = options[1]
    try:
        if args in choice:
            store.set_many(choice[args].updates)
            verdict = "trusted" if choice[args].trusted else "untrusted"
            show(render.notice(f"Saved trust decision: {verdict}. Restart pi for this to take effect.", "green"))
            return
        saved = store.entry(cwd)
    except TrustStoreError as exc:
        show(render.error_block(str(exc)))
        return
    saved_text = "none" if saved is None else f"{'trusted' if saved.decision else 'untrusted'} ({saved.path})"
    current = "trusted" if is_project_trusted(cwd) else "untrusted"
    usage = " | ".join(f"/trust {key}" for key in choice)
    lines = [f"Project trust: {cwd}", f"Saved decision: {saved_text}", f"Current session: {current}", usage]
    show(render.notice("\n".join(lines), "default"))


def cycle_mode(session: Any, show: Show) -> None:
    """Alt+M: the next approval mode."""
    gate = getattr(session, "permissions", None)
    if gate is not None:
        mode = gate.cycle_mode()
        show(render.notice(f"Permissions: {mode} — {MODE_DETAILS[mode]}", "green"))
