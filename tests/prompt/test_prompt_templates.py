"""Prompt template discovery, argument splitting and placeholder substitution."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pi_cli.resources.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    load_prompt_templates,
    parse_command_args,
    substitute_args,
)

Write = Callable[[Path, str], Path]


def tpl(name: str, content: str) -> PromptTemplate:
    return PromptTemplate(name=name, description="", content=content, file_path=f"/t/{name}.md", source="user")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a b  c", ["a", "b", "c"]),
        ('Button "click handler" \'it "x"\'', ["Button", "click handler", 'it "x"']),
        ('pre"fix mid"post', ["prefix midpost"]),
        ('"" real', ["real"]),
        ("\tx\ny ", ["x", "y"]),
        ('"unterminated rest', ["unterminated rest"]),
        ("", []),
    ],
)
def test_argument_splitting(text: str, expected: list[str]) -> None:
    assert parse_command_args(text) == expected


@pytest.mark.parametrize(
    ("content", "args", "expected"),
    [
        ("Review $1 with focus on ${@:2}", ["foo.py", "perf", "safety"], "Review foo.py with focus on perf safety"),
        ("$2-$1-$3", ["a", "b"], "b-a-"),
        ("all: $@ | $ARGUMENTS", ["x", "y z"], "all: x y z | x y z"),
        ("${@:2:1}/${@:1:2}/${@:3:5}", ["a", "b", "c"], "b/a b/c"),
        ("${@:0}", ["a", "b"], "a b"),
        ("${@:9}|${@:2:0}", ["a"], "|"),
        ("$0 and $10", ["a"] * 9 + ["ten"], " and ten"),
        ("no placeholders", ["ignored"], "no placeholders"),
        ("cost: $5 $", [], "cost:  $"),
    ],
)
def test_substitution(content: str, args: list[str], expected: str) -> None:
    assert substitute_args(content, args) == expected


def test_argument_text_is_never_substituted_again() -> None:
    assert substitute_args("$1 / $@", ["$2", "$ARGUMENTS"]) == "$2 / $2 $ARGUMENTS"


def test_expand_matches_only_known_templates() -> None:
    templates = [tpl("rev", "Review $1 with focus on ${@:2}"), tpl("hello", "Hello $@!")]
    assert expand_prompt_template("/rev foo.py perf safety", templates) == "Review foo.py with focus on perf safety"
    assert expand_prompt_template("/hello", templates) == "Hello !"
    assert expand_prompt_template('/hello "big world"\nagain', templates) == "Hello big world again!"
    for text in ("/nope a", "rev foo", " /rev foo", "/", "/ rev"):
        assert expand_prompt_template(text, templates) == text


def test_discovery_description_and_hint(project: Path, agent_dir: Path, write: Write) -> None:
    write(agent_dir / "prompts" / "review.md", "---\ndescription: Review staged changes\n---\nReview the diff.\n")
    long_line = "x" * 70
    write(agent_dir / "prompts" / "long.md", f"\n\n{long_line}\nsecond\n")
    write(project / ".pi" / "prompts" / "component.md", '---\nargument-hint: "<name> [features]"\n---\nMake $1\n')
    write(agent_dir / "prompts" / "notes.txt", "not a template")
    write(agent_dir / "prompts" / "sub" / "deep.md", "not discovered: non-recursive")
    templates = load_prompt_templates(project, agent_dir)
    by_name = {t.name: t for t in templates}
    assert sorted(by_name) == ["component", "long", "review"]
    assert by_name["review"].description == "Review staged changes"
    assert by_name["review"].content == "Review the diff."
    assert by_name["long"].description == "x" * 60 + "..."
    assert by_name["long"].content == f"\n\n{long_line}\nsecond\n"
    assert by_name["component"].argument_hint == "<name> [features]"
    assert by_name["component"].description == "Make $1"
    assert by_name["component"].source == "project"
    assert by_name["review"].source == "user"
    assert templates[0].name == "component"


def test_project_template_wins_a_collision(project: Path, agent_dir: Path, write: Write) -> None:
    write(agent_dir / "prompts" / "fix.md", "global fix")
    write(project / ".pi" / "prompts" / "fix.md", "project fix")
    problems: list[str] = []
    templates = load_prompt_templates(project, agent_dir, diagnostics=problems)
    assert [t.content for t in templates] == ["project fix"]
    assert len(problems) == 1 and '"/fix" collision' in problems[0]


def test_explicit_and_settings_paths(project: Path, agent_dir: Path, write: Write) -> None:
    write(agent_dir / "prompts" / "auto.md", "auto")
    write(project / "team" / "shared.md", "shared")
    write(project / "one.md", "one")
    write(project / "data.json", "{}")
    problems: list[str] = []
    write(agent_dir / "mine" / "own.md", "own")
    found = load_prompt_templates(
        project,
        agent_dir,
        ["one.md", "gone.md", "data.json"],
        project_settings_paths=["team"],
        user_settings_paths=[str(agent_dir / "mine")],
        diagnostics=problems,
    )
    assert [t.name for t in found] == ["shared", "own", "auto", "one"]
    assert [t.source for t in found] == ["project", "user", "user", "path"]
    assert any("gone.md: prompt template path does not exist" in p for p in problems)
    assert any("data.json: prompt template path is not a markdown file" in p for p in problems)
    only_explicit = load_prompt_templates(
        project, agent_dir, ["one.md"], project_settings_paths=["team"], include_defaults=False
    )
    assert [t.name for t in only_explicit] == ["one"]


def test_bad_frontmatter_is_reported_not_raised(project: Path, agent_dir: Path, write: Write) -> None:
    bad = write(agent_dir / "prompts" / "bad.md", "---\ndescription: 'open\n---\nbody\n")
    problems: list[str] = []
    assert load_prompt_templates(project, agent_dir, diagnostics=problems) == []
    assert problems == [f"{bad}: invalid frontmatter: line 1: unterminated quoted value"]
