"""Extension tools: a plain dict (or any object with the tool attributes) made into an AgentTool.

``execute(tool_call_id, args, signal, on_update[, ctx])`` may be sync or async; one that takes a
fifth positional argument (or ``*args``) gets pi's tool context: an ExtensionContext with ``cwd``,
``mode``, ``ui``, ``session_manager``… and ``signal``, the call's abort signal. It may return an
:class:`AgentToolResult`, a dict ``{"content", "details", "terminate"?}`` or a plain string (one
text block). ``prompt_snippet`` / ``prompt_guidelines`` (pi's ``promptSnippet`` /
``promptGuidelines``) are kept for the system prompt (:mod:`pi_cli.extensions.tool_set`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal

_REQUIRED = ("name", "description", "execute")
ToolContextFactory = Callable[[AbortSignal | None], Any]


class ExtensionTool:
    """An AgentTool whose behaviour comes from an extension; ``source`` names the extension file,
    ``context(signal)`` builds the ``ctx`` an ``execute`` with five parameters receives."""

    def __init__(self, spec: Any, source: str, context: ToolContextFactory | None = None) -> None:
        get = spec.get if isinstance(spec, dict) else (lambda key, default=None: getattr(spec, key, default))
        missing = [key for key in _REQUIRED if not get(key)]
        if missing:
            raise ValueError(f"tool is missing {', '.join(missing)}")
        self.name: str = str(get("name"))
        self.label: str = str(get("label") or self.name)
        self.description: str = str(get("description"))
        self.parameters: dict[str, Any] = dict(get("parameters") or {"type": "object", "properties": {}})
        self.execution_mode = get("execution_mode") or get("executionMode")
        self.prompt_snippet: str | None = _snippet(get("prompt_snippet") or get("promptSnippet"))
        self.prompt_guidelines: list[str] = _guidelines(get("prompt_guidelines") or get("promptGuidelines"))
        self.source = source
        self._execute: Any = get("execute")
        self._prepare: Any = get("prepare_arguments") or get("prepareArguments")
        self._context = context if context is not None and _takes_context(self._execute) else None

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        if self._prepare is None:
            return args
        prepared: dict[str, Any] = self._prepare(args)
        return prepared

    async def execute(
        self, tool_call_id: str, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        if self._context is not None:
            value = self._execute(tool_call_id, args, signal, on_update, self._context(signal))
        else:
            value = self._execute(tool_call_id, args, signal, on_update)
        if inspect.isawaitable(value):
            value = await value
        return to_result(value)


def _snippet(value: Any) -> str | None:
    """One line (pi lists each tool on one line); empty means none."""
    text = " ".join(str(value).split()) if value else ""
    return text or None


def _guidelines(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):  # one bullet, not one per character
        value = [value]
    return [str(line).strip() for line in value if str(line).strip()]


def _takes_context(fn: Any) -> bool:
    """Whether ``fn`` accepts a fifth positional argument (pi's ``ctx``)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: call it as before
        return False
    positional = 0
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return True
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            positional += 1
    return positional >= 5


def to_result(value: Any) -> AgentToolResult:
    """Normalise what an extension returned into an AgentToolResult (a dict's ``terminate`` is
    kept: pi's way for a tool to end the run after its batch)."""
    if isinstance(value, AgentToolResult):
        return value
    if isinstance(value, str):
        return AgentToolResult(content=[{"type": "text", "text": value}])
    if isinstance(value, dict):
        content = value.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        terminate = value.get("terminate")
        return AgentToolResult(
            content=list(content or []),
            details=value.get("details"),
            terminate=bool(terminate) if terminate is not None else None,
        )
    if value is None:
        return AgentToolResult(content=[])
    raise TypeError(f"tool returned {type(value).__name__}, expected AgentToolResult, dict or str")


def as_agent_tool(tool: Any, source: str, context: ToolContextFactory | None = None) -> Any:
    """``tool`` itself when it already is a complete AgentTool object, else an ExtensionTool
    (``context`` builds the tool context for an ``execute`` that takes one)."""
    if not isinstance(tool, dict) and all(hasattr(tool, key) for key in ("name", "parameters", "execute")):
        if not hasattr(tool, "prepare_arguments") or not hasattr(tool, "execution_mode"):
            return ExtensionTool(tool, source, context)
        return tool
    return ExtensionTool(tool, source, context)
