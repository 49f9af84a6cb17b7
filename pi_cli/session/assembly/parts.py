"""A session's optional parts, and the one place the order of the agent's hook chains is written.

The parts are built before the agent (they live below the session layer and need nothing of it
to exist), handed to the :class:`~pi_cli.agent.agent.Agent` as its :class:`AgentHooks` and to the
:class:`~pi_cli.session.agent_session.AgentSession` as its typed attributes, and then bound to
the session (:meth:`SessionParts.bind`). A child session is assembled the same way.

Order of the chains (tests/sessions/test_hook_order.py states it):

* ``tool_call``: extensions' ``tool_call`` handlers (they may rewrite the arguments or block),
  then the approval gate (it decides on the arguments as they will run, and never sees a call a
  handler blocked);
* ``tool_result``: extensions' ``tool_result`` handlers;
* ``context``: extensions' ``context`` handlers;
* ``turns``: the MCP runtime (tool set before each run, ``tool_search`` loads after each turn).

A subagent's child session is assembled the same way (:mod:`pi_cli.session.assembly.children`):
its extension runner is its own (the parent's extensions registered again), its gate and sandbox
are the parent's (``parent`` is set), and it has no MCP turn hook — the MCP tools its agent names
are the parent's runtime's, fixed for the child's one task.

The sandbox needs no interceptor: it confines the processes the tools, ``!`` commands, extension
``exec`` and MCP stdio servers start, which are built with it; the gate asks it whether a bash
call runs confined (ask mode then needs no approval for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_cli.agent.hooks import AgentHooks

if TYPE_CHECKING:
    from pi_cli.extensions.runner import ExtensionRunner
    from pi_cli.mcp.runtime import McpRuntime
    from pi_cli.permissions.gate import PermissionGate
    from pi_cli.resources.themes import ThemeCatalog
    from pi_cli.sandbox.controller import Sandbox
    from pi_cli.session.agent_session import AgentSession
    from pi_cli.session.subagents.runtime import SubagentRuntime


@dataclass(slots=True)
class SessionParts:
    """What a session may have beyond its core; each is None when the session has none."""

    extensions: ExtensionRunner | None = None
    permissions: PermissionGate | None = None
    mcp: McpRuntime | None = None
    sandbox: Sandbox | None = None  # confines every process a tool starts (when its mode is not off)
    subagents: SubagentRuntime[AgentSession] | None = None  # the ``subagent`` tool's agents and children
    themes: ThemeCatalog | None = None  # the themes found and the one chosen (front ends, exports)
    parent: AgentSession | None = None  # set for a subagent's child session: the parts above are the parent's
    notices: list[str] = field(default_factory=list)  # the parts' start-up warnings, one line each

    def hooks(self) -> AgentHooks:
        """The agent's hook chains for these parts, in the order the module docstring states."""
        ext, gate, mcp = self.extensions, self.permissions, self.mcp
        tool_call: Sequence[Any] = [hook for hook in (ext and ext.tool_call, gate and gate.tool_call) if hook]
        return AgentHooks(
            tool_call=tool_call,
            tool_result=[ext.tool_result] if ext is not None else [],
            context=[ext.transform_context] if ext is not None else [],
            turns=[mcp] if mcp is not None else [],
        )

    def bind(self, session: AgentSession) -> None:
        """Give the parts that serve the session their session (once, after it is built)."""
        if self.extensions is not None:
            self.extensions.bind(session)
        if self.subagents is not None:
            self.subagents.bind(session)
        session.startup_notices.extend(self.notices)
        self.notices = []
