"""Python extensions for pi_cli (issue 13): custom tools, commands, event handlers and ``ctx.ui``.

Layer: "parts" (beside mcp and permissions): imports agent, tools and config, never
``pi_cli.session`` or ``pi_cli.modes``. The runner takes part in runs through the agent's hook
chains, reaches the session as an :class:`~pi_cli.extensions.host.ExtensionHost` (``runner.bind``)
and the front end through the :class:`ExtensionUI` each mode binds. Imported only when an
extension exists.
"""

from __future__ import annotations

from pi_cli.agent.tool_exec import current_tool_call  # the call being decided (set by the agent)
from pi_cli.agent.types import AgentToolResult
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.context import CommandContext, ExtensionContext, SessionView
from pi_cli.extensions.runner import ExtensionRunner
from pi_cli.extensions.ui import ExtensionUI, NoUI

__all__ = [
    "AgentToolResult",
    "CommandContext",
    "ExtensionAPI",
    "ExtensionContext",
    "ExtensionRunner",
    "ExtensionUI",
    "NoUI",
    "SessionView",
    "current_tool_call",
]
