"""Fixtures for the delivery stress tests: a private agent dir, the faux provider, a work dir."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


@pytest.fixture(autouse=True)
def _agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("PI_OFFLINE", "1")


@pytest.fixture
def faux() -> Iterator[Any]:
    from pi_cli.ai.providers.faux import register_faux_provider

    provider = register_faux_provider(models=["faux-1"])
    yield provider
    provider.unregister()


@pytest.fixture
def session(faux: Any, tmp_path: Path) -> Any:
    """A real AgentSession on the faux model with the bash tool, in a fresh work dir."""
    from pi_cli.agent.agent import Agent
    from pi_cli.session.agent_session import AgentSession
    from pi_cli.store.entry_messages import convert_to_llm
    from pi_cli.tools import create_all_tools

    work = tmp_path / "work"
    work.mkdir()
    tools = [create_all_tools(str(work))["bash"]]
    agent = Agent(system_prompt="test", model=faux.model(), tools=tools, convert_to_llm=convert_to_llm)
    return AgentSession(agent=agent, cwd=work)
