"""Shared fixtures: every test gets its own agent dir; helpers build realistic messages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(root))
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    yield root
