"""Process-level plumbing shared by the non-interactive modes (print, json, rpc).

SIGTERM and SIGHUP abort the running agent (which kills tool and user bash process groups) and
make the process exit with pi's codes, 143 and 129. :func:`run_with_signals` runs a mode's body
with those handlers installed and returns the exit code.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

EXIT_SIGTERM = 143
EXIT_SIGHUP = 129


def write_notices(session: AgentSession) -> None:
    """Start-up notices (warnings, the demo-model note) to stderr, so stdout stays the mode's own."""
    for notice in session.startup_notices:
        sys.stderr.write(notice + "\n")
    sys.stderr.flush()


async def run_with_signals(session: AgentSession, body: Callable[[], Awaitable[int]]) -> int:
    """Run ``body``; a SIGTERM/SIGHUP aborts the session and ends it with 143/129."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(body())
    code_box: list[int] = []
    stoppers: list[asyncio.Future[None]] = []

    def on_signal(code: int) -> None:
        if code_box:
            return
        code_box.append(code)
        with contextlib.suppress(Exception):
            session.abort_bash()

        async def stop() -> None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(session.abort(), timeout=1.0)
            task.cancel()

        stoppers.append(asyncio.ensure_future(stop()))

    installed: list[signal.Signals] = []
    for signum, code in ((signal.SIGTERM, EXIT_SIGTERM), (signal.SIGHUP, EXIT_SIGHUP)):
        try:
            loop.add_signal_handler(signum, on_signal, code)
            installed.append(signum)
        except (NotImplementedError, RuntimeError, ValueError):  # pragma: no cover - non-Unix
            pass
    try:
        return await task
    except asyncio.CancelledError:
        if code_box:
            return code_box[0]
        raise
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)
        if code_box:
            return code_box[0]  # noqa: B012 - a signal decides the exit code whatever happened
