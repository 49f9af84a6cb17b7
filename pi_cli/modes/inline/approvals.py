"""Questions in inline mode: the approval gate's, extensions', and the commands' choices.

When a tool call asks, the question (the command or the coloured diff) and numbered answers are
printed; the next submitted line that is one of those numbers answers it. Any other line keeps its
usual meaning, so while the question waits, Enter still queues steering and Ctrl-C still aborts
the run (which withdraws the question). "Deny with a message" then takes the next line as the
message (Ctrl-C withdraws it too). A command's choice (:meth:`InlineApprovals.pick`) works the same
way, but Ctrl-C or a line that is not a number cancels it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text

from pi_cli.modes.display import question_line_styles
from pi_cli.modes.inline import render
from pi_cli.permissions.policy import MODE_DETAILS

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

Show = Callable[[RenderableType], None]


ANSWER_HINT = "Type 1–{n} and Enter · other text steers · Ctrl-C aborts"
PICK_HINT = "Type 1–{n} and Enter · Ctrl-C or other text cancels"


def question_block(title: str, options: list[str], hint: str = ANSWER_HINT) -> RenderableType:
    """The question with diff lines coloured, then ``1. answer`` lines and how to answer."""
    text = Text()
    for line, style in question_line_styles(title, "bold yellow"):
        text.append(line + "\n", style=style)
    for number, label in enumerate(options, 1):
        text.append(f"  {number}. {label}\n", style="bold" if number == 1 else "")
    text.append(hint.format(n=len(options)), style="dim")
    return text


class InlineApprovals:
    """The gate's dialogs for inline mode (an :class:`~pi_cli.permissions.gate.ApprovalUI`)."""

    def __init__(self, show: Show, invalidate: Callable[[], None]) -> None:
        self._show = show
        self._invalidate = invalidate
        self._pending: asyncio.Future[str | None] | None = None
        self._options: list[str] | None = None  # None: free text (a message) answers
        self._cancel_on_other_text = False  # a command's pick: a line that is no answer cancels it
        self._picked = -1  # the index of the last numbered answer (labels may repeat)

    @property
    def waiting(self) -> bool:
        return self._pending is not None and not self._pending.done()

    def cancel(self) -> bool:
        """Withdraw the waiting question (it answers None); False when nothing waits."""
        if not self.waiting or self._pending is None:
            return False
        self._pending.set_result(None)
        return True

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
            self._picked = int(answer) - 1
            self._pending.set_result(self._options[self._picked])
            self._show(render.notice(f"→ {self._options[self._picked]}", "dim"))  # the answer, in scrollback
            return True
        if self._cancel_on_other_text:
            self._pending.set_result(None)
            self._show(render.notice("Cancelled", "dim"))
            return not answer  # an empty line only cancels; other text then goes on as typed
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

    async def pick(self, title: str, options: list[str]) -> int | None:
        """A command's choice (``/resume``, ``/model`` …): the index picked, or None when the user
        cancels (Ctrl-C, or any line that is not one of the numbers)."""
        self._show(question_block(title, options, PICK_HINT))
        self._cancel_on_other_text = True
        try:
            answer = await self._wait(options)
        finally:
            self._cancel_on_other_text = False
        return None if answer is None else self._picked

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        self._show(render.notice(f"{title}: type it and press Enter (Ctrl-C aborts)", "yellow"))
        return await self._wait(None)


def cycle_mode(session: AgentSession, show: Show) -> None:
    """Alt+M: the next approval mode."""
    gate = session.permissions
    if gate is not None:
        mode = gate.cycle_mode()
        show(render.notice(f"Permissions: {mode} — {MODE_DETAILS[mode]}", "green"))
