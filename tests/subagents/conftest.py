"""Fixtures: a private agent dir whose ``models.json`` has provider ``fx`` (models ``big`` and
``small``, so a child's ``model: fx/small`` is resolved by the real registry), a trusted project
with an AGENTS.md, and the faux provider every request goes to (see :mod:`.harness`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_cli.ai.providers.faux import FauxProvider, register_faux_provider
from pi_cli.permissions import trust


@pytest.fixture(autouse=True)
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "agent"
    root.mkdir()
    provider = {"api": "openai-completions", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k"}
    models = {"providers": {"fx": {**provider, "models": [{"id": "big"}, {"id": "small"}]}}}
    (root / "models.json").write_text(json.dumps(models))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(root))
    monkeypatch.setenv("PI_OFFLINE", "1")
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    yield root
    trust.forget_decisions()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "AGENTS.md").write_text("PROJECT RULES 42\n")
    trust.record_decision(cwd, True)
    return cwd.resolve()


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = register_faux_provider(models=["big", "small"])
    yield provider
    provider.unregister()
