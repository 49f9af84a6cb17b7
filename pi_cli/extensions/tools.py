"""Extension tools: a plain dict (or any object with the tool attributes) made into an AgentTool.

``execute(tool_call_id, args, signal, on_update)`` may be sync or async and may return an
:class:`AgentToolResult`, a dict ``{"content", "details"}`` or a plain string (one text block).
"""

from __future__ import annotations

import inspect
from typing import Any

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal

_REQUIRED = ("name", "description", "execute")


class ExtensionTool:
    """An AgentTool whose behaviour comes from an extension; ``source`` names the extension file."""

    def __init__(self, spec: Any, source: str) -> None:
        get = spec.get if isinstance(spec, dict) else (lambda key, default=None: getattr(spec, key, default))
        missing = [key for key in _REQUIRED if not get(key)]
        if missing:
            raise ValueError(f"tool is missing {', '.join(missing)}")
        self.name: str = str(get("name"))
        self.label: str = str(get("label") or self.name)
        self.description: str = str(get("description"))
        self.parameters: dict[str, Any] = dict(get("parameters") or {"type": "object", "properties": {}})
        self.execution_mode = get("execution_mode") or get("executionMode")
        self.source = source
        self._execute: Any = get("execute")
        self._prepare: Any = get("prepare_arguments") or get("prepareArguments")

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        if self._prepare is None:
            return args
        prepared: dict[str, Any] = self._prepare(args)
        return prepared

    async def execute(
        self, tool_call_id: str, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        value = self._execute(tool_call_id, args, signal, on_update)
        if inspect.isawaitable(value):
            value = await value
        return to_result(value)


def to_result(value: Any) -> AgentToolResult:
    """Normalise what an extension returned into an AgentToolResult."""
    if isinstance(value, AgentToolResult):
        return value
    if isinstance(value, str):
        return AgentToolResult(content=[{"type": "text", "text": value}])
    if isinstance(value, dict):
        content = value.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        return AgentToolResult(content=list(content or []), details=value.get("details"))
    if value is None:
        return AgentToolResult(content=[])
    raise TypeError(f"tool returned {type(value).__name__}, expected AgentToolResult, dict or str")


def as_agent_tool(tool: Any, source: str) -> Any:
    """``tool`` itself when it already is a complete AgentTool object, else an ExtensionTool."""
    if not isinstance(tool, dict) and all(hasattr(tool, key) for key in ("name", "parameters", "execute")):
        if not hasattr(tool, "prepare_arguments") or not hasattr(tool, "execution_mode"):
            return ExtensionTool(tool, source)
        return tool
    return ExtensionTool(tool, source)
