"""Starting processes inside a Landlock domain, at the cost of an ordinary spawn.

A Landlock domain (and ``no_new_privs``) belongs to a thread and is inherited by what that thread
starts. The obvious way — ``preexec_fn`` doing prctl + ``landlock_restrict_self`` in the child —
forces ``fork()`` instead of ``vfork()``: measured 4 ms per spawn from a 14 MB Python and 16 ms
from a 165 MB one (page tables are copied), and it runs Python in a forked child of a threaded
process. Instead, :class:`ConfinedSpawner` owns one thread that restricts *itself* once and then
only calls ``subprocess.Popen`` (which vforks): every child is born inside the domain, the spawn
costs what it costs unsandboxed (+≈0.1 ms for the hop to the thread), and no Python runs after
fork. The threads that run the agent are never restricted.

:class:`ConfinedTransport` wires such a Popen into asyncio with public APIs only (pipe transports,
a pidfd reader for the exit), shaped like the transport ``loop.subprocess_exec`` returns, so the
bash runner's protocol and ``asyncio.subprocess.Process`` work on it unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.thread import BrokenThreadPool
from typing import Any

from pi_cli.sandbox.landlock import LandlockError, Ruleset


class ConfinedSpawner:
    """A thread restricted by ``ruleset`` that starts processes on request. The ruleset's fd is
    closed once the thread is restricted; the domain lives on in the thread and its children."""

    def __init__(self, ruleset: Ruleset) -> None:
        self._failure: BaseException | None = None
        self._executor = ThreadPoolExecutor(
            1, thread_name_prefix="pi-sandbox", initializer=self._restrict, initargs=(ruleset,)
        )
        try:
            self._executor.submit(int).result()  # start the thread now: a failure shows here, not at a spawn
        except BrokenThreadPool:
            self._executor.shutdown(wait=False)
            raise LandlockError(1, f"could not enter the sandbox: {self._failure}") from None
        finally:
            ruleset.close()

    def _restrict(self, ruleset: Ruleset) -> None:
        try:
            ruleset.restrict_current_thread()
        except BaseException as exc:
            self._failure = exc
            raise

    def popen(self, args: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """``subprocess.Popen(args, **kwargs)`` (binary pipes) started from the sandboxed thread (blocking)."""
        return self._executor.submit(_popen, args, kwargs).result()

    async def apopen(self, args: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _popen, args, kwargs)

    def close(self) -> None:
        self._executor.shutdown(wait=False)


def _popen(args: list[str], kwargs: dict[str, Any]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(args, **kwargs)


class _ReadPipe(asyncio.Protocol):
    def __init__(self, owner: ConfinedTransport, fd: int) -> None:
        self.owner, self.fd = owner, fd

    def data_received(self, data: bytes) -> None:
        self.owner._pipe_data(self.fd, data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner._pipe_lost(self.fd, exc)


class _WritePipe(asyncio.BaseProtocol):
    def __init__(self, owner: ConfinedTransport) -> None:
        self.owner = owner

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner._pipe_lost(0, exc)

    def pause_writing(self) -> None:
        self.owner._protocol.pause_writing()

    def resume_writing(self) -> None:
        self.owner._protocol.resume_writing()


class ConfinedTransport(asyncio.SubprocessTransport):
    """A started Popen seen as asyncio's subprocess transport (see the module doc)."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, protocol: asyncio.SubprocessProtocol, popen: subprocess.Popen[bytes]
    ) -> None:
        super().__init__()
        self._loop = loop
        self._protocol = protocol
        self._popen = popen
        self._pipes: dict[int, asyncio.BaseTransport] = {}
        self._open_pipes: set[int] = set()
        self._pending: list[Callable[[], None]] | None = []  # events before connection_made
        self._returncode: int | None = None
        self._exit_waiters: list[asyncio.Future[int]] = []
        self._closing = False  # close() was called
        self._finished = False  # connection_lost was delivered
        self._pidfd: int | None = None

    async def _connect(self) -> None:
        popen, loop = self._popen, self._loop
        try:
            if popen.stdin is not None:
                self._pipes[0], _ = await loop.connect_write_pipe(lambda: _WritePipe(self), popen.stdin)
                self._open_pipes.add(0)
            for fd, pipe in ((1, popen.stdout), (2, popen.stderr)):
                if pipe is not None:
                    self._pipes[fd], _ = await loop.connect_read_pipe(functools.partial(_ReadPipe, self, fd), pipe)
                    self._open_pipes.add(fd)
            self._pidfd = os.pidfd_open(popen.pid)
            loop.add_reader(self._pidfd, self._on_exit)
        except BaseException:
            self.close()
            raise
        self._protocol.connection_made(self)
        pending, self._pending = self._pending or [], None
        for call in pending:
            call()

    def _later(self, call: Callable[[], None]) -> None:
        if self._pending is not None:
            self._pending.append(call)
        else:
            call()

    def _pipe_data(self, fd: int, data: bytes) -> None:
        self._later(lambda: self._protocol.pipe_data_received(fd, data))

    def _pipe_lost(self, fd: int, exc: Exception | None) -> None:
        def lost() -> None:
            self._open_pipes.discard(fd)
            self._protocol.pipe_connection_lost(fd, exc)
            self._try_finish()

        self._later(lost)

    def _on_exit(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        code = self._popen.poll()
        if code is None:  # readable pidfd means exited; poll once more to be sure it is reaped
            code = self._popen.wait()
        self._returncode = code

        def exited() -> None:
            self._protocol.process_exited()
            for waiter in self._exit_waiters:
                if not waiter.done():
                    waiter.set_result(code)
            self._exit_waiters.clear()
            self._try_finish()

        self._later(exited)

    def _try_finish(self) -> None:
        if self._returncode is not None and not self._open_pipes and not self._finished:
            self._finished = True
            self._protocol.connection_lost(None)

    async def _wait(self) -> int:
        """What ``asyncio.subprocess.Process.wait`` awaits."""
        if self._returncode is not None:
            return self._returncode
        waiter: asyncio.Future[int] = self._loop.create_future()
        self._exit_waiters.append(waiter)
        return await waiter

    # -- asyncio.SubprocessTransport -----------------------------------------------------------

    def get_pid(self) -> int:
        return self._popen.pid

    def get_returncode(self) -> int | None:
        return self._returncode

    def get_pipe_transport(self, fd: int) -> Any:
        return self._pipes.get(fd)

    def send_signal(self, signal: int) -> None:
        if self._returncode is None:
            self._popen.send_signal(signal)

    def terminate(self) -> None:
        self.send_signal(15)

    def kill(self) -> None:
        self.send_signal(9)

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        """Close the pipes; kill the process if it still runs (as asyncio's transport does). The
        exit is still reaped through the pidfd reader."""
        self._closing = True
        for pipe in self._pipes.values():
            pipe.close()
        if self._returncode is None and self._popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self._popen.kill()
        if self._pidfd is None and self._returncode is None:
            self._returncode = self._popen.poll()


async def confined_subprocess_exec(
    spawner: ConfinedSpawner,
    protocol_factory: Callable[[], asyncio.SubprocessProtocol],
    args: list[str],
    **kwargs: Any,
) -> tuple[ConfinedTransport, asyncio.SubprocessProtocol]:
    """``loop.subprocess_exec`` for a sandboxed process (``kwargs`` are Popen's)."""
    loop = asyncio.get_running_loop()
    popen = await spawner.apopen(args, **kwargs)
    protocol = protocol_factory()
    transport = ConfinedTransport(loop, protocol, popen)
    await transport._connect()
    return transport, protocol


async def confined_create_subprocess_exec(
    spawner: ConfinedSpawner, args: list[str], *, limit: int = 2**16, **kwargs: Any
) -> asyncio.subprocess.Process:
    """``asyncio.create_subprocess_exec`` for a sandboxed process (stream API)."""
    loop = asyncio.get_running_loop()
    transport, protocol = await confined_subprocess_exec(
        spawner, lambda: asyncio.subprocess.SubprocessStreamProtocol(limit=limit, loop=loop), args, **kwargs
    )
    return asyncio.subprocess.Process(transport, protocol, loop)
