"""The ``load_resources`` façade: SYSTEM.md / APPEND_SYSTEM.md / CLI precedence, flags, settings."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from types import SimpleNamespace

from pi_cli.resources.loader import load_resources

Write = Callable[[Path, str], Path]
DAY = date(2026, 1, 2)
TOOLS = ["read", "bash", "edit", "write"]


def test_defaults_to_the_env_agent_dir(project: Path, agent_dir: Path, write: Write) -> None:
    write(agent_dir / "AGENTS.md", "global instructions")
    resources = load_resources(project)
    assert resources.agent_dir == str(agent_dir)
    assert [c.content for c in resources.context_files] == ["global instructions"]


def test_default_prompt_without_any_files(project: Path, agent_dir: Path) -> None:
    resources = load_resources(project, agent_dir)
    prompt = resources.build_system_prompt(TOOLS, now=DAY)
    assert prompt.startswith("You are an expert coding assistant")
    assert prompt.endswith(f"Current date: 2026-01-02\nCurrent working directory: {project}")
    assert resources.diagnostics == []
    assert resources.system_md is None and resources.append_system_md == []


def test_project_system_md_beats_global(project: Path, agent_dir: Path, write: Write) -> None:
    write(agent_dir / "SYSTEM.md", "global base")
    assert load_resources(project, agent_dir).build_system_prompt(TOOLS, now=DAY).startswith("global base\n")
    local = write(project / ".pi" / "SYSTEM.md", "project base")
    resources = load_resources(project, agent_dir)
    assert resources.system_md == "project base" and resources.system_md_path == str(local)
    prompt = resources.build_system_prompt(TOOLS, now=DAY)
    assert prompt.startswith("project base\n") and "Available tools:" not in prompt


def test_cli_system_prompt_beats_system_md_and_keeps_context(project: Path, agent_dir: Path, write: Write) -> None:
    write(project / ".pi" / "SYSTEM.md", "project base")
    write(project / "AGENTS.md", "be careful")
    prompt = load_resources(project, agent_dir, system_prompt="cli base").build_system_prompt(TOOLS, now=DAY)
    assert prompt.startswith("cli base\n\n# Project Context")
    assert f"## {project / 'AGENTS.md'}\n\nbe careful" in prompt
    assert prompt.endswith(f"Current working directory: {project}")


def test_cli_system_prompt_may_name_a_file(project: Path, agent_dir: Path, write: Write) -> None:
    write(project / "prompt.txt", "from a file")
    assert load_resources(project, agent_dir, system_prompt="prompt.txt").system_md == "from a file"
    assert load_resources(project, agent_dir, system_prompt="not/a/file.txt").system_md == "not/a/file.txt"
    weird = "line one\nline two\x00" + "x" * 5000
    assert load_resources(project, agent_dir, system_prompt=weird).system_md == weird


def test_append_system_md_project_then_global(project: Path, agent_dir: Path, write: Write) -> None:
    write(agent_dir / "APPEND_SYSTEM.md", "global extra")
    assert load_resources(project, agent_dir).append_system_md == ["global extra"]
    write(project / ".pi" / "APPEND_SYSTEM.md", "project extra")
    resources = load_resources(project, agent_dir)
    assert resources.append_system_md == ["project extra"]
    assert "Guidelines:" in resources.build_system_prompt(TOOLS, now=DAY)


def test_cli_appends_replace_append_system_md(project: Path, agent_dir: Path, write: Write) -> None:
    write(project / ".pi" / "APPEND_SYSTEM.md", "file extra")
    write(project / "more.md", "from file")
    resources = load_resources(project, agent_dir, append_system_prompt=["first", "more.md"])
    assert resources.append_system_md == ["first", "from file"]
    prompt = resources.build_system_prompt(TOOLS, now=DAY)
    assert "\n\nfirst\n\nfrom file" in prompt and "file extra" not in prompt


def test_no_context_files_flag(project: Path, agent_dir: Path, write: Write) -> None:
    write(project / "AGENTS.md", "ctx")
    assert load_resources(project, agent_dir, no_context_files=True).context_files == []
    prompt = load_resources(project, agent_dir, None, True).build_system_prompt(TOOLS, now=DAY)
    assert "# Project Context" not in prompt


def test_no_skills_and_no_templates_keep_explicit_paths(project: Path, agent_dir: Path, write: Write) -> None:
    write(agent_dir / "skills" / "auto" / "SKILL.md", "---\nname: auto\ndescription: a\n---\nx")
    write(agent_dir / "prompts" / "auto.md", "auto prompt")
    write(project / "mine" / "SKILL.md", "---\nname: mine\ndescription: m\n---\nx")
    write(project / "p.md", "explicit prompt")
    resources = load_resources(
        project,
        agent_dir,
        no_skills=True,
        no_prompt_templates=True,
        skill_paths=["mine"],
        prompt_template_paths=["p.md"],
    )
    assert [s.name for s in resources.skills] == ["mine"]
    assert [t.name for t in resources.templates] == ["p"]


def test_settings_add_paths_and_can_disable_skill_commands(project: Path, agent_dir: Path, write: Write) -> None:
    skill = write(project / "team-skills" / "lint" / "SKILL.md", "---\nname: lint\ndescription: Lint\n---\nRun ruff.")
    write(project / "team-prompts" / "ship.md", "Ship $1")
    settings = {"skills": ["team-skills"], "prompts": ["team-prompts"]}
    resources = load_resources(project, agent_dir, settings)
    assert resources.expand_input("/ship v2") == "Ship v2"
    assert resources.expand_input("/skill:lint now").startswith(f'<skill name="lint" location="{skill}">')
    assert resources.expand_input("/skill:lint now").endswith("</skill>\n\nnow")

    off = load_resources(
        project, agent_dir, SimpleNamespace(skills=["team-skills"], prompts=[], enableSkillCommands=False)
    )
    assert off.expand_input("/skill:lint now") == "/skill:lint now"
    assert [c["name"] for c in off.commands()] == []


def test_settings_files_resolve_entries_against_their_own_scope(
    project: Path, agent_dir: Path, home: Path, write: Write
) -> None:
    # pi's documented example: a project entry "../.claude/skills" is relative to <cwd>/.pi.
    write(project / ".pi" / "settings.json", json.dumps({"skills": ["../.claude/skills"], "prompts": ["../team"]}))
    write(project / ".claude" / "skills" / "proj" / "SKILL.md", "---\nname: proj\ndescription: p\n---\nx")
    write(project / "team" / "ship.md", "Ship it")
    write(agent_dir / "settings.json", json.dumps({"skills": ["extra-skills"], "prompts": ["~/my-prompts"]}))
    write(agent_dir / "extra-skills" / "glob" / "SKILL.md", "---\nname: glob\ndescription: g\n---\nx")
    write(home / "my-prompts" / "mine.md", "Mine")
    # The merged in-memory settings are ignored for paths once the files provide them.
    resources = load_resources(project, agent_dir, {"skills": ["nowhere"], "prompts": ["nowhere"]})
    assert [(s.name, s.source) for s in resources.skills] == [("proj", "project"), ("glob", "user")]
    assert [(t.name, t.source) for t in resources.templates] == [("ship", "project"), ("mine", "user")]
    assert resources.diagnostics == []


def test_broken_settings_file_is_left_to_the_settings_loader(project: Path, agent_dir: Path, write: Write) -> None:
    write(project / ".pi" / "settings.json", "{not json")
    write(project / "fallback" / "f.md", "F")
    resources = load_resources(project, agent_dir, {"prompts": ["fallback"]})
    assert [t.name for t in resources.templates] == ["f"]
    assert resources.diagnostics == []


def test_real_settings_object_is_understood(project: Path, agent_dir: Path, write: Write) -> None:
    from pi_cli.config.settings import Settings

    write(agent_dir / "skills" / "x" / "SKILL.md", "---\nname: x\ndescription: d\n---\nbody")
    assert load_resources(project, agent_dir, Settings()).expand_input("/skill:x").startswith("<skill")
    off = load_resources(project, agent_dir, Settings(enable_skill_commands=False))
    assert off.expand_input("/skill:x") == "/skill:x"


def test_bad_settings_values_become_diagnostics(project: Path, agent_dir: Path) -> None:
    resources = load_resources(project, agent_dir, {"skills": "not-a-list", "prompts": [1, 2]})
    assert resources.diagnostics == [
        "settings: skills must be a list of paths; ignored",
        "settings: prompts must be a list of paths; ignored",
    ]


def test_commands_in_rpc_shape(project: Path, agent_dir: Path, write: Write) -> None:
    tpl = write(project / ".pi" / "prompts" / "rev.md", "---\ndescription: Review\n---\nReview $1")
    skill = write(agent_dir / "skills" / "pdf" / "SKILL.md", "---\nname: pdf\ndescription: PDFs\n---\nx")
    commands = load_resources(project, agent_dir).commands()
    assert commands == [
        {
            "name": "rev",
            "description": "Review",
            "source": "prompt",
            "sourceInfo": {
                "path": str(tpl),
                "source": "local",
                "scope": "project",
                "origin": "top-level",
                "baseDir": str(tpl.parent),
            },
        },
        {
            "name": "skill:pdf",
            "description": "PDFs",
            "source": "skill",
            "sourceInfo": {
                "path": str(skill),
                "source": "local",
                "scope": "user",
                "origin": "top-level",
                "baseDir": str(skill.parent),
            },
        },
    ]


def test_skill_expansion_runs_before_templates(project: Path, agent_dir: Path, write: Write) -> None:
    write(agent_dir / "skills" / "x" / "SKILL.md", "---\nname: x\ndescription: d\n---\nskill body")
    write(agent_dir / "prompts" / "skill:x.md", "template body")
    resources = load_resources(project, agent_dir)
    assert resources.expand_input("/skill:x").startswith('<skill name="x"')
    assert resources.expand_input("plain text") == "plain text"


def test_skill_diagnostics_surface_through_the_facade(project: Path, agent_dir: Path, write: Write) -> None:
    path = write(agent_dir / "skills" / "nodesc" / "SKILL.md", "---\nname: nodesc\n---\nbody")
    assert load_resources(project, agent_dir).diagnostics == [f"{path}: description is required"]


def test_importing_the_facade_is_cheap() -> None:
    code = (
        "import sys, pi_cli.resources.loader\n"
        "heavy = {'pydantic', 'textual', 'httpx', 'yaml', 'rich', 'jsonschema'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
