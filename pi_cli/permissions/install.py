"""Attaching the approval gate to a session's agent.

The gate runs as the agent's ``before_tool_call`` hook, *after* any hook already installed (the
extension runner's ``tool_call`` handlers): a user handler may rewrite the arguments or block the
call first, and the gate then approves exactly the arguments that will run. A call a user
handler blocked is never shown to the user for approval.

The session object is duck-typed (``cwd``, ``settings``, ``agent.before_tool_call``) so this
module stays below the session layer; the gate is stored on ``session.permissions`` for the front
ends (mode key, ``/permissions``, footer), which set ``gate.ui`` to their dialog provider.
"""

from __future__ import annotations

import inspect
from contextvars import ContextVar
from typing import Any

from pi_cli.permissions.gate import PermissionGate, gate_for_session
from pi_cli.permissions.trust import is_project_trusted

# The call being decided while the gate asks ({"toolCallId", "toolName", "input"}), so a front end
# can attach its dialog to that call (ACP's request_permission names the tool call).
current_tool_call: ContextVar[dict[str, Any] | None] = ContextVar("current_tool_call", default=None)


def install_gate(session: Any, mode_flag: str | None = None) -> PermissionGate:
    """Build the gate for ``session`` (``--permissions`` beats settings) and chain it in."""
    cwd = str(session.cwd)
    settings_mode = getattr(getattr(getattr(session, "settings", None), "permissions", None), "mode", None)
    gate = gate_for_session(cwd, mode=mode_flag, settings_mode=settings_mode, project_trusted=is_project_trusted(cwd))
    agent = session.agent
    previous = agent.before_tool_call

    async def before_tool_call(context: Any, signal: Any) -> Any:
        if previous is not None:
            verdict = previous(context, signal)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            if verdict is not None and _field(verdict, "block"):
                return verdict
        call = context.tool_call
        token = current_tool_call.set({"toolCallId": call.get("id"), "toolName": call["name"], "input": context.args})
        try:
            refused = await gate.check(call["name"], context.args, gate.ui, signal)
        finally:
            current_tool_call.reset(token)
        return None if refused is None else {"block": True, "reason": refused}

    agent.before_tool_call = before_tool_call
    session.permissions = gate
    notices = getattr(session, "startup_notices", None)
    if isinstance(notices, list):
        notices.extend(f"Warning: {line}" for line in gate.notices)
        gate.notices.clear()
    return gate


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)
