"""``pi --mode acp``: serve ACP on stdin/stdout until the client closes stdin.

Stdout carries protocol messages only: the protocol writer gets a private duplicate of the
descriptor and descriptor 1 is pointed at stderr, so a stray ``print`` (an extension, a library)
cannot corrupt the stream. SIGTERM/SIGHUP end the process with 143/129 after aborting every run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from typing import Any, cast

from acp.agent.connection import AgentSideConnection

from pi_cli.modes.acp.agent import PiAcpAgent, SessionFactory
from pi_cli.modes.acp.transport import StdioTransport
from pi_cli.modes.rpc.lifecycle import EXIT_SIGHUP, EXIT_SIGTERM


def _private_stdout() -> int:
    """A duplicate of stdout for the protocol; fd 1 then writes to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    return protocol_fd


async def run_acp_mode(make_session: SessionFactory) -> int:
    """Serve until EOF (exit 0) or SIGTERM/SIGHUP (143/129)."""
    transport = StdioTransport(sys.stdin.fileno(), _private_stdout())
    agent = PiAcpAgent(make_session)
    conn = AgentSideConnection(cast(Any, agent), transport, listening=False)
    loop = asyncio.get_running_loop()
    serving = asyncio.ensure_future(conn.listen())
    exit_code: list[int] = []

    def on_signal(code: int) -> None:
        if not exit_code:
            exit_code.append(code)
            serving.cancel()

    for signum, code in ((signal.SIGTERM, EXIT_SIGTERM), (signal.SIGHUP, EXIT_SIGHUP)):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, on_signal, code)
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await serving
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(agent.close(), timeout=3.0)
        with contextlib.suppress(Exception):
            await conn.close()
    return exit_code[0] if exit_code else 0
