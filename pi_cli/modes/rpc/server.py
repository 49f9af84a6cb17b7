"""RPC mode (``--mode rpc``): JSONL commands on stdin, responses and events on stdout.

* Every command may carry ``id``; its response echoes it. Events never carry an id.
* A line that is not JSON → ``{"type":"response","command":"parse","success":false,
  "error":"Failed to parse command: ..."}`` (no id); an unknown ``type`` → ``Unknown command: <type>``
  (with the id, as pi 1.6.0); an invalid payload or a handler error → a failure response with the command's id.
  The loop always goes on.
* Commands run as tasks in arrival order, so ``abort``/``abort_bash`` work while a ``bash``
  command or a prompt is running. ``prompt`` answers after preflight, before ``agent_start``.
* ``message_update`` events are coalesced (see :mod:`.coalesce`).
* EOF on stdin: abort whatever runs and exit 0 (pi shuts down the same way).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import TYPE_CHECKING, Any

from pi_cli.errors import PiError
from pi_cli.modes.rpc.coalesce import UpdateCoalescer
from pi_cli.modes.rpc.dialogs import RpcDialogs
from pi_cli.modes.rpc.handlers import handle_command
from pi_cli.modes.rpc.jsonl import JsonlWriter, start_record_reader
from pi_cli.modes.rpc.lifecycle import run_with_signals, write_notices
from pi_cli.modes.rpc.protocol import CommandError, UnknownCommand, failure, parse_command

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class RpcServer:
    """pi's RPC protocol over stdin/stdout for one session: each command line is handled in its own
    task (so ``abort`` or ``steer`` can arrive mid-run), events and responses share one ordered writer."""

    def __init__(self, session: AgentSession, writer: JsonlWriter | None = None) -> None:
        self.session = session
        self.writer = writer or JsonlWriter()
        self.coalescer = UpdateCoalescer(self.output)
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe = session.subscribe(self.coalescer.push)
        self.dialogs = RpcDialogs(self.respond)
        if session.permissions is not None:  # the tool approval gate asks through RPC dialogs
            session.permissions.ui = self.dialogs
        self.extensions = session.extensions
        if self.extensions is not None:  # ctx.ui as extension_ui_request; handler errors as extension_error
            from pi_cli.modes.rpc.extension_ui import RpcExtensionUI

            self.extensions.ui = RpcExtensionUI(self.dialogs, self.respond)
            self.extensions.on_error = self.respond
            self.extensions.shutdown_handler = self.request_shutdown
        self._queue: asyncio.Queue[bytes | None] | None = None  # serve()'s command queue

    def output(self, obj: dict[str, Any]) -> None:
        self.writer.write(obj)

    def respond(self, obj: dict[str, Any]) -> None:
        # A response must not overtake the events that preceded it.
        self.coalescer.flush()
        self.output(obj)

    async def handle_line(self, record: bytes) -> None:
        """Parse and run one command line; always answers with one response (errors included)."""
        if not record.strip():
            return
        try:
            # NaN/Infinity are not JSON (a JavaScript client could not parse them echoed back in an id),
            # and absurd nesting raises RecursionError: both are parse errors, not crashes.
            obj = json.loads(record, parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            self.respond(failure(None, "parse", f"Failed to parse command: {exc}"))
            return
        if isinstance(obj, dict) and obj.get("type") == "extension_ui_response":
            self.dialogs.resolve(obj)  # an answer to a dialog (or a stale one: ignored)
            return
        try:
            command = parse_command(obj)
        except UnknownCommand as exc:
            self.respond(failure(exc.id, exc.command, exc.message))  # pi 1.6 echoes the id (0.73.1 did not)
            return
        except CommandError as exc:
            self.respond(failure(exc.id, exc.command, exc.message))
            return
        try:
            response = await handle_command(self, command)
        except PiError as exc:
            response = failure(command.id, command.type, str(exc))
        except Exception as exc:  # a handler bug must not kill the loop
            response = failure(command.id, command.type, f"{type(exc).__name__}: {exc}")
        self.respond(response)

    def request_shutdown(self) -> None:
        """An extension's ``ctx.shutdown()``: as pi, deferred to the next idle state — the
        session has settled and the commands in flight have answered — then serve() ends as at EOF."""

        async def when_idle() -> None:
            from pi_cli.modes.extension_bridge import wait_until_idle

            await wait_until_idle(self.session)
            others = [t for t in self._tasks if t is not asyncio.current_task()]
            if others:
                await asyncio.wait(others)
            if self._queue is not None:
                self._queue.put_nowait(None)

        self.spawn(when_idle())

    def spawn(self, coro: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def serve(self) -> int:
        """Read stdin until EOF, handling each line as it arrives; then shut down and return 0."""
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._queue = queue
        start_record_reader(sys.stdin.fileno(), queue, "rpc-stdin")
        if self.extensions is not None:
            self.spawn(self.extensions.start())
        while True:
            record = await queue.get()
            if record is None:
                break
            self.spawn(self.handle_line(record))
            # Let the handler run to its first await before reading on, so commands start in order.
            await asyncio.sleep(0)
        await self.shutdown()
        return 0

    async def shutdown(self) -> None:
        """Abort anything running (bounded to 2 s), cancel pending handlers, flush the last updates."""
        self.session.abort_bash()
        if self.session.is_streaming:
            with contextlib.suppress(Exception):  # exiting anyway: a stuck or failing abort must not block it
                await asyncio.wait_for(self.session.abort(), timeout=2.0)
        for task in list(self._tasks):
            task.cancel()
        self.coalescer.flush()
        self._unsubscribe()


async def run_rpc_mode(session: AgentSession) -> int:
    """Serve commands from stdin until EOF (exit 0) or SIGTERM/SIGHUP (143/129)."""
    write_notices(session)
    server = RpcServer(session)
    try:
        return await run_with_signals(session, server.serve)
    finally:
        server.coalescer.flush()
        await session.dispose()
