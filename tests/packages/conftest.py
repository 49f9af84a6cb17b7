"""Package tests: the end-to-end fixtures of tests/cli, plus a private agent dir for in-process
commands (PI_CODING_AGENT_DIR in tmp_path, the cwd a fresh project, trust decisions forgotten)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli.pi_harness import pi, server

from pi_cli.permissions import trust

__all__ = ["Dirs", "dirs", "git_repo", "pi", "server"]


@dataclass
class Dirs:
    agent: Path
    project: Path
    root: Path


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Dirs]:
    agent, project, home = tmp_path / "agent", tmp_path / "project", tmp_path / "home"
    for folder in (agent, project, home):
        folder.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("PI_OFFLINE", raising=False)
    monkeypatch.chdir(project)
    trust.forget_decisions()
    yield Dirs(agent, project, tmp_path)
    trust.forget_decisions()


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    """Write ``files`` into ``repo``, commit them; returns the new commit hash."""
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    env = ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", *env, "add", "-A"], cwd=repo, check=True, capture_output=True)
    subprocess.run(["git", *env, "commit", "-qm", message], cwd=repo, check=True, capture_output=True)
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True, text=True)
    return out.stdout.strip()


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A local repository (branch main) holding one prompt template, tagged v1."""
    repo = tmp_path / "upstream" / "tools"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    commit(repo, {"prompts/ver.md": "---\ndescription: v1\n---\nVersion one $1\n"}, "one")
    subprocess.run(["git", "tag", "v1"], cwd=repo, check=True)
    return repo
