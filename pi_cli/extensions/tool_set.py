"""Extension tools in the agent's tool list, beside the built-ins and MCP tools.

``runner.base_tools`` holds the built-ins the session started with. An extension tool with a
built-in's name replaces it in place. Tools this module does not know (MCP tools, merged into the
agent before each run by pi_cli.mcp) are left where they are, so they still pass through the
``tool_call``/``tool_result`` hooks, which sit on the agent, not on the tools.

After each change the session rebuilds its system prompt (``host.set_tool_prompts``) with the
``prompt_snippet`` / ``prompt_guidelines`` of the extension tools that are active, as pi does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pi_cli.extensions.host import ExtensionHost


class ToolEntry(Protocol):
    """One registered extension tool (``value`` is the AgentTool)."""

    @property
    def value(self) -> Any: ...


class ToolSetHost(Protocol):
    """What the tool list needs of the extension runner: the session's built-ins, the extension
    tools, the bound session (``host.agent``) and which extension tools it may have."""

    @property
    def base_tools(self) -> list[Any]: ...

    @property
    def tools(self) -> Sequence[ToolEntry]: ...

    @property
    def host(self) -> ExtensionHost | None: ...

    @property
    def allowed_tools(self) -> frozenset[str] | None: ...


def _agent(runner: ToolSetHost) -> Any:
    if runner.host is None:
        raise RuntimeError("the session is not ready yet (call this from a handler, not from register)")
    return runner.host.agent


def _entries(runner: ToolSetHost) -> list[Any]:
    """The extension tools the session may have (all of them unless ``allowed_tools`` narrows)."""
    allowed = runner.allowed_tools
    return [e.value for e in runner.tools if allowed is None or e.value.name in allowed]


def all_tools(runner: ToolSetHost) -> dict[str, Any]:
    """Every tool pi_cli knows by name: built-ins, then extension tools (replacing same names)."""
    tools: dict[str, Any] = {t.name: t for t in runner.base_tools}
    for tool in _entries(runner):
        tools[tool.name] = tool
    return tools


def apply_tools(runner: ToolSetHost) -> None:
    """Put extension tools into the agent: replace same-named tools, append new ones."""
    agent = _agent(runner)
    known = all_tools(runner)
    extension = _entries(runner)
    current = list(agent.state.tools)
    names = [t.name for t in current]
    updated = [known.get(t.name, t) if t.name in {tool.name for tool in extension} else t for t in current]
    for tool in extension:
        if tool.name not in names:
            updated.append(tool)
    agent.state.tools = updated
    refresh_prompt(runner)


def set_active(runner: ToolSetHost, names: list[str]) -> None:
    """Exactly ``names`` among the known tools (in that order); unknown ones (MCP) stay."""
    agent = _agent(runner)
    known = all_tools(runner)
    others = [t for t in agent.state.tools if t.name not in known]
    agent.state.tools = [known[name] for name in names if name in known] + others
    refresh_prompt(runner)


def refresh_prompt(runner: ToolSetHost) -> None:
    """Hand the active extension tools' snippets and guidelines to the session's prompt."""
    host = runner.host
    if host is None:
        return
    extension = {id(tool) for tool in _entries(runner)}
    snippets: dict[str, str] = {}
    guidelines: dict[str, list[str]] = {}
    for tool in host.agent.state.tools:
        if id(tool) not in extension:
            continue
        snippet = getattr(tool, "prompt_snippet", None)
        if snippet:
            snippets[tool.name] = str(snippet)
        lines = getattr(tool, "prompt_guidelines", None)
        if lines:
            guidelines[tool.name] = [str(line) for line in lines]
    host.set_tool_prompts(snippets, guidelines)
