"""Fixtures for the login tests: the fake server (its login endpoints) and a private agent dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli.pi_harness import FakeLLMServer, server

__all__ = ["server"]


@pytest.fixture
def oauth_env(tmp_path: Path, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Login URLs point at the fake server; auth.json lives in a private agent dir (returned)."""
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    monkeypatch.setenv("PI_OAUTH_BASE_URL", server.base_url)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    yield agent_dir
