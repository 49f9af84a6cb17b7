"""Every prompt test runs with a private agent dir and HOME under tmp_path (never the real ``~``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".pi" / "agent"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository at tmp/work/repo with the cwd two levels down (repo/pkg/sub)."""
    repo = tmp_path / "work" / "repo"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "pkg" / "sub"
    cwd.mkdir(parents=True)
    return cwd


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def write() -> Callable[[Path, str], Path]:
    """Create a file (and its parents) with the given text; returns its path."""
    return _write
