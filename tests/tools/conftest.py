"""Shared fixtures for the built-in tool tests: a temp working directory and tool instances."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pi_cli.agent.types import AgentTool
from pi_cli.tools import create_all_tools


@pytest.fixture(autouse=True)
def _isolated_agent_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path_factory.mktemp("agent")))
    yield


@pytest.fixture
def cwd(tmp_path: Any) -> str:
    path = tmp_path / "work"
    path.mkdir()
    return str(path)


@pytest.fixture
def tools(cwd: str) -> dict[str, AgentTool]:
    return create_all_tools(cwd)
