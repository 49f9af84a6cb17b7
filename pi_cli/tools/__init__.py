"""Built-in tools: read, bash, edit, write (enabled by default) and grep, find, ls.

Each tool is an :class:`pi_cli.agent.types.AgentTool` bound to the session's working directory.
Failures are raised as exceptions with a one-line (or output-carrying, for bash) message; the agent
loop turns them into error tool results.
"""

from __future__ import annotations

from pi_cli.agent.types import AgentTool
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


__all__ = [
    "DEFAULT_TOOL_NAMES",
    "TOOL_NAMES",
    "BashTool",
    "EditTool",
    "FindTool",
    "GrepTool",
    "LsTool",
    "ReadTool",
    "WriteTool",
    "create_all_tools",
    "create_coding_tools",
]
