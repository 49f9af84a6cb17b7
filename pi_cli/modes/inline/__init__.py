"""Inline mode (``pi --inline``): the agent in the terminal's own scrollback, on prompt_toolkit."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession


async def run_inline(session: AgentSession, initial_messages: list[str] | None = None) -> int:
    """Run inline mode until the user quits; returns the process exit code.

    Needs a terminal on stdin and stdout; otherwise it says to use ``-p`` and returns 1.
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("pi --inline needs a terminal; use -p (print mode) for scripts and pipes.", file=sys.stderr)
        return 1
    from pi_cli.config.paths import agent_dir
    from pi_cli.modes.inline.app import InlineApp, default_history

    app = InlineApp(session, history=default_history(agent_dir()))
    return await app.run(initial_messages)
