"""Fixtures for wire-level provider tests (see helpers.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .helpers import FakeLLMServer


@pytest.fixture(autouse=True)
def _agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))


@pytest.fixture
async def server() -> AsyncIterator[FakeLLMServer]:
    srv = FakeLLMServer()
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()
