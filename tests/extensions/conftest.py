"""Fixtures shared by the extension tests: a private agent dir for every test, the faux
provider, and the end-to-end harness shared with tests/cli (a fake LLM server and a private pi
environment)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli.pi_harness import pi, server

from pi_cli.ai.providers.faux import register_faux_provider

__all__ = ["agent_dir", "faux", "faux_models", "pi", "server"]


@pytest.fixture(autouse=True)
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own existing ``PI_CODING_AGENT_DIR`` and runs offline."""
    path = tmp_path / "agent"
    path.mkdir(exist_ok=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(path))
    monkeypatch.setenv("PI_OFFLINE", "1")
    return path


@pytest.fixture
def faux_models() -> list[str]:
    """The faux provider's models (a test module overrides this fixture to get more)."""
    return ["faux-1"]


@pytest.fixture
def faux(faux_models: list[str]) -> Iterator[Any]:
    provider = register_faux_provider(models=faux_models)
    yield provider
    provider.unregister()
