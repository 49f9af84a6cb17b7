"""Binding ``ctx.ui`` of the session's extensions (if any) to a terminal front end.

TUI and inline already ask the approval gate's questions (select/input); extensions reuse those
dialogs through :class:`pi_cli.extensions.ui.DialogUI`, and handler errors become transcript
notices. Nothing is imported when the session has no extensions.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.extensions.rendering.component import Present
    from pi_cli.session.agent_session import AgentSession


def bind_extension_ui(
    session: AgentSession,
    dialogs: Any,
    notify: Callable[[str, str], None],
    set_editor_text: Callable[[str], None] | None = None,
    on_change: Callable[[str, str], None] | None = None,
    *,
    mode: str = "tui",
    shutdown: Callable[[], None] | None = None,
    present: Present | None = None,
) -> Any:
    """Give the session's extension runner this front end's dialogs and notices; ``on_change(kind,
    key)`` is told of each status/widget change; ``mode`` (``"tui"``/``"inline"``) is ``ctx.mode``
    and ``shutdown`` serves ``ctx.shutdown()``; ``present`` shows ``ctx.ui.custom`` components
    (the TUI's or inline's; without one ``custom`` answers None after a notice). Returns the
    runner (None without extensions)."""
    runner = session.extensions
    if runner is None:
        return None
    from pi_cli.extensions.ui import DialogUI

    runner.ui = DialogUI(dialogs, notify, set_editor_text, on_change, present, runner.theme)
    runner.mode = mode
    runner.shutdown_handler = shutdown

    def report(record: dict[str, Any]) -> None:
        notify(f"Extension error ({record['extensionPath']}, {record['event']}): {record['error']}", "error")

    runner.on_error = report
    return runner


async def wait_until_idle(session: AgentSession) -> None:
    """Until the session has no run (its queued steering and follow-ups included): polled, since
    the run may start again from its queues between two events."""
    while session.is_streaming:
        await asyncio.sleep(0.05)


_held: set[asyncio.Task[None]] = set()  # quit requests in flight (a task nobody holds may be collected)


def quit_when_idle(session: AgentSession, quit_app: Callable[[], Any]) -> Callable[[], None]:
    """``ctx.shutdown()`` for a terminal front end: as pi, the quit waits until the agent is idle;
    ``quit_app`` (sync or async) is the front end's own quit, which disposes the session and so
    emits ``session_shutdown``."""

    def request() -> None:
        async def wait_then_quit() -> None:
            await wait_until_idle(session)
            result = quit_app()
            if inspect.isawaitable(result):
                await result

        task = asyncio.get_running_loop().create_task(wait_then_quit())
        _held.add(task)
        task.add_done_callback(_held.discard)

    return request


async def extensions_quit(session: AgentSession) -> None:
    """Every way out of a terminal front end (``/quit``, Ctrl-C twice, Ctrl-D, ``ctx.shutdown()``):
    extensions hear ``session_shutdown`` (pi's ``reason: "quit"``), bounded so a hanging handler
    cannot keep the terminal."""
    runner = session.extensions
    if runner is not None:
        with contextlib.suppress(Exception):  # quitting anyway; the runner reports handler errors
            await asyncio.wait_for(runner.shutdown(), timeout=3.0)


MAX_WIDGET_LINES = 10  # per widget, as pi: a chatty extension must not push the editor off screen


def status_line(statuses: dict[str, str]) -> str:
    """pi's footer line of extension statuses: sorted by key, each flattened to one line (control
    sequences dropped), joined by a space; empty when there are none."""
    from pi_cli.tools.sanitize import strip_control_sequences

    parts = (" ".join(strip_control_sequences(statuses[key]).split()) for key in sorted(statuses))
    return " ".join(part for part in parts if part)


def widget_lines(lines: list[str]) -> list[str]:
    """One widget's lines as shown above the editor: plain text, at most ``MAX_WIDGET_LINES``."""
    from pi_cli.tools.sanitize import strip_control_sequences

    rows = [row for line in lines for row in strip_control_sequences(line).replace("\t", "    ").split("\n")]
    shown = rows[:MAX_WIDGET_LINES]
    if len(rows) > MAX_WIDGET_LINES:
        shown.append("... (widget truncated)")
    return shown
