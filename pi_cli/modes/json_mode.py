"""JSON mode (``--mode json``): the session header line, then every event as one JSON line.

Events are the AgentSession's (agent events plus ``queue_update``, ``auto_retry_*``, ...), written
unchanged with pi's field names; ``message_update`` deltas are coalesced (see
:mod:`pi_cli.modes.rpc.coalesce`). The exit code is 1 when a prompt is refused (no key) or the
last answer is an error (a 401, a dead server after the retries) — pi 1.6.0 exits 0 then, and a
script cannot tell; notices, and a line per retry as in print mode, go to stderr so stdout stays
pure JSONL.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from pi_cli.errors import PiError
from pi_cli.modes.print_mode import send_all, write_retry_progress
from pi_cli.modes.rpc.coalesce import UpdateCoalescer
from pi_cli.modes.rpc.jsonl import JsonlWriter
from pi_cli.modes.rpc.lifecycle import run_with_signals, write_notices

if TYPE_CHECKING:
    from pi_cli.ai.types import ImageContent
    from pi_cli.session.agent_session import AgentSession


async def run_json_mode(session: AgentSession, first: str, images: list[ImageContent], rest: list[str]) -> int:
    """Send ``first`` (with ``images``) then each of ``rest``, writing every event; returns the exit code
    (1 for a refused prompt, e.g. a missing key, or an answer that ended in an error)."""
    write_notices(session)
    writer = JsonlWriter()
    writer.write(session.store.header())
    coalescer = UpdateCoalescer(writer.write)
    unsubscribe = session.subscribe(coalescer.push)
    session.subscribe(write_retry_progress)  # the events say it too, but a person watching sees stderr

    async def body() -> int:
        try:
            await send_all(session, first, images, rest)
        except PiError as exc:
            coalescer.flush()
            sys.stderr.write(f"{exc}\n")
            return 1
        last = next((m for m in reversed(session.message_view()) if m.get("role") == "assistant"), None)
        if last is not None and last.get("stopReason") == "error":
            sys.stderr.write(f"Error: {last.get('errorMessage') or 'the model answered with an error'}\n")
            return 1
        return 0

    try:
        return await run_with_signals(session, body)
    finally:
        coalescer.flush()
        unsubscribe()
        await session.dispose()
