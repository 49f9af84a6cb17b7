"""Fixtures for the TUI tests: a real AgentSession over the faux provider, headless app."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


@pytest.fixture(autouse=True)
def _agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("PI_OFFLINE", "1")


@pytest.fixture
def faux() -> Iterator[Any]:
    from pi_cli.ai.providers.faux import register_faux_provider

    provider = register_faux_provider(models=["faux-1", "faux-2"])
    yield provider
    provider.unregister()


def make_session(
    faux: Any, cwd: Path, tools: list[Any] | None = None, model_id: str | None = None, parts: Any = None
) -> Any:
    """A real AgentSession with the faux provider's model, the given tools and parts."""
    from pi_cli.session.assembly import build_session

    session = build_session(cwd=cwd, parts=parts, system_prompt="test", model=faux.model(model_id), tools=tools or [])
    session.models.extra_models = list(faux.models)
    return session


def gate_parts(cwd: Path, mode: str) -> Any:
    """SessionParts with an approval gate in ``mode`` (the project's trust as saved)."""
    from pi_cli.permissions.gate import gate_for_session
    from pi_cli.permissions.trust import is_project_trusted
    from pi_cli.session.assembly import SessionParts

    gate = gate_for_session(cwd, mode=mode, settings_mode=None, project_trusted=is_project_trusted(cwd))
    return SessionParts(permissions=gate)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / "hello.txt").write_text("hello\n")
    return work
