"""The agent list as text: ``pi --list-agents`` and the front ends' ``/agents``.

:func:`agent_listing` loads the definitions for a folder the way a session would (installed
packages' agents included); :func:`agents_text` lists a session's own — the ones its
``subagent`` tool runs — or, when the session has no such tool, those it would have, with a line
saying how to turn the tool on.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli.resources.agents import AgentCatalog, format_agent_list, load_agents

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

ENABLE_HINT = 'The subagent tool is off: set "subagents": {"enabled": true} in settings, or pass --tools ...,subagent.'


def load_catalog(cwd: Path, trusted: bool) -> AgentCatalog:
    """Every agent for ``cwd`` (project files only when ``trusted``), packages' included."""
    from pi_cli.config.paths import agent_dir
    from pi_cli.packages.probe import declared_packages

    packages = declared_packages(agent_dir(), cwd, trusted)
    paths: dict[str, list[str]] = {}
    if packages is not None:
        paths = {f"{scope}_agents": packages.resource_paths("agents", scope) for scope in ("user", "project")}
    return load_agents(cwd, agent_dir(), project_trusted=trusted, package_paths=paths)


def agent_listing(cwd: Path, trusted: bool) -> tuple[str, list[str]]:
    """(the list, the warning lines) for ``cwd``."""
    catalog = load_catalog(cwd, trusted)
    return format_agent_list(catalog, with_warnings=False), list(catalog.warnings)


def agents_text(session: AgentSession) -> str:
    """``/agents`` for ``session``: its subagent runtime's agents, else the
    ones a session here would load and how to turn the tool on."""
    runtime = session.subagents
    if runtime is not None:
        return format_agent_list(runtime.catalog)
    from pi_cli.permissions.trust import is_project_trusted

    catalog = load_catalog(session.cwd, is_project_trusted(session.cwd))
    return f"{format_agent_list(catalog)}\n{ENABLE_HINT}"
