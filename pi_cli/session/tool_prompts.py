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


def refresh_system_prompt(
    agent: Agent,
    resources: Resources | None,
    subagents: bool,
    snippets: Mapping[str, str],
    guidelines: Mapping[str, Sequence[str]],
) -> None:
    """Rebuild ``agent``'s system prompt from ``resources`` for its current tools; ``snippets``
    and ``guidelines`` are the extension tools' (by tool name), added to the built-ins' own;
    ``subagents``: the session has the subagent tool (its snippet is the session's own)."""
    if resources is None:
        return
    own: dict[str, str] = {}
    if subagents:  # the start-up prompt lists the subagent tool too
        from pi_cli.session.subagents.tool import SNIPPET

        own["subagent"] = SNIPPET
    state = agent.state
    names = [tool.name for tool in state.tools]
    state.system_prompt = resources.build_system_prompt(
        names, tool_snippets={**own, **snippets}, tool_guidelines=dict(guidelines) or None
    )
