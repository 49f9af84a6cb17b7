"""The stdio transport: a child process speaking newline-delimited JSON-RPC on stdin/stdout.

The child runs in its own process group (so wrappers such as ``npx``/``uvx`` and what they start
can be stopped together). Stopping closes stdin, then sends SIGTERM, then SIGKILL to the group, each
after a short grace. stdout lines that are not JSON are written to the MCP log and skipped; stderr
goes to the log line by line. When stdout ends every pending request fails naming the server and
its exit code. With a ``confinement`` the server starts inside the session's sandbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_cli.mcp.errors import McpClosed, McpError
from pi_cli.mcp.log import McpLog
from pi_cli.sandbox.protocol import ProcessConfinement

_LINE_LIMIT = 64 * 1024 * 1024  # one JSON-RPC message per line; results can be large
GRACE_S = 0.5


class StdioTransport:
    """One server process. ``on_message`` gets each parsed line; ``on_close`` gets the reason once."""

    def __init__(
        self,
        server: str,
        command: str,
        args: list[str],
        env: dict[str, str],
        cwd: Path,
        log: McpLog,
        on_message: Callable[[Any], None],
        on_close: Callable[[McpError], None],
        confinement: ProcessConfinement | None = None,
    ) -> None:
        self.server = server
        self._confinement = confinement
        self._argv = [_home(command), *(_home(a) for a in args)]
        self._env = {**os.environ, **env}
        self._cwd = cwd
        self._log = log
        self._on_message = on_message
        self._on_close = on_close
        self._proc: asyncio.subprocess.Process | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._write_lock = asyncio.Lock()
        self._stopping = False

    async def start(self) -> None:
        start = (
            asyncio.create_subprocess_exec if self._confinement is None else self._confinement.create_subprocess_exec
        )
        try:
            self._proc = await start(
                *self._argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self._env,
                cwd=self._cwd,
                start_new_session=True,
                limit=_LINE_LIMIT,
            )
        except OSError as exc:
            raise McpError(f'MCP server "{self.server}": cannot start {self._argv[0]}: {exc.strerror or exc}') from None
        self._tasks = [asyncio.create_task(self._read_stdout()), asyncio.create_task(self._read_stderr())]

    async def send(self, message: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdin.is_closing():
            raise McpClosed(f'MCP server "{self.server}" is not running')
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        async with self._write_lock:
            try:
                proc.stdin.write(data)
                await proc.stdin.drain()
            except (ConnectionError, RuntimeError) as exc:
                raise McpClosed(f'MCP server "{self.server}": stdin closed ({exc.__class__.__name__})') from None

    async def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stream = self._proc.stdout
        while True:
            try:
                line = await stream.readline()
            except (ValueError, asyncio.LimitOverrunError):
                self._log.write(self.server, "error", "a stdout line exceeded 64 MB; the connection is closed")
                break
            if not line:
                break
            text = line.strip()
            if not text:
                continue
            try:
                message = json.loads(text)
            except ValueError:
                self._log.write(
                    self.server, "warning", f"not JSON-RPC on stdout: {text[:200].decode(errors='replace')}"
                )
                continue
            self._on_message(message)
        code = await self._proc.wait()
        tail = self._log.stderr_tail(self.server)
        detail = f": {tail[-1]}" if tail else ""
        if self._stopping:
            self._on_close(McpClosed(f'MCP server "{self.server}" was stopped'))
        else:
            self._log.write(self.server, "error", f"process exited with code {code}")
            self._on_close(McpClosed(f'MCP server "{self.server}" exited with code {code}{detail}'))

    async def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        stream = self._proc.stderr
        while True:
            try:
                line = await stream.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue
            if not line:
                return
            self._log.stderr(self.server, line.decode(errors="replace"))

    async def close(self) -> None:
        """Close stdin, then SIGTERM, then SIGKILL the process group, waiting briefly in between."""
        proc = self._proc
        if proc is None:
            return
        self._stopping = True
        if proc.returncode is None:
            with contextlib.suppress(Exception):
                assert proc.stdin is not None
                proc.stdin.close()
            for sig in (signal.SIGTERM, signal.SIGKILL):
                if await _exited(proc, GRACE_S):
                    break
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, sig)
            await _exited(proc, GRACE_S)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # children that outlived the leader
        for task in self._tasks:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(task, GRACE_S)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None


async def _exited(proc: asyncio.subprocess.Process, timeout: float) -> bool:
    try:
        await asyncio.wait_for(proc.wait(), timeout)
    except TimeoutError:
        return False
    return True


def _home(value: str) -> str:
    """A leading ``~/`` names the home directory (pi's rule for command, args and cwd)."""
    return os.path.expanduser(value) if value.startswith("~/") else value
