"""AGENTS.md / CLAUDE.md discovery: global first, then filesystem root down to the cwd."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from pi_cli.resources.context_files import ContextFile, load_context_files

Write = Callable[[Path, str], Path]


def test_global_then_root_to_cwd(project: Path, agent_dir: Path, write: Write) -> None:
    repo = project.parent.parent
    write(agent_dir / "AGENTS.md", "global rules")
    write(repo / "AGENTS.md", "repo rules")
    write(project.parent / "CLAUDE.md", "pkg rules")
    write(project / "AGENTS.md", "sub rules")

    files = load_context_files(project, agent_dir)

    assert files == [
        ContextFile(str(agent_dir / "AGENTS.md"), "global rules"),
        ContextFile(str(repo / "AGENTS.md"), "repo rules"),
        ContextFile(str(project.parent / "CLAUDE.md"), "pkg rules"),
        ContextFile(str(project / "AGENTS.md"), "sub rules"),
    ]


def test_agents_md_wins_over_claude_md_in_one_directory(project: Path, agent_dir: Path, write: Write) -> None:
    write(project / "AGENTS.md", "agents")
    write(project / "CLAUDE.md", "claude")
    write(agent_dir / "CLAUDE.md", "global claude")
    files = load_context_files(project, agent_dir)
    assert [f.content for f in files] == ["global claude", "agents"]


def test_upper_case_extension_is_accepted(project: Path, agent_dir: Path, write: Write) -> None:
    names = {entry for entry in os.listdir(project)}
    assert not names
    write(project / "AGENTS.MD", "shouty")
    files = load_context_files(project, agent_dir)
    assert [Path(f.path).name.upper() for f in files] == ["AGENTS.MD"]
    assert files[0].content == "shouty"


def test_agent_dir_on_the_cwd_path_is_not_repeated(agent_dir: Path, write: Write) -> None:
    write(agent_dir / "AGENTS.md", "once")
    cwd = agent_dir / "nested"
    cwd.mkdir()
    files = load_context_files(cwd, agent_dir)
    assert [f.content for f in files] == ["once"]


def test_nothing_found_gives_an_empty_list(project: Path, agent_dir: Path) -> None:
    assert load_context_files(project, agent_dir) == []


def test_relative_cwd_is_made_absolute(
    project: Path, agent_dir: Path, write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(project / "AGENTS.md", "here")
    monkeypatch.chdir(project.parent)
    files = load_context_files("sub", agent_dir)
    assert files[-1].path == str(project / "AGENTS.md")


def test_directory_named_like_a_context_file_is_ignored(project: Path, agent_dir: Path, write: Write) -> None:
    (project / "AGENTS.md").mkdir()
    write(project / "CLAUDE.md", "real file")
    assert [f.content for f in load_context_files(project, agent_dir)] == ["real file"]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can read any file")
def test_unreadable_file_is_skipped_with_a_diagnostic(project: Path, agent_dir: Path, write: Write) -> None:
    path = write(project / "AGENTS.md", "secret")
    path.chmod(0)
    try:
        problems: list[str] = []
        assert load_context_files(project, agent_dir, diagnostics=problems) == []
        assert len(problems) == 1 and str(path) in problems[0]
    finally:
        path.chmod(0o644)
