"""The seams the sandbox plugs into: what a process starter and a tool are given at construction.

Process starters (the bash runner, ripgrep, extension ``exec``, MCP stdio servers) take an optional
:class:`ProcessConfinement`; ``None`` is pi's behaviour, byte for byte, on the same code path as
before. Tools take an optional :class:`ToolSandbox`, the session's sandbox as tools see it. Both
are Protocols so this module imports nothing heavy: the tools layer imports it at start-up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from pi_cli.ai.abort import AbortSignal


class ProcessConfinement(Protocol):
    """Starts processes inside one sandbox. The keyword arguments are those of
    ``loop.subprocess_exec`` / ``asyncio.create_subprocess_exec`` (``stdin``, ``stdout``,
    ``stderr``, ``cwd``, ``env``, ``start_new_session``; ``limit`` for the stream form); ``env``
    None means the current environment, and the sandbox may add to it (its proxy)."""

    def describe(self) -> str:
        """``workspace, network off`` — what confines the process."""
        ...

    async def subprocess_exec(
        self, protocol_factory: Callable[[], asyncio.SubprocessProtocol], program: str, *args: str, **kwargs: Any
    ) -> tuple[asyncio.SubprocessTransport, asyncio.SubprocessProtocol]: ...

    async def create_subprocess_exec(self, program: str, *args: str, **kwargs: Any) -> asyncio.subprocess.Process: ...


class ToolSandbox(Protocol):
    """The session's sandbox as the built-in tools use it.

    ``confinement()`` is None when the sandbox is off. ``check_read`` / ``check_write`` return
    None or the refusal the tool raises (the same policy, on the symlink-resolved path).
    ``explain_block`` turns a confined run's output into a note naming what the sandbox blocked, or
    None when nothing points at the sandbox (``since``: ``time.monotonic()`` when the run started).
    """

    def confinement(self) -> ProcessConfinement | None: ...

    def check_read(self, path: str) -> str | None: ...

    def check_write(self, path: str) -> str | None: ...

    def explain_block(self, output: str, cwd: str, since: float) -> str | None: ...


class SandboxStatus(Protocol):
    """What the approval gate asks the sandbox: does this call run confined, and may ask mode
    then let it run unasked."""

    @property
    def auto_allow_bash(self) -> bool: ...

    def runs_confined(self, tool: str) -> bool: ...


class OutsideApprover(Protocol):
    """Who decides whether one blocked call may run again outside the sandbox (the approval gate:
    a dialog where someone can be asked, False in print and json)."""

    async def approve_outside(self, tool: str, command: str, note: str, signal: AbortSignal | None) -> bool: ...
