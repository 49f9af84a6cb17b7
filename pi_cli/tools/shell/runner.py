"""Running a shell command the way the ``bash`` tool and the user's ``!cmd`` need.

The command runs as ``<shell> -c <command>`` in ``cwd`` with stdin from /dev/null, stdout and
stderr merged into one pipe (so output keeps its arrival order), in a new session and therefore
its own process group. Abort and timeout send SIGKILL to the whole group — background children
(``sleep 100 &``) and commands that ignore SIGTERM included — and the run returns without waiting
for pipes that a process outside the group may still hold open. After a normal exit, output still in
flight is drained until end-of-file, until the pipe has been quiet for ``DRAIN_IDLE_SECONDS`` or for at most
``DRAIN_MAX_SECONDS`` (a background job that keeps the pipe open must not hang the tool); then the
pipe is closed and such a job gets SIGPIPE on its next write.
"""

from __future__ import annotations

import asyncio
import atexit
import codecs
import contextlib
import os
import shutil
import signal as signals
import time
from collections.abc import Callable
from dataclasses import dataclass

from pi_cli.ai.abort import AbortSignal
from pi_cli.sandbox.protocol import ProcessConfinement
from pi_cli.tools.operations import ShellEnded, ShellOperations
from pi_cli.tools.shell.output import OutputCollector
from pi_cli.tools.truncate import TruncationResult

DRAIN_IDLE_SECONDS = 0.1
# ... and never longer than this in total (a background job may keep writing forever).
DRAIN_MAX_SECONDS = 1.0
# After SIGKILL the shell is gone at once; give the pipe this long to reach EOF, then stop waiting.
KILL_SETTLE_SECONDS = 0.1
_POSIX_SHELLS = {"bash", "zsh", "sh", "dash", "ksh", "mksh", "ash"}


def default_shell() -> str:
    """``$SHELL`` when it is a POSIX-style shell that exists, else bash, else ``/bin/sh``.

    Models write bash syntax, so fish, nu, csh and the like are not used even if they are the
    user's login shell.
    """
    user_shell = os.environ.get("SHELL", "")
    if os.path.basename(user_shell) in _POSIX_SHELLS and os.access(user_shell, os.X_OK):
        return user_shell
    return shutil.which("bash") or "/bin/sh"


@dataclass(slots=True)
class BashRunResult:
    """Outcome of :func:`run_bash`.

    ``output`` is the tail-truncated text (without any notice); ``exit_code`` is ``None`` when the
    run was aborted or timed out, 128+N when the shell died of signal N. The untruncated output is
    in ``full_output_path`` whenever ``truncation.truncated``.
    """

    output: str
    exit_code: int | None
    cancelled: bool
    timed_out: bool
    truncation: TruncationResult
    full_output_path: str | None
    notice: str
    total_bytes: int

    @property
    def truncated(self) -> bool:
        return self.truncation.truncated


class _Protocol(asyncio.SubprocessProtocol):
    def __init__(self, on_data: Callable[[bytes], None]) -> None:
        self._on_data = on_data
        self.exited = asyncio.Event()
        self.eof = asyncio.Event()
        self.last_data = time.monotonic()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        self.last_data = time.monotonic()
        self._on_data(data if isinstance(data, bytes) else data.encode())

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.eof.set()

    def process_exited(self) -> None:
        self.exited.set()


# Process groups of commands still running, so they can be killed when pi itself exits: they run
# in their own sessions and would not get the terminal's SIGHUP.
_running_groups: set[int] = set()


def kill_tracked_process_groups() -> None:
    """SIGKILL every command group still running (for exit paths and SIGTERM/SIGHUP handlers)."""
    for pgid in list(_running_groups):
        _kill_group(pgid)
    _running_groups.clear()


atexit.register(kill_tracked_process_groups)


def _require_cwd(cwd: str) -> None:
    if not os.path.isdir(cwd):
        raise FileNotFoundError(f"Working directory does not exist: {cwd}")


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signals.SIGKILL)


async def _wait_any(*events: asyncio.Event, timeout: float | None) -> None:
    """Return when any of ``events`` is set or ``timeout`` seconds have passed."""
    if any(e.is_set() for e in events):
        return
    tasks = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(tasks, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


async def run_bash(
    command: str,
    cwd: str,
    signal: AbortSignal | None = None,
    on_chunk: Callable[[str], None] | None = None,
    timeout: float | None = None,
    *,
    shell: str | None = None,
    env: dict[str, str] | None = None,
    collector: OutputCollector | None = None,
    on_activity: Callable[[], None] | None = None,
    confinement: ProcessConfinement | None = None,
    operations: ShellOperations | None = None,
) -> BashRunResult:
    """Run ``command`` and collect its output; never raises for a failing command.

    ``on_chunk`` receives each piece of output decoded as UTF-8 (invalid bytes → U+FFFD), for
    live display. ``on_activity`` is called after every chunk (the bash tool throttles its updates
    with it). ``timeout`` is in seconds. ``confinement`` starts the shell inside the sandbox
    (None: as pi does). ``operations`` (an extension's backend, e.g. a remote host) runs the
    command instead of a local shell; what it raises, other than abort and timeout, propagates.
    Raises ``OSError`` only if the shell cannot be started (e.g. ``cwd`` does not exist).
    """
    out = collector if collector is not None else OutputCollector()
    decoder = codecs.getincrementaldecoder("utf-8")("replace") if on_chunk is not None else None

    def on_data(data: bytes) -> None:
        out.feed(data)
        if decoder is not None and on_chunk is not None:
            text = decoder.decode(data)
            if text:
                on_chunk(text)
        if on_activity is not None:
            on_activity()

    if signal is not None and signal.aborted:
        return _finish(out, None, cancelled=True, timed_out=False)
    if operations is not None:  # an extension's backend (a remote host): no local process
        try:
            code = await operations.run(command, cwd, on_data, signal, timeout, env)
        except ShellEnded as ended:
            return _finish(out, None, cancelled=ended.how == "aborted", timed_out=ended.how == "timeout")
        finally:
            if decoder is not None and on_chunk is not None and (tail := decoder.decode(b"", final=True)):
                on_chunk(tail)
        return _finish(out, code, cancelled=False, timed_out=False)
    _require_cwd(cwd)

    loop = asyncio.get_running_loop()
    protocol = _Protocol(on_data)
    start = loop.subprocess_exec if confinement is None else confinement.subprocess_exec
    transport, _ = await start(
        lambda: protocol,
        shell or default_shell(),
        "-c",
        command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    pgid = transport.get_pid()  # leader of its own session, so its pid is the group id
    _running_groups.add(pgid)
    stop = asyncio.Event()
    reason: list[str] = []

    def kill(why: str) -> None:
        if not reason and not protocol.exited.is_set():
            reason.append(why)
        _kill_group(pgid)  # synchronous: the group is dead before abort() returns
        loop.call_soon_threadsafe(stop.set)

    remove_abort = signal.add_callback(lambda: kill("aborted")) if signal is not None else None
    timer = loop.call_later(timeout, kill, "timeout") if timeout is not None and timeout > 0 else None
    try:
        await _wait_any(protocol.exited, stop, timeout=None)
        if reason:
            # Killed: wait only briefly for exit and EOF, then let go of the pipe.
            await _wait_any(protocol.exited, timeout=KILL_SETTLE_SECONDS)
            await _wait_any(protocol.eof, timeout=KILL_SETTLE_SECONDS / 2)
        else:
            exited_at = time.monotonic()
            deadline = exited_at + DRAIN_MAX_SECONDS
            while not protocol.eof.is_set() and not stop.is_set():
                now = time.monotonic()
                # Quiet time counts from the exit at the earliest: output written just before the
                # exit may not have been read yet when the exit is reported.
                idle = now - max(protocol.last_data, exited_at)
                if idle >= DRAIN_IDLE_SECONDS or now >= deadline:
                    break
                await _wait_any(protocol.eof, stop, timeout=min(DRAIN_IDLE_SECONDS - idle, deadline - now))
    except BaseException:
        _kill_group(pgid)  # cancelled from outside: never leave the group running
        raise
    finally:
        _running_groups.discard(pgid)
        if timer is not None:
            timer.cancel()
        if remove_abort is not None:
            remove_abort()
        transport.close()
        if decoder is not None and on_chunk is not None:
            tail = decoder.decode(b"", final=True)
            if tail:
                on_chunk(tail)

    code = transport.get_returncode()
    if reason:
        return _finish(out, None, cancelled=reason[0] == "aborted", timed_out=reason[0] == "timeout")
    if code is not None and code < 0:
        code = 128 - code
    return _finish(out, code, cancelled=False, timed_out=False)


def _finish(out: OutputCollector, code: int | None, *, cancelled: bool, timed_out: bool) -> BashRunResult:
    truncation = out.truncation()
    out.close()
    return BashRunResult(
        output=truncation.content,
        exit_code=code,
        cancelled=cancelled,
        timed_out=timed_out,
        truncation=truncation,
        full_output_path=out.full_output_path,
        notice=out.notice(truncation),
        total_bytes=out.total_bytes,
    )
