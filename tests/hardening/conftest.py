"""Hardening tests: every test gets a private agent dir and no API keys from the real environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

_KEY_HINTS = ("_API_KEY", "_TOKEN")


@pytest.fixture(autouse=True)
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "agent"
    root.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(root))
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    import os

    for name in list(os.environ):
        if any(hint in name for hint in _KEY_HINTS):
            monkeypatch.delenv(name)
    yield root
