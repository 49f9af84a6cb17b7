"""Skill discovery, validation diagnostics, precedence and ``/skill:`` expansion."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from pi_cli.resources.skills import Skill, expand_skill_command, format_skills_for_prompt, load_skills

Write = Callable[[Path, str], Path]


def skill_md(name: str | None, description: str | None, body: str = "Do it.", extra: str = "") -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra)
    lines += ["---", "", body, ""]
    return "\n".join(lines)


def test_global_and_project_skills_load(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    g = write(agent_dir / "skills" / "alpha" / "SKILL.md", skill_md("alpha", "Global alpha"))
    p = write(project / ".pi" / "skills" / "beta" / "SKILL.md", skill_md("beta", "Project beta"))
    skills, problems = load_skills(project, agent_dir, home=str(home))
    assert problems == []
    by_name = {s.name: s for s in skills}
    assert by_name["alpha"] == Skill("alpha", "Global alpha", str(g), str(g.parent), "user")
    assert by_name["beta"] == Skill("beta", "Project beta", str(p), str(p.parent), "project")
    # Project skills come first: they win collisions.
    assert [s.name for s in skills] == ["beta", "alpha"]


def test_project_wins_a_name_collision_and_the_loser_is_reported(
    project: Path, agent_dir: Path, home: Path, write: Write
) -> None:
    write(agent_dir / "skills" / "dup" / "SKILL.md", skill_md("dup", "user one"))
    winner = write(project / ".pi" / "skills" / "dup" / "SKILL.md", skill_md("dup", "project one"))
    skills, problems = load_skills(project, agent_dir, home=str(home))
    assert [(s.name, s.description) for s in skills] == [("dup", "project one")]
    assert len(problems) == 1
    assert 'skill name "dup" collision' in problems[0] and str(winner) in problems[0]


def test_agents_skills_dirs_up_to_git_root_and_in_home(
    project: Path, agent_dir: Path, home: Path, write: Write
) -> None:
    repo = project.parent.parent
    write(project / ".agents" / "skills" / "here" / "SKILL.md", skill_md("here", "cwd level"))
    write(repo / ".agents" / "skills" / "top" / "SKILL.md", skill_md("top", "repo root level"))
    write(repo.parent / ".agents" / "skills" / "outside" / "SKILL.md", skill_md("outside", "above the repo"))
    write(home / ".agents" / "skills" / "mine" / "SKILL.md", skill_md("mine", "home level"))
    write(repo / ".agents" / "skills" / "loose.md", skill_md("loose", "root md is ignored here"))
    skills, problems = load_skills(project, agent_dir, home=str(home))
    assert problems == []
    assert [s.name for s in skills] == ["here", "top", "mine"]
    assert [s.source for s in skills] == ["project", "project", "user"]


def test_home_defaults_to_the_home_env(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    write(home / ".agents" / "skills" / "mine" / "SKILL.md", skill_md("mine", "home level"))
    skills, _ = load_skills(project, agent_dir)
    assert [s.name for s in skills] == ["mine"]


def test_loose_markdown_files_count_in_pi_skill_dirs(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    write(agent_dir / "skills" / "quick.md", skill_md(None, "A loose skill"))
    write(agent_dir / "skills" / "notes.md", "# just notes, no frontmatter\n")
    write(agent_dir / "skills" / "deep" / "nested" / "inner.md", skill_md("inner", "not a root file"))
    skills, problems = load_skills(project, agent_dir, home=str(home))
    assert [s.name for s in skills] == ["quick"]
    assert problems == []


def test_skill_dir_is_not_searched_below_its_skill_md(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    write(agent_dir / "skills" / "outer" / "SKILL.md", skill_md("outer", "outer"))
    write(agent_dir / "skills" / "outer" / "inner" / "SKILL.md", skill_md("inner", "inner"))
    write(agent_dir / "skills" / ".hidden" / "SKILL.md", skill_md("hidden", "dot dir"))
    write(agent_dir / "skills" / "node_modules" / "dep" / "SKILL.md", skill_md("dep", "dependency"))
    skills, _ = load_skills(project, agent_dir, home=str(home))
    assert [s.name for s in skills] == ["outer"]


def test_validation_warnings_keep_the_skill(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    base = agent_dir / "skills"
    write(base / "Bad_Name" / "SKILL.md", skill_md("Bad_Name", "x"))
    write(base / "-edge-" / "SKILL.md", skill_md("-edge-", "x"))
    write(base / "a--b" / "SKILL.md", skill_md("a--b", "x"))
    write(base / "mismatch" / "SKILL.md", skill_md("other-name", "x"))
    long_name = "a" * 65
    write(base / long_name / "SKILL.md", skill_md(long_name, "x"))
    write(base / "wordy" / "SKILL.md", skill_md("wordy", "d" * 1025))
    skills, problems = load_skills(project, agent_dir, home=str(home))
    assert sorted(s.name for s in skills) == sorted(["Bad_Name", "-edge-", "a--b", "other-name", long_name, "wordy"])
    text = "\n".join(problems)
    assert "name contains invalid characters" in text
    assert "name must not start or end with a hyphen" in text
    assert "name must not contain consecutive hyphens" in text
    assert 'name "other-name" does not match parent directory "mismatch"' in text
    assert "name exceeds 64 characters (65)" in text
    assert "description exceeds 1024 characters (1025)" in text
    assert all(line.startswith(str(base)) and "\n" not in line for line in problems)


def test_missing_description_or_bad_frontmatter_drops_the_skill(
    project: Path, agent_dir: Path, home: Path, write: Write
) -> None:
    no_desc = write(agent_dir / "skills" / "nodesc" / "SKILL.md", skill_md("nodesc", None))
    blank = write(agent_dir / "skills" / "blank" / "SKILL.md", skill_md("blank", '"   "'))
    broken = write(agent_dir / "skills" / "broken" / "SKILL.md", "---\nname broken\n---\nbody\n")
    skills, problems = load_skills(project, agent_dir, home=str(home))
    assert skills == []
    assert f"{no_desc}: description is required" in problems
    assert f"{blank}: description is required" in problems
    assert any(p.startswith(f"{broken}: invalid frontmatter: line 1") for p in problems)


def test_name_defaults_to_the_directory(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    write(agent_dir / "skills" / "from-dir" / "SKILL.md", skill_md(None, "named by folder"))
    skills, problems = load_skills(project, agent_dir, home=str(home))
    assert [s.name for s in skills] == ["from-dir"] and problems == []


def test_disable_model_invocation_flag(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    write(agent_dir / "skills" / "quiet" / "SKILL.md", skill_md("quiet", "q", extra="disable-model-invocation: true"))
    skills, _ = load_skills(project, agent_dir, home=str(home))
    assert skills[0].disable_model_invocation is True
    assert format_skills_for_prompt(skills) == ""


def test_symlinked_skill_is_loaded_once(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    real = write(agent_dir / "skills" / "real" / "SKILL.md", skill_md("real", "r"))
    (project / ".pi" / "skills").mkdir(parents=True)
    os.symlink(real.parent, project / ".pi" / "skills" / "real")
    skills, problems = load_skills(project, agent_dir, home=str(home))
    assert [s.name for s in skills] == ["real"] and problems == []


def test_explicit_paths_load_even_without_discovery(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    write(agent_dir / "skills" / "auto" / "SKILL.md", skill_md("auto", "auto"))
    one = write(project / "extra" / "one.md", skill_md("one", "file skill"))
    write(project / "bundle" / "two" / "SKILL.md", skill_md("two", "dir skill"))
    skills, problems = load_skills(
        project, agent_dir, ["extra/one.md", str(project / "bundle"), "missing", "extra"], include_defaults=False
    )
    assert [s.name for s in skills] == ["one", "two"]
    assert skills[0].source == "path" and skills[0].file_path == str(one)
    assert f"{project / 'missing'}: skill path does not exist" in problems


def test_settings_entries_rank_by_scope(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    write(project / ".pi" / "skills" / "s" / "SKILL.md", skill_md("s", "project auto"))
    write(project / "team" / "s" / "SKILL.md", skill_md("s", "project settings"))
    write(project / "team" / "t" / "SKILL.md", skill_md("t", "project settings t"))
    write(agent_dir / "mine" / "t" / "SKILL.md", skill_md("t", "user settings"))
    write(agent_dir / "mine" / "u" / "SKILL.md", skill_md("u", "user settings u"))
    write(agent_dir / "skills" / "u" / "SKILL.md", skill_md("u", "user auto"))
    skills, problems = load_skills(
        project,
        agent_dir,
        project_settings_paths=[str(project / "team")],
        user_settings_paths=[str(agent_dir / "mine")],
        home=str(home),
    )
    assert [(s.name, s.description, s.source) for s in skills] == [
        ("s", "project settings", "project"),
        ("t", "project settings t", "project"),
        ("u", "user settings u", "user"),
    ]
    assert len(problems) == 3 and all("collision" in p for p in problems)
    skills_off, _ = load_skills(
        project, agent_dir, project_settings_paths=[str(project / "team")], include_defaults=False, home=str(home)
    )
    assert skills_off == []


def test_prompt_block_lists_name_description_location() -> None:
    skill = Skill("a", "does a", "/x/a/SKILL.md", "/x/a", "user")
    block = format_skills_for_prompt([skill])
    assert block.startswith("\n\n")
    assert block.endswith(
        "<available_skills>\n  <skill>\n    <name>a</name>\n    <description>does a</description>\n"
        "    <location>/x/a/SKILL.md</location>\n  </skill>\n</available_skills>"
    )
    assert "read tool" in block


def test_skill_command_expands_with_and_without_args(tmp_path: Path, write: Write) -> None:
    path = write(tmp_path / "sk" / "review" / "SKILL.md", skill_md("review", "Review code", body="Step 1.\n\nStep 2."))
    skill = Skill("review", "Review code", str(path), str(path.parent), "user")
    bare = expand_skill_command("/skill:review", [skill])
    assert bare == (
        f'<skill name="review" location="{path}">\nReferences are relative to {path.parent}.\n\n'
        "Step 1.\n\nStep 2.\n</skill>"
    )
    assert expand_skill_command("/skill:review  src/app.py  fast ", [skill]) == f"{bare}\n\nsrc/app.py  fast"


def test_skill_command_leaves_other_text_alone(tmp_path: Path, write: Write) -> None:
    path = write(tmp_path / "review" / "SKILL.md", skill_md("review", "r"))
    skill = Skill("review", "r", str(path), str(path.parent), "user")
    for text in ("/skill:unknown x", "/skill:", "review", "/review", " /skill:review"):
        assert expand_skill_command(text, [skill]) == text


def test_skill_command_with_vanished_file_reports_and_passes_through(tmp_path: Path) -> None:
    skill = Skill("gone", "g", str(tmp_path / "gone" / "SKILL.md"), str(tmp_path / "gone"), "user")
    errors: list[str] = []
    assert expand_skill_command("/skill:gone now", [skill], errors) == "/skill:gone now"
    assert len(errors) == 1 and "gone" in errors[0] and "\n" not in errors[0]


def test_ignore_files_exclude_skills(project: Path, agent_dir: Path, home: Path, write: Write) -> None:
    base = agent_dir / "skills"
    write(base / ".gitignore", "build/\n# comment\n*.draft.md\n!keep.draft.md\n/anchored\n")
    write(base / "build" / "gen" / "SKILL.md", skill_md("gen", "generated"))
    write(base / "wip.draft.md", skill_md("wip", "draft"))
    write(base / "keep.draft.md", skill_md("keep", "kept despite the pattern"))
    write(base / "anchored" / "SKILL.md", skill_md("anchored", "only at the root"))
    write(base / "group" / "anchored" / "SKILL.md", skill_md("anchored", "nested one survives"))
    write(base / "group" / ".ignore", "secret\n")
    write(base / "group" / "secret" / "SKILL.md", skill_md("secret", "hidden by a nested ignore"))
    write(base / "group" / "shown" / "SKILL.md", skill_md("shown", "visible"))
    write(base / "build-tools" / "SKILL.md", skill_md("build-tools", "a file-name prefix is not a match"))
    skills, problems = load_skills(project, agent_dir, home=str(home))
    assert sorted((s.name, s.description) for s in skills) == [
        ("anchored", "nested one survives"),
        ("build-tools", "a file-name prefix is not a match"),
        ("keep", "kept despite the pattern"),
        ("shown", "visible"),
    ]
    assert problems == []


def test_an_explicit_markdown_file_is_always_validated(project: Path, agent_dir: Path, write: Write) -> None:
    plain = write(project / "plain.md", "# no frontmatter\n")
    skills, problems = load_skills(project, agent_dir, ["plain.md", "nope.txt"], include_defaults=False)
    assert skills == []
    assert f"{plain}: description is required" in problems
    assert f"{project / 'nope.txt'}: skill path does not exist" in problems
    write(project / "data.txt", "x")
    _, more = load_skills(project, agent_dir, ["data.txt"], include_defaults=False)
    assert more == [f"{project / 'data.txt'}: skill path is not a markdown file"]
