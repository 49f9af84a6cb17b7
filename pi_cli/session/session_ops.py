"""Session-file operations an AgentSession exposes to RPC and the UIs: new, switch, fork, clone,
fork candidates, HTML export and manual compaction.

They act on the session manager behind ``session.store`` and then reload the agent's transcript,
model and thinking level from it. Each raises a :class:`~pi_cli.errors.PiError` with a one-line
message when the session is in memory only or a feature is not available.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.errors import FeatureUnavailableError, SessionError

if TYPE_CHECKING:
    from pi_cli.ai.types import Model
    from pi_cli.session.model_control import ModelControl
    from pi_cli.session.store_bridge import SessionStoreBridge


class SessionFileHost(Protocol):
    """What these operations need of the session: its store and agent, the models with their
    credentials, and a way to settle a running prompt first."""

    @property
    def agent(self) -> Any: ...

    @property
    def store(self) -> SessionStoreBridge: ...

    @property
    def model_registry(self) -> Any: ...

    @property
    def models(self) -> ModelControl: ...

    @property
    def model(self) -> Model | None: ...

    @property
    def thinking_level(self) -> str: ...

    @property
    def is_streaming(self) -> bool: ...

    async def abort(self) -> None: ...

    def clear_queues(self) -> tuple[list[str], list[str]]: ...


def _manager(session: SessionFileHost) -> Any:
    manager = session.store.manager
    if manager is None:
        raise FeatureUnavailableError("Session storage is not available in this session.")
    return manager


def _reload(session: SessionFileHost) -> None:
    """Load the manager's current context into the agent (messages, model, thinking level)."""
    manager = session.store.manager
    context = manager.build_context()
    session.agent.state.messages = list(context.messages)
    stored = getattr(context, "model", None)
    registry = session.model_registry
    if stored and registry is not None:
        model = registry.find(stored.get("provider", ""), stored.get("modelId", ""))
        if model is not None and session.models.has_credentials(model):
            session.agent.state.model = model
    if context.messages:
        from pi_cli.session.model_control import clamp_level

        session.agent.state.thinking_level = clamp_level(session.model, context.thinking_level)


async def _settle(session: SessionFileHost) -> None:
    if session.is_streaming:
        await session.abort()
    session.clear_queues()


async def new_session(session: SessionFileHost, parent_session: str | None = None) -> dict[str, Any]:
    manager = _manager(session)
    await _settle(session)
    manager.new_session(parent_session)
    session.agent.state.messages = []
    model = session.model
    if model is not None:
        session.store.append_model_change(model["provider"], model["id"])
    session.store.append_thinking_level_change(session.thinking_level)
    return {"cancelled": False}


def _existing_file(path: str) -> Path:
    target = Path(os.path.expanduser(path))
    if not target.is_file():
        raise SessionError(f"Session file not found: {target}")
    return target.resolve()


async def switch_session(session: SessionFileHost, path: str) -> dict[str, Any]:
    manager = _manager(session)
    target = _existing_file(path)
    await _settle(session)
    try:
        manager.set_session_file(target)
    except (OSError, ValueError) as exc:
        raise SessionError(f"Cannot open session {target}: {exc}") from None
    _reload(session)
    return {"cancelled": False}


def fork_messages(session: SessionFileHost) -> list[dict[str, str]]:
    manager = session.store.manager
    if manager is None or not hasattr(manager, "get_user_messages_for_forking"):
        return []
    messages: list[dict[str, str]] = manager.get_user_messages_for_forking()
    return messages


async def fork(session: SessionFileHost, entry_id: str) -> dict[str, Any]:
    """New session holding the history before user entry ``entry_id``; returns its text."""
    manager = _manager(session)
    entry = manager.get_entry(entry_id)
    if entry is None or entry.get("type") != "message" or entry["message"].get("role") != "user":
        raise SessionError(f"Invalid entry ID for forking: {entry_id}")
    from pi_cli.store.entry_messages import user_text

    text = user_text(entry["message"])
    await _settle(session)
    parent = entry.get("parentId")
    if parent is None:
        previous = manager.session_file
        manager.new_session(str(previous) if previous else None)
    else:
        manager.create_branched_session(parent)
    _reload(session)
    return {"text": text, "cancelled": False}


async def clone(session: SessionFileHost) -> dict[str, Any]:
    manager = _manager(session)
    leaf = manager.get_leaf_id()
    if leaf is None:
        raise SessionError("Nothing to clone: the session is empty")
    await _settle(session)
    manager.create_branched_session(leaf)
    _reload(session)
    return {"cancelled": False}


async def export_html(session: SessionFileHost, output_path: str | None) -> str:
    manager = _manager(session)
    from pi_cli.store.export_html import export_html as render

    model = session.model
    key = session.models.api_key_for_provider(model["provider"]) if model else None
    try:
        path = render(
            manager, output_path, system_prompt=session.agent.state.system_prompt, secrets=[key] if key else []
        )
    except (OSError, ValueError) as exc:
        raise SessionError(str(exc)) from None
    return str(path)


async def compact(session: SessionFileHost, custom_instructions: str | None) -> dict[str, Any]:
    method = getattr(session, "compact_now", None)
    if method is None:
        raise FeatureUnavailableError("Compaction is not available in this build.")
    result: dict[str, Any] = await method(custom_instructions)
    return result
