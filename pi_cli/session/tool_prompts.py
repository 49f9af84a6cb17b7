"""The system prompt after the tool set changed: extensions' tools with ``prompt_snippet`` /
``prompt_guidelines`` were registered, or ``pi.set_active_tools`` chose others.

As pi rebuilds its prompt when the active tools change, the session's prompt is assembled again
from its resources (SYSTEM.md, APPEND_SYSTEM.md, context files, skills) for the tools the agent
has now. A session without resources (a subagent's child, an embedder's fixed prompt) keeps its
prompt: there is nothing to rebuild it from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.agent.agent import Agent
    from pi_cli.resources.loader import Resources


def rebuilt_system_prompt(
    agent: Agent,
    resources: Resources | None,
    subagents: bool,
    snippets: Mapping[str, str],
    guidelines: Mapping[str, Sequence[str]],
) -> str | None:
    """The system prompt from ``resources`` for ``agent``'s current tools (None without
    resources); ``snippets`` and ``guidelines`` are the extension tools' (by tool name), added to
    the built-ins' own; ``subagents``: the session has the subagent tool (its snippet is the
    session's own)."""
    if resources is None:
        return None
    own: dict[str, str] = {}
    if subagents:  # the start-up prompt lists the subagent tool too
        from pi_cli.session.subagents.tool import SNIPPET

        own["subagent"] = SNIPPET
    names = [tool.name for tool in agent.state.tools]
    return resources.build_system_prompt(
        names, tool_snippets={**own, **snippets}, tool_guidelines=dict(guidelines) or None
    )
