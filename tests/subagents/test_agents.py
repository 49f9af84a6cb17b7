"""Agent definitions: places and precedence, Claude Code files, one warning per bad file, the
listing (``pi --list-agents``), packages' ``agents/`` folders and project trust."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.cli import main
from pi_cli.packages.contents import package_contents
from pi_cli.permissions.trust import has_protected_resources
from pi_cli.resources.agents import format_agent_list, load_agents

from .harness import write_agent


def test_builtins_and_precedence_the_project_wins(tmp_path: Path) -> None:
    agent_dir, project, package = tmp_path / "agent", tmp_path / "project", tmp_path / "pkg"
    write_agent(package / "agents" / "nested", "helper", "name: helper\ndescription: from a package", "PKG")
    write_agent(agent_dir / "agents" / "team", "helper", "name: helper\ndescription: the user's", "USER")
    write_agent(agent_dir / "agents", "scout", "name: scout\ndescription: my scout\ntools: read", "MY SCOUT")
    write_agent(project / ".claude" / "agents", "scout", "name: scout\ndescription: claude's", "CLAUDE")
    write_agent(project / ".pi" / "agents", "scout", "name: scout\ndescription: the project's", "PROJECT")
    paths = {"user_agents": [str(package / "agents")]}
    catalog = load_agents(project, agent_dir, project_trusted=True, package_paths=paths)
    assert catalog.warnings == []
    assert sorted(catalog.names()) == ["helper", "reviewer", "scout", "worker"]
    scout, helper = catalog.get("scout"), catalog.get("helper")
    assert scout is not None and scout.system_prompt == "PROJECT" and scout.source == "project"
    assert scout.tools is None  # the project's file names none: the default tools
    assert helper is not None and helper.system_prompt == "USER" and helper.source == "user"
    worker = catalog.get("worker")
    assert worker is not None and worker.source == "builtin" and worker.tools == (
        "read", "bash", "edit", "write", "grep", "find", "ls",
    )  # fmt: skip
    untrusted = load_agents(project, agent_dir, project_trusted=False, package_paths=paths)
    mine = untrusted.get("scout")
    assert mine is not None and mine.system_prompt == "MY SCOUT" and mine.tools == ("read",)


def test_front_matter_fields_and_claude_code_files(tmp_path: Path) -> None:
    project = tmp_path / "p"
    write_agent(project / ".pi" / "agents", "planner", "name: planner\ndescription: plans\n"
                "tools:\n  - read\n  - mcp__docs__search\nmodel: fx/small:high\nthinking: low", "Plan it.")  # fmt: skip
    write_agent(project / ".claude" / "agents", "tester", "name: tester\ndescription: >\n  Runs the\n  tests\n"
                "tools: Read, Glob, Bash, WebFetch\nmodel: inherit", "Test it.")  # fmt: skip
    write_agent(project / ".claude" / "agents", "fast", "name: fast\ndescription: quick\nmodel: haiku", "Go.")
    catalog = load_agents(project, tmp_path / "agent", project_trusted=True)
    planner, tester, fast = catalog.get("planner"), catalog.get("tester"), catalog.get("fast")
    assert planner is not None and planner.tools == ("read", "mcp__docs__search")
    assert planner.model == "fx/small:high" and planner.thinking == "low" and not planner.model_is_hint
    assert tester is not None and tester.tools == ("read", "find", "bash", "WebFetch")
    assert tester.model is None and tester.description == "Runs the tests"
    assert fast is not None and fast.model == "haiku" and fast.model_is_hint


@pytest.mark.parametrize(
    ("front", "field"),
    [
        ("description: no name", '"name" is missing'),
        ("name: x", '"description" is missing'),
        ("name: x\ndescription: y\nthinking: loud", '"thinking" must be one of'),
        ("name: x y\ndescription: y", "\"name\" 'x y' may only hold"),
        ("name: x\ndescription: y\ntools: 3", '"tools" must be a comma-separated list'),
        ("name: x\ndescription: y\njust words", "invalid frontmatter: line 3"),
    ],
)
def test_a_bad_file_is_one_warning_naming_file_and_field(tmp_path: Path, front: str, field: str) -> None:
    path = write_agent(tmp_path / "agent" / "agents", "bad", front, "body")
    catalog = load_agents(tmp_path / "p", tmp_path / "agent", project_trusted=False)
    assert len(catalog.warnings) == 1
    assert catalog.warnings[0].startswith(f"agent file {path}: ") and field in catalog.warnings[0]
    assert catalog.warnings[0].endswith("; skipped")
    assert sorted(catalog.names()) == ["reviewer", "scout", "worker"]


def test_the_listing_and_pi_list_agents(
    tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_agent(agent_dir / "agents", "helper", "name: helper\ndescription: helps\ntools: read\nmodel: fx/small", "x")
    write_agent(agent_dir / "agents", "broken", "name: broken", "x")
    text = format_agent_list(load_agents(tmp_path, agent_dir, project_trusted=False), home=str(tmp_path))
    assert text.splitlines()[0].startswith("scout [builtin]  Fast read-only")
    assert "helper [user]  helps\n    tools: read   model: fx/small\n    file: ~/agent/agents/helper.md" in text
    assert text.splitlines()[-1].startswith("Warning: agent file ")
    monkeypatch.chdir(tmp_path)
    assert main(["--list-agents"]) == 0
    out, err = capsys.readouterr()
    assert "helper [user]" in out and "worker [builtin]" in out and "broken" not in out
    assert err.startswith("Warning: agent file ") and '"description" is missing' in err


def test_packages_contribute_agents_folders(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    write_agent(root / "agents" / "deep", "a", "name: a\ndescription: d", "x")
    assert package_contents(root).agents == [root / "agents"]
    (root / "pyproject.toml").write_text('[tool.pi]\nagents = ["agents/deep/*.md"]\n')
    assert package_contents(root).agents == [root / "agents" / "deep" / "a.md"]
    narrowed = package_contents(root, {"agents": ["!agents/deep/a.md"]})
    assert narrowed.agents == []


def test_project_agent_files_make_a_folder_need_trust(tmp_path: Path) -> None:
    for folder in (".pi/agents", ".claude/agents"):
        project = tmp_path / folder.replace("/", "_")
        (project / folder).mkdir(parents=True)
        assert has_protected_resources(project, home=str(tmp_path / "home"))
    bare = tmp_path / "bare"
    (bare / ".claude").mkdir(parents=True)
    (bare / ".claude" / "settings.json").write_text(json.dumps({}))
    assert not has_protected_resources(bare, home=str(tmp_path / "home"))
