"""``pi --mode acp``: serve ACP on stdin/stdout until the client closes stdin.

Stdout carries protocol messages only: the protocol writer gets a private duplicate of the
descriptor and descriptor 1 is pointed at stderr, so a stray ``print`` (an extension, a library)
cannot corrupt the stream. SIGTERM/SIGHUP end the process with 143/129 after aborting every run.
The first ``initialize`` is answered before the ACP SDK is imported (:mod:`.fast_init`), so an
editor sees the agent in about the time pi-acp takes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Any, cast

from pi_cli.modes.acp.fast_init import fast_answer
from pi_cli.modes.acp.transport import StdioTransport
from pi_cli.modes.rpc.lifecycle import EXIT_SIGHUP, EXIT_SIGTERM

# (cwd, session file to open or None for a new one, the client's MCP servers) -> AgentSession
SessionFactory = Callable[[Any, str | None, list[Any] | None], Any]


def _private_stdout() -> int:
    """A duplicate of stdout for the protocol; fd 1 then writes to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    return protocol_fd


async def run_acp_mode(make_session: SessionFactory, prepare: Callable[[], None] | None = None) -> int:
    """Serve until EOF (exit 0) or SIGTERM/SIGHUP (143/129). ``prepare`` runs once the first
    message is answered (start-up work the ``initialize`` answer need not wait for)."""
    transport = StdioTransport(sys.stdin.fileno(), _private_stdout())
    holder: dict[str, Any] = {}
    loop = asyncio.get_running_loop()
    serving = asyncio.ensure_future(_serve(transport, make_session, prepare, holder))
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
        if "agent" in holder:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(holder["agent"].close(), timeout=3.0)
        if "conn" in holder:
            with contextlib.suppress(Exception):
                await holder["conn"].close()
    return exit_code[0] if exit_code else 0


async def _serve(
    transport: StdioTransport, make_session: SessionFactory, prepare: Callable[[], None] | None, holder: dict[str, Any]
) -> None:
    """Answer a plain first ``initialize`` at once, then import the SDK and serve the rest; the
    agent still sees that ``initialize`` (it records the client's capabilities). ``holder`` gets
    the ``agent`` and ``conn`` for the shutdown."""
    first = await transport.receive()
    if first is None:
        return
    answer = fast_answer(first)
    if answer is not None:
        await transport.send(answer)
    if prepare is not None:
        prepare()
    from acp.agent.connection import AgentSideConnection

    from pi_cli.modes.acp.agent import PiAcpAgent

    agent = holder["agent"] = PiAcpAgent(make_session)
    if answer is not None:
        await agent.replay_initialize(first.get("params") or {})
    else:
        transport.push_back(first)
    conn = holder["conn"] = AgentSideConnection(cast(Any, agent), transport, listening=False)
    await conn.listen()
