"""The user's own shell commands (``!cmd`` in the TUI, RPC ``bash``).

A run goes through the bash tool's ``run_bash`` (same shell, process-group kill, tail truncation
with a temp file for the full output) and becomes a ``bashExecution`` message. The message joins
the agent's transcript at once when idle, or after the current run when the agent is streaming
(so it never lands between a tool call and its result). Only one user command runs at a time.
With a sandbox (given at construction) the command runs confined like the bash tool's, and output
that shows a blocked write, read or connection ends with the sandbox's note.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_cli.errors import BashBusyError
from pi_cli.sandbox.protocol import ToolSandbox
from pi_cli.session.abort_slot import AbortSlot
from pi_cli.store.entry_messages import bash_execution_message


class BashRunner:
    """Runs one user command at a time; ``abort()`` kills it. Messages of commands that finished
    while the agent ran are held (:meth:`hold`) until the session takes them (:meth:`take_held`)."""

    __slots__ = ("_held", "_slot", "command_prefix", "cwd", "sandbox")

    def __init__(self, cwd: Path, command_prefix: str | None = None, sandbox: ToolSandbox | None = None) -> None:
        self.cwd = cwd
        self.command_prefix = command_prefix
        self.sandbox = sandbox
        self._slot = AbortSlot("Command aborted")
        self._held: list[dict[str, Any]] = []

    def hold(self, message: dict[str, Any]) -> None:
        self._held.append(message)

    def take_held(self) -> list[dict[str, Any]]:
        held, self._held = self._held, []
        return held

    @property
    def running(self) -> bool:
        return self._slot.active

    def abort(self) -> None:
        self._slot.abort()

    async def run(
        self,
        command: str,
        on_chunk: Callable[[str], None] | None = None,
        exclude_from_context: bool = False,
        operations: Any = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Run ``command`` (through ``operations``, an extension's backend, when given: then not
        sandboxed here); returns (RPC result ``{output, exitCode, cancelled, truncated,
        fullOutputPath?}``, the ``bashExecution`` message)."""
        if self._slot.active:
            raise BashBusyError()
        from pi_cli.tools.operations import shell_operations
        from pi_cli.tools.shell.bash import run_bash

        full = f"{self.command_prefix}\n{command}" if self.command_prefix else command
        backend = shell_operations(operations)
        confinement = self.sandbox.confinement() if self.sandbox is not None and backend is None else None
        started = time.monotonic()
        with self._slot.hold() as signal:
            try:
                raw = await run_bash(
                    full, str(self.cwd), signal, on_chunk, None, confinement=confinement, operations=backend
                )
            except Exception as exc:  # the backend failed (e.g. SSH down): a failed command, not a crash
                if backend is None:
                    raise
                failed = {"output": f"{type(exc).__name__}: {exc}", "exitCode": 1, "cancelled": False}
                return self.record(command, failed, exclude_from_context)
        if self.sandbox is not None and confinement is not None:
            note = self.sandbox.explain_block(raw.output, str(self.cwd), started)
            if note:
                if on_chunk is not None:
                    on_chunk(f"\n{note}\n")
                raw = dataclasses.replace(raw, output=f"{raw.output}\n\n{note}" if raw.output else note)
        return self.record(command, raw, exclude_from_context, signal.aborted)

    @staticmethod
    def record(
        command: str, raw: Any, exclude_from_context: bool = False, cancelled: bool = False
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The RPC result and ``bashExecution`` message of a finished run (or of an extension's
        ``user_bash`` answer)."""
        result = normalise_bash_result(raw, cancelled_hint=cancelled)
        message = bash_execution_message(
            command,
            result["output"],
            result.get("exitCode"),
            result["cancelled"],
            result["truncated"],
            result.get("fullOutputPath"),
            exclude_from_context,
        )
        return result, message


def _field(raw: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        if isinstance(raw, dict) and name in raw:
            return raw[name]
        if hasattr(raw, name):
            return getattr(raw, name)
    return default


def normalise_bash_result(raw: Any, cancelled_hint: bool = False) -> dict[str, Any]:
    """pi's ``BashResult`` JSON from whatever the tools layer returned (dataclass or dict).

    ``exitCode`` is present only when the process reported one: pi's ``exitCode`` is ``undefined``
    for a cancelled run, and JSON drops the key (pi 1.6.0 answered ``{output, cancelled, truncated}``
    to an ``abort_bash``; tests/fixtures/pi16/ai_tools.json ``rpc_bash_cancel``).
    """
    cancelled = bool(_field(raw, "cancelled", "aborted", default=False)) or cancelled_hint
    exit_code = _field(raw, "exit_code", "exitCode", default=None)
    result: dict[str, Any] = {"output": str(_field(raw, "output", default="") or "")}
    if exit_code is not None:
        result["exitCode"] = exit_code
    result["cancelled"] = cancelled
    result["truncated"] = bool(_field(raw, "truncated", default=False))
    full_path = _field(raw, "full_output_path", "fullOutputPath", default=None)
    if full_path:
        result["fullOutputPath"] = str(full_path)
    return result
