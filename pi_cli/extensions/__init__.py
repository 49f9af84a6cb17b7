"""Python extensions for pi_cli (issue 13): custom tools, commands, event handlers and ``ctx.ui``.

Layer: "parts" (beside mcp and permissions): imports agent, tools and config, never
``pi_cli.session`` or ``pi_cli.modes``. The runner takes part in runs through the agent's hook
chains, reaches the session as an :class:`~pi_cli.extensions.host.ExtensionHost` (``runner.bind``)
and the front end through the :class:`ExtensionUI` each mode binds. Imported only when an
extension exists.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.agent.tool_exec import current_tool_call
    from pi_cli.agent.types import AgentToolResult
    from pi_cli.extensions.api import ExtensionAPI
    from pi_cli.extensions.context import CommandContext, ExtensionContext, SessionView
    from pi_cli.extensions.runner import ExtensionRunner
    from pi_cli.extensions.ui import ExtensionUI, NoUI

# Loaded on first use: the TUI imports ``pi_cli.extensions.rendering`` for its widgets, and this
# package's own import must not load the runner and the API then (a session without extensions).
_WHERE = {
    "current_tool_call": "pi_cli.agent.tool_exec",  # the call being decided (set by the agent)
    "AgentToolResult": "pi_cli.agent.types",
    "ExtensionAPI": "pi_cli.extensions.api",
    "CommandContext": "pi_cli.extensions.context",
    "ExtensionContext": "pi_cli.extensions.context",
    "SessionView": "pi_cli.extensions.context",
    "ExtensionRunner": "pi_cli.extensions.runner",
    "ExtensionUI": "pi_cli.extensions.ui",
    "NoUI": "pi_cli.extensions.ui",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'pi_cli.extensions' has no attribute {name!r}")
    return getattr(importlib.import_module(where), name)


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
