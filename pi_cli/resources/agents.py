"""Agent definitions for the ``subagent`` tool (pi-subagents' file format).

An agent is a Markdown file: front matter ``name``, ``description`` (both required), ``tools``
(a comma list or a YAML list; absent = the default tools), ``model`` (``provider/id`` or any
pattern ``--model`` takes, optionally ``:thinking``), ``thinking`` (off … xhigh); the body is the
child's system prompt. Places, lowest precedence first (a later definition of a name replaces an
earlier one):

1. the builtins (:mod:`pi_cli.resources.builtin_agents`);
2. installed packages' ``agents/`` folders (user scope, then project scope);
3. ``<agentDir>/agents/**/*.md``;
4. a trusted project's ``.claude/agents/*.md`` (Claude Code's files: its tool names ``Read``,
   ``Glob`` … are mapped to ours, ``model: inherit`` means none, and a model alias that does not
   resolve falls back to the parent's model), then its ``.pi/agents/**/*.md`` — in the cwd, like
   the rest of ``.pi`` (both make the folder need trust, :mod:`pi_cli.permissions.trust`).

So the project wins a name clash. ``*.chain.md`` files, dot-folders and ``node_modules`` are
skipped. A file that cannot be used is skipped with one warning line naming the file and the
field (or the front-matter line) at fault.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pi_cli.resources.builtin_agents import BUILTIN_AGENTS
from pi_cli.resources.frontmatter import read_frontmatter_file

__all__ = ["AgentCatalog", "AgentDefinition", "AgentSource", "format_agent_list", "load_agents"]

AgentSource = Literal["builtin", "package", "user", "project"]
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
# Claude Code's tool names → ours (its other tools have no counterpart and are left as named).
CLAUDE_TOOLS = {
    "Read": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "Bash": "bash",
    "Grep": "grep",
    "Glob": "find",
    "LS": "ls",
}


@dataclass(frozen=True, slots=True)
class AgentDefinition:
    """One agent. ``tools`` None means the default tools; ``model`` None the parent's model;
    ``model_is_hint`` (Claude Code files) lets an unresolvable model fall back to the parent's."""

    name: str
    description: str
    system_prompt: str
    source: AgentSource
    file_path: str | None = None  # None for the builtins
    tools: tuple[str, ...] | None = None
    model: str | None = None
    thinking: str | None = None
    model_is_hint: bool = False


@dataclass(slots=True)
class AgentCatalog:
    """The agents that won their name, by name, and the warning lines of skipped files."""

    agents: dict[str, AgentDefinition] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> AgentDefinition | None:
        return self.agents.get(name)

    def names(self) -> list[str]:
        return list(self.agents)

    def listed(self) -> list[AgentDefinition]:
        """The agents in listing order: builtins first (their own order), then by name."""
        builtins = [agent for agent in self.agents.values() if agent.source == "builtin"]
        others = sorted((agent for agent in self.agents.values() if agent.source != "builtin"), key=lambda a: a.name)
        return builtins + others


def _builtins() -> list[AgentDefinition]:
    return [
        AgentDefinition(name, description, prompt, "builtin", tools=tools)
        for name, (description, tools, prompt) in BUILTIN_AGENTS.items()
    ]


def _markdown_files(root: str, recursive: bool) -> Iterator[str]:
    """``*.md`` under ``root`` (not ``*.chain.md``), sorted; dot-entries and node_modules skipped."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name == "node_modules":
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if is_dir:
            if recursive:
                yield from _markdown_files(entry.path, True)
        elif entry.name.endswith(".md") and not entry.name.endswith(".chain.md"):
            yield entry.path


def _tool_list(value: object, claude: bool) -> tuple[str, ...] | None:
    """``tools`` as names; raises ValueError for a value that is neither a string nor a list."""
    if value is None:
        return None
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = list(value)
    else:
        raise ValueError('"tools" must be a comma-separated list of tool names')
    names = [item.strip() for item in items if item.strip()]
    if claude:
        names = [CLAUDE_TOOLS.get(name, name) for name in names]
    return tuple(dict.fromkeys(names))


def parse_agent(data: Mapping[str, object], body: str, path: str, source: AgentSource, claude: bool) -> AgentDefinition:
    """The definition a parsed file holds; raises ValueError naming the bad field."""
    name, description = data.get("name"), data.get("description")
    if not isinstance(name, str) or not name.strip():
        raise ValueError('"name" is missing' if name is None else '"name" must be text')
    name = name.strip()
    if not set(name) <= _NAME_CHARS:
        raise ValueError(f'"name" {name!r} may only hold letters, digits, "-", "_" and "."')
    if not isinstance(description, str) or not description.strip():
        raise ValueError('"description" is missing' if description is None else '"description" must be text')
    tools = _tool_list(data.get("tools"), claude)
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise ValueError('"model" must be text such as provider/model-id')
    model = (model or "").strip() or None
    if claude and model == "inherit":
        model = None
    thinking = data.get("thinking")
    if thinking is not None and (not isinstance(thinking, str) or thinking.strip() not in THINKING_LEVELS):
        raise ValueError(f'"thinking" must be one of {", ".join(THINKING_LEVELS)}')
    return AgentDefinition(
        name=name,
        description=" ".join(description.split()),
        system_prompt=body,
        source=source,
        file_path=path,
        tools=tools,
        model=model,
        thinking=thinking.strip() if isinstance(thinking, str) else None,
        model_is_hint=claude and model is not None,
    )


def _load_file(path: str, source: AgentSource, claude: bool, warnings: list[str]) -> AgentDefinition | None:
    problems: list[str] = []
    parsed = read_frontmatter_file(path, "agent file", problems)
    if parsed is None:
        warnings.append(f"agent file {problems[0]}; skipped" if problems else f"agent file {path}: unreadable; skipped")
        return None
    data, body = parsed
    try:
        return parse_agent(data, body, path, source, claude)
    except ValueError as exc:
        warnings.append(f"agent file {path}: {exc}; skipped")
        return None


def load_agents(
    cwd: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str],
    *,
    project_trusted: bool,
    package_paths: Mapping[str, Sequence[str]] | None = None,
) -> AgentCatalog:
    """Every agent for a session in ``cwd`` (see the module docstring for places and precedence).
    ``package_paths``: installed packages' agent folders or files, keyed ``user_agents`` /
    ``project_agents``. The project's files load only when ``project_trusted``."""
    catalog = AgentCatalog()
    found: list[AgentDefinition] = _builtins()
    cwd_abs = os.path.abspath(os.fspath(cwd))
    packaged = package_paths or {}
    scopes = ["user_agents", *(["project_agents"] if project_trusted else [])]

    def take(root: str, source: AgentSource, recursive: bool = True, claude: bool = False) -> None:
        paths = [root] if os.path.isfile(root) else list(_markdown_files(root, recursive))
        for path in paths:
            definition = _load_file(path, source, claude, catalog.warnings)
            if definition is not None:
                found.append(definition)

    for scope in scopes:
        for path in packaged.get(scope, ()):
            take(path, "package")
    take(os.path.join(os.fspath(agent_dir), "agents"), "user")
    if project_trusted:
        take(os.path.join(cwd_abs, ".claude", "agents"), "project", recursive=False, claude=True)
        take(os.path.join(cwd_abs, ".pi", "agents"), "project")
    for definition in found:
        catalog.agents.pop(definition.name, None)  # a later place replaces (and re-orders) a name
        catalog.agents[definition.name] = definition
    return catalog


def format_agent_list(catalog: AgentCatalog, home: str | None = None, with_warnings: bool = True) -> str:
    """The ``/agents`` and ``pi --list-agents`` text: one block per agent (name, source, tools,
    model, description, file), then (``with_warnings``) the warnings."""
    home = home if home is not None else os.path.expanduser("~")
    lines: list[str] = []
    for agent in catalog.listed():
        tools = ", ".join(agent.tools) if agent.tools is not None else "default tools"
        model = agent.model or "parent's model"
        if agent.thinking:
            model += f" (thinking {agent.thinking})"
        lines.append(f"{agent.name} [{agent.source}]  {agent.description}")
        lines.append(f"    tools: {tools}   model: {model}")
        if agent.file_path:
            path = agent.file_path
            shown = "~" + path[len(home) :] if home and path.startswith(home + os.sep) else path
            lines.append(f"    file: {shown}")
    if with_warnings:
        lines.extend(f"Warning: {line}" for line in catalog.warnings)
    return "\n".join(lines)
