"""Built-in tools: read, bash, edit, write (enabled by default) and grep, find, ls.

Each tool is an :class:`pi_cli.agent.types.AgentTool` bound to the session's working directory.
Failures are raised as exceptions with a one-line (or output-carrying, for bash) message; the agent
loop turns them into error tool results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_cli.agent.types import AgentTool
from pi_cli.ai.abort import AbortSignal
from pi_cli.sandbox.protocol import OutsideApprover, ToolSandbox
from pi_cli.tools.edit import EditTool
from pi_cli.tools.find import FindTool
from pi_cli.tools.grep import GrepTool
from pi_cli.tools.ls import LsTool
from pi_cli.tools.read import ReadTool
from pi_cli.tools.shell.bash import BashTool
from pi_cli.tools.write import WriteTool

# pi's order: the default four first, as sent to the model, then the optional ones.
TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULT_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write")


def create_coding_tools(
    cwd: str, sandbox: ToolSandbox | None = None, approver: OutsideApprover | None = None
) -> list[AgentTool]:
    """pi's default tool set, in order: read, bash, edit, write."""
    bash = BashTool(cwd, sandbox=sandbox, approver=approver)
    return [ReadTool(cwd, sandbox), bash, EditTool(cwd, sandbox), WriteTool(cwd, sandbox)]


def create_all_tools(
    cwd: str, sandbox: ToolSandbox | None = None, approver: OutsideApprover | None = None
) -> dict[str, AgentTool]:
    """Every built-in tool by name, in :data:`TOOL_NAMES` order. ``sandbox`` (the session's
    :class:`~pi_cli.sandbox.controller.Sandbox`; None is pi's behaviour) confines them all;
    ``approver`` (the approval gate) is asked before a blocked bash call runs again outside it."""
    tools: list[AgentTool] = [
        ReadTool(cwd, sandbox),
        BashTool(cwd, sandbox=sandbox, approver=approver),
        EditTool(cwd, sandbox),
        WriteTool(cwd, sandbox),
        GrepTool(cwd, sandbox),
        FindTool(cwd, sandbox),
        LsTool(cwd, sandbox),
    ]
    return {tool.name: tool for tool in tools}


def create_read_tool(cwd: str, operations: Any = None) -> ReadTool:
    """pi's ``createReadTool(cwd, {operations})``: a ``read`` tool whose files come from
    ``operations`` (see :mod:`pi_cli.tools.operations`; None: this machine's disk)."""
    return ReadTool(cwd, operations=operations)


def create_write_tool(cwd: str, operations: Any = None) -> WriteTool:
    """pi's ``createWriteTool``: ``write`` through ``operations`` (``write_file``, ``mkdir``)."""
    return WriteTool(cwd, operations=operations)


def create_edit_tool(cwd: str, operations: Any = None) -> EditTool:
    """pi's ``createEditTool``: ``edit`` through ``operations`` (``read_file``, ``write_file``,
    ``access``)."""
    return EditTool(cwd, operations=operations)


def create_bash_tool(cwd: str, operations: Any = None, command_prefix: str | None = None) -> BashTool:
    """pi's ``createBashTool``: ``bash`` through ``operations`` (``exec``), with an optional
    ``command_prefix`` run before every command (e.g. ``source ~/.profile``)."""
    return BashTool(cwd, command_prefix=command_prefix, operations=operations)


class LocalBashOperations:
    """pi's ``createLocalBashOperations()``: ``exec`` on this machine's shell, for a ``user_bash``
    handler or a tool that wraps the local backend (prefixing the command, changing ``cwd``)."""

    async def exec(
        self,
        command: str,
        cwd: str,
        *,
        on_data: Callable[[Any], None],
        signal: AbortSignal | None = None,
        timeout: float | None = None,
        env: dict[str, str] | None = None,
    ) -> dict[str, int | None]:
        from pi_cli.tools.shell.runner import run_bash

        result = await run_bash(command, cwd, signal, on_data, timeout, env=env)
        if result.cancelled:
            raise RuntimeError("aborted")
        if result.timed_out:
            raise RuntimeError(f"timeout:{timeout}")
        return {"exitCode": result.exit_code}


def create_local_bash_operations() -> LocalBashOperations:
    return LocalBashOperations()


__all__ = [
    "DEFAULT_TOOL_NAMES",
    "TOOL_NAMES",
    "BashTool",
    "EditTool",
    "FindTool",
    "GrepTool",
    "LocalBashOperations",
    "LsTool",
    "ReadTool",
    "WriteTool",
    "create_all_tools",
    "create_bash_tool",
    "create_coding_tools",
    "create_edit_tool",
    "create_local_bash_operations",
    "create_read_tool",
    "create_write_tool",
]
