"""The ``bash`` tool: run a shell command in the working directory and report its output.

Output (stdout and stderr merged) streams to ``on_update`` as the accumulated, tail-truncated
text — one empty update at the start, then at most one every ``UPDATE_INTERVAL_SECONDS``. The
final text is the last ``DEFAULT_MAX_LINES`` lines / ``DEFAULT_MAX_BYTES`` bytes, followed by a
notice naming the temp file with the full output when anything was cut. A finished command's result
also carries pi 1.6's ``structuredContent`` ``{output, truncated, full_output_path?, exit_code,
wall_time_seconds}`` (the whole output up to 1 MiB, then its first and last halves); a non-zero
exit is returned, as pi 1.6 does, as an error result (``is_error``) whose text ends ``Command
exited with code N``. A timeout or an abort is raised as an error carrying the output and
``Command timed out after N seconds`` / ``Command aborted``. Process handling lives in
:mod:`pi_cli.tools.shell.runner`; :func:`run_bash` is re-exported for the user's ``!cmd``.

With a sandbox (``sandbox=``, the session's :class:`~pi_cli.sandbox.protocol.ToolSandbox`) the
command runs confined; when its output shows the sandbox blocked something, the user is offered
to run this one call outside it (where someone can be asked), and otherwise the result ends with a
note saying what was blocked and what the user can allow. Without one, nothing differs from pi.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.sandbox.protocol import OutsideApprover, ToolSandbox
from pi_cli.tools.base import BuiltinTool, number, object_schema, string
from pi_cli.tools.operations import shell_operations
from pi_cli.tools.shell.output import OutputCollector
from pi_cli.tools.shell.runner import BashRunResult, default_shell, kill_tracked_process_groups, run_bash
from pi_cli.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES

__all__ = ["BashRunResult", "BashTool", "BashToolError", "default_shell", "kill_tracked_process_groups", "run_bash"]

UPDATE_INTERVAL_SECONDS = 0.1
STRUCTURED_OUTPUT_MAX_BYTES = 1024 * 1024  # pi 1.6's limit on structuredContent.output


class BashToolError(RuntimeError):
    """A failed, timed-out or aborted command; the message is the tool result text."""


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class BashTool(BuiltinTool):
    name = "bash"
    label = "bash"
    description = (
        "Run a shell command (bash) in the working directory and return its combined stdout and stderr. "
        f"Only the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB of output are returned, "
        "whichever is smaller; when output is cut, the full output is saved to a file named in the result. "
        "stdin is not connected. Optionally pass timeout in seconds."
    )
    parameters = object_schema(
        {
            "command": string("The shell command to run"),
            "timeout": number("Seconds after which the command is killed (no default)"),
        },
        ["command"],
    )

    def __init__(
        self,
        cwd: str,
        shell: str | None = None,
        command_prefix: str | None = None,
        sandbox: ToolSandbox | None = None,
        approver: OutsideApprover | None = None,
        operations: Any = None,
    ) -> None:
        super().__init__(cwd, sandbox)
        self.shell = shell
        self.command_prefix = command_prefix
        self.approver = approver  # asked before a blocked call runs again outside the sandbox
        # pi's BashOperations (an extension's backend, e.g. SSH): the command runs there, unsandboxed
        self.operations = shell_operations(operations)

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        return await self._run(args, signal, on_update)

    async def _run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None, outside: bool = False
    ) -> AgentToolResult:
        command = str(args["command"])
        timeout = args.get("timeout")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)):
            raise ValueError("timeout must be a number of seconds")
        if self.command_prefix:
            command = f"{self.command_prefix}\n{command}"

        sandbox = self.sandbox if self.operations is None else None  # a remote backend is not ours to confine
        confinement = sandbox.confinement() if sandbox is not None and not outside else None
        collector = OutputCollector()
        throttle = _UpdateThrottle(collector, on_update)
        throttle.send_start()  # pi sends an empty update as soon as the command starts
        started = time.monotonic()
        try:
            result = await run_bash(
                command,
                self.cwd,
                signal,
                timeout=float(timeout) if timeout is not None else None,
                shell=self.shell,
                collector=collector,
                on_activity=throttle.poke if on_update is not None else None,
                confinement=confinement,
                operations=self.operations,
            )
        finally:
            throttle.finish()

        note = ""
        if sandbox is not None and confinement is not None and not result.cancelled:
            note = sandbox.explain_block(result.output, self.cwd, started) or ""
            approver = self.approver
            if (
                note
                and approver is not None
                and await approver.approve_outside("bash", str(args["command"]), note, signal)
            ):
                return await self._run(args, signal, on_update, outside=True)
        elif outside:
            note = "[Ran outside the sandbox: the user approved this one call.]"
        text = result.output or "(no output)"
        if result.notice:
            text += f"\n\n{result.notice}"
        details = collector.details(result.truncation)
        if result.cancelled:
            raise BashToolError(_with_output(result.output, "Command aborted"))
        if result.timed_out:
            message = f"Command timed out after {_seconds(float(timeout or 0))} seconds"
            raise BashToolError(_with_note(_with_output(result.output, message), note))
        if result.exit_code is None:
            unknown = _with_output(result.output, "Command terminated without an exit code")
            raise BashToolError(_with_note(unknown, note))
        full, cut = collector.full_text(STRUCTURED_OUTPUT_MAX_BYTES)
        structured: dict[str, Any] = {"output": full, "truncated": cut}
        if cut and collector.full_output_path:
            structured["full_output_path"] = collector.full_output_path
        structured["exit_code"] = result.exit_code
        structured["wall_time_seconds"] = math.floor((time.monotonic() - started) * 10 + 0.5) / 10
        failed = result.exit_code != 0
        if failed:
            text = f"{text}\n\nCommand exited with code {result.exit_code}"
        content: list[Any] = [{"type": "text", "text": _with_note(text, note)}]
        return AgentToolResult(content, details, structured_content=structured, is_error=True if failed else None)


def _with_output(output: str, message: str) -> str:
    return f"{output}\n\n{message}" if output else message


def _with_note(text: str, note: str) -> str:
    return f"{text}\n\n{note}" if note else text


class _UpdateThrottle:
    """Sends the accumulated output to ``on_update`` at most every ``UPDATE_INTERVAL_SECONDS``."""

    def __init__(self, collector: OutputCollector, on_update: OnUpdate | None) -> None:
        self._collector = collector
        self._on_update = on_update
        self._last = 0.0
        self._handle: asyncio.TimerHandle | None = None
        self._dirty = False  # output arrived since the last update

    def send_start(self) -> None:
        """pi's first update: no content block and no details (``{"content": []}`` on the wire)."""
        if self._on_update is not None:
            self._on_update(AgentToolResult(content=[]))

    def send_now(self) -> None:
        self._handle = None
        self._dirty = False
        if self._on_update is None:
            return
        self._last = time.monotonic()
        truncation = self._collector.truncation()
        # Keys pi leaves undefined are absent from its JSON, so clients see ``{}`` until truncation.
        details: dict[str, Any] = {}
        if truncation.truncated:
            details["truncation"] = truncation.to_json()
        if self._collector.full_output_path is not None:
            details["fullOutputPath"] = self._collector.full_output_path
        self._on_update(AgentToolResult(content=[{"type": "text", "text": truncation.content}], details=details))

    def poke(self) -> None:
        self._dirty = True
        if self._handle is not None:
            return
        delay = max(0.0, self._last + UPDATE_INTERVAL_SECONDS - time.monotonic())
        self._handle = asyncio.get_running_loop().call_later(delay, self.send_now)

    def finish(self) -> None:
        """Stop the timer and, as pi does, deliver output not yet sent so the last update is complete."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._dirty:
            self.send_now()
