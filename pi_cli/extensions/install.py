"""Binding an :class:`ExtensionRunner` to a session (duck-typed, so this stays below the session
layer): tools into the agent, ``tool_call``/``tool_result`` as the agent's before/after hooks,
``context`` as its ``transform_context``, and session events to the handlers.

Call it BEFORE the permissions gate is installed: the gate chains after the hook already on the
agent, so extension ``tool_call`` handlers run first and the gate approves the final arguments.
"""

from __future__ import annotations

import inspect
from typing import Any

from pi_cli.extensions.runner import ExtensionRunner
from pi_cli.extensions.tool_set import apply_tools


async def _resolve(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def attach_extensions(session: Any, runner: ExtensionRunner, errors: list[str] | None = None) -> ExtensionRunner:
    """Bind ``runner`` to ``session``; load errors become start-up warnings."""
    agent = session.agent
    runner.host = session
    session.extensions = runner
    runner.base_tools = list(agent.state.tools)
    if runner.tools:
        apply_tools(runner)

    previous_before = agent.before_tool_call
    previous_after = agent.after_tool_call
    previous_transform = agent.transform_context

    async def before_tool_call(context: Any, signal: Any) -> Any:
        if previous_before is not None:
            verdict = await _resolve(previous_before(context, signal))
            if verdict is not None and _field(verdict, "block"):
                return verdict
        return await runner.tool_call(context)

    async def after_tool_call(context: Any, signal: Any) -> Any:
        if previous_after is not None:
            override = await _resolve(previous_after(context, signal))
            if override is not None:
                return override  # an earlier hook decided; extension handlers chain after pi's own
        return await runner.tool_result(context)

    async def transform_context(messages: list[Any], signal: Any) -> list[Any]:
        if previous_transform is not None:
            messages = await _resolve(previous_transform(messages, signal))
        if "context" not in runner.handlers:
            return messages
        return await runner.transform_context(messages)

    agent.before_tool_call = before_tool_call
    agent.after_tool_call = after_tool_call
    agent.transform_context = transform_context
    session.subscribe(runner.listener)
    notices = getattr(session, "startup_notices", None)
    if isinstance(notices, list):
        notices.extend(f"Warning: {line}" for line in errors or [])
    return runner


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)
