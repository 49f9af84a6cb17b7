"""Building one session from given parts: :func:`build_session`.

The Agent (its hook chains from the parts), the AgentSession around it, then the parts bound to
it. :func:`~pi_cli.session.assembly.builder.create_agent_session` ends here after loading the
parts from disk, a subagent's child (:mod:`pi_cli.session.assembly.children`) after taking them
from its parent, and embedders and tests call it directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.ai.types import Model
from pi_cli.session.agent_session import AgentSession
from pi_cli.session.assembly.parts import SessionParts
from pi_cli.session.store_bridge import SessionStoreBridge

if TYPE_CHECKING:
    from pi_cli.config.settings import Settings
    from pi_cli.models.registry import ModelRegistry
    from pi_cli.resources.loader import Resources


def build_session(
    *,
    cwd: Path,
    parts: SessionParts | None = None,
    settings: Settings | None = None,
    registry: ModelRegistry | None = None,
    store: SessionStoreBridge | None = None,
    resources: Resources | None = None,
    scoped_models: list[tuple[Model, str | None]] | None = None,
    save_setting: Any = None,
    notices: Sequence[str] = (),
    **agent_options: Any,
) -> AgentSession:
    """The Agent (``agent_options`` are its keyword arguments; its hook chains come from
    ``parts``), the AgentSession around it, and the parts bound to it. The start-up notices are
    ``notices`` then the parts'."""
    from pi_cli.agent.agent import Agent
    from pi_cli.store.entry_messages import convert_to_llm

    parts = parts or SessionParts()
    holder: list[AgentSession] = []

    def get_api_key(provider: str) -> str | None:
        return holder[0].models.api_key_for_provider(provider) if holder else None

    ext = parts.extensions
    if ext is not None:  # extensions' provider events (request, response, stream events)
        from dataclasses import replace

        from pi_cli.ai.options import StreamOptions

        template = agent_options.get("stream_options") or StreamOptions()
        agent_options["stream_options"] = replace(
            template,
            on_payload=ext.provider_payload,
            on_response=ext.provider_response,
            on_stream_event=ext.provider_stream_event,
        )
    agent_options.setdefault("convert_to_llm", convert_to_llm)
    agent_options.setdefault("get_api_key", get_api_key)
    agent = Agent(**agent_options, hooks=parts.hooks())
    session = AgentSession(
        agent=agent, cwd=cwd, settings=settings, model_registry=registry, store=store, scoped_models=scoped_models,
        resources=resources, save_setting=save_setting, extensions=parts.extensions, permissions=parts.permissions,
        mcp=parts.mcp, sandbox=parts.sandbox, subagents=parts.subagents, child=parts.parent is not None,
        themes=parts.themes,
    )  # fmt: skip
    holder.append(session)
    session.startup_notices.extend(notices)
    parts.bind(session)
    return session
