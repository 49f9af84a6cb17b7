"""Structure of the system prompt: tools, guidelines, context, skills, date and cwd."""

from __future__ import annotations

from datetime import date, datetime

from pi_cli.resources.context_files import ContextFile
from pi_cli.resources.skills import Skill
from pi_cli.resources.system_prompt import TOOL_SNIPPETS, build_system_prompt

DAY = date(2026, 3, 4)
SKILL = Skill("pdf-tools", "Work with <PDF> & forms", "/s/pdf-tools/SKILL.md", "/s/pdf-tools", "user")
HIDDEN = Skill("secret", "Only by command", "/s/secret/SKILL.md", "/s/secret", "user", disable_model_invocation=True)


def _section(prompt: str, title: str) -> list[str]:
    """Bullet lines under ``title`` up to the next blank line."""
    lines = prompt.split("\n")
    start = lines.index(title) + 1
    out: list[str] = []
    for line in lines[start:]:
        if not line:
            break
        out.append(line)
    return out


def test_default_coding_tools_are_listed_in_order() -> None:
    prompt = build_system_prompt("/proj", ["read", "bash", "edit", "write"], now=DAY)
    tools = _section(prompt, "Available tools:")
    assert [line.split(":")[0] for line in tools] == ["- read", "- bash", "- edit", "- write"]
    assert tools[0] == f"- read: {TOOL_SNIPPETS['read']}"
    assert prompt.startswith("You are an expert coding assistant")


def test_date_and_cwd_close_the_prompt() -> None:
    prompt = build_system_prompt("/proj", ["read"], now=datetime(2026, 3, 4, 23, 59))
    assert prompt.endswith("\nCurrent date: 2026-03-04\nCurrent working directory: /proj")


def test_windows_separators_in_cwd_become_slashes() -> None:
    assert build_system_prompt("C:\\work\\x", [], now=DAY).endswith("Current working directory: C:/work/x")


def test_bash_only_gets_the_bash_exploration_rule() -> None:
    rules = _section(build_system_prompt("/p", ["bash"], now=DAY), "Guidelines:")
    assert any("Use bash for file operations" in rule for rule in rules)
    assert not any("over bash" in rule for rule in rules)
    assert not any("edits[]" in rule for rule in rules)


def test_exploration_tools_are_preferred_over_bash_when_present() -> None:
    rules = _section(build_system_prompt("/p", ["bash", "grep", "ls"], now=DAY), "Guidelines:")
    preferred = [rule for rule in rules if "over bash" in rule]
    assert preferred == ["- To explore files prefer the grep/ls tools over bash: they are faster and honour .gitignore"]
    assert not any("Use bash for file operations" in rule for rule in rules)


def test_read_and_edit_rules_follow_the_active_tools() -> None:
    with_read = _section(build_system_prompt("/p", ["read", "edit"], now=DAY), "Guidelines:")
    assert any("rather than cat" in rule for rule in with_read)
    assert any("edits[].oldText" in rule for rule in with_read)
    assert any("Read a file before you edit it" in rule for rule in with_read)
    assert any("plain text" in rule for rule in with_read)

    read_only = _section(build_system_prompt("/p", ["read", "grep", "find", "ls"], now=DAY), "Guidelines:")
    assert not any("edits[]" in rule or "plain text" in rule or "write" in rule for rule in read_only)
    assert read_only[-2:] == ["- Show file paths clearly when you work with files", read_only[-1]]
    assert "parallel" in read_only[-1]


def test_every_prompt_has_the_general_rules_once() -> None:
    prompt = build_system_prompt("/p", ["read", "bash", "edit", "write", "grep", "find", "ls"], now=DAY)
    rules = _section(prompt, "Guidelines:")
    assert len(rules) == len(set(rules))
    assert "- Be concise in your answers" in rules


def test_no_tools_says_none() -> None:
    prompt = build_system_prompt("/p", [], now=DAY)
    assert _section(prompt, "Available tools:") == ["(none)"]
    assert not any("parallel" in rule for rule in _section(prompt, "Guidelines:"))


def test_unknown_tools_need_a_snippet_to_be_listed() -> None:
    prompt = build_system_prompt("/p", ["read", "deploy"], now=DAY)
    assert [line.split(":")[0] for line in _section(prompt, "Available tools:")] == ["- read"]
    custom = build_system_prompt(
        "/p",
        ["read", "deploy"],
        now=DAY,
        tool_snippets={"deploy": "Ship the build"},
        tool_guidelines={"deploy": ["Deploy only when asked"]},
    )
    assert "- deploy: Ship the build" in _section(custom, "Available tools:")
    assert "- Deploy only when asked" in _section(custom, "Guidelines:")


def test_docs_pointer_is_in_the_default_prompt() -> None:
    prompt = build_system_prompt("/p", ["read"], now=DAY)
    assert "pi_cli documentation" in prompt
    assert "pi --help" in prompt


def test_sections_come_in_pi_order() -> None:
    context = [ContextFile("/g/AGENTS.md", "global text"), ContextFile("/p/AGENTS.md", "project text")]
    prompt = build_system_prompt(
        "/p", ["read", "bash"], append=["extra one", "extra two"], context_files=context, skills=[SKILL], now=DAY
    )
    order = [
        prompt.index("Guidelines:"),
        prompt.index("\n\nextra one\n\nextra two"),
        prompt.index("\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n"),
        prompt.index("## /g/AGENTS.md\n\nglobal text\n\n"),
        prompt.index("## /p/AGENTS.md\n\nproject text\n\n"),
        prompt.index("<available_skills>"),
        prompt.index("\nCurrent date: 2026-03-04"),
    ]
    assert order == sorted(order)


def test_skills_block_needs_the_read_tool_and_hides_disabled_skills() -> None:
    with_read = build_system_prompt("/p", ["read"], skills=[SKILL, HIDDEN], now=DAY)
    assert "<name>pdf-tools</name>" in with_read
    assert "<description>Work with &lt;PDF&gt; &amp; forms</description>" in with_read
    assert "<location>/s/pdf-tools/SKILL.md</location>" in with_read
    assert "secret" not in with_read
    assert "<available_skills>" not in build_system_prompt("/p", ["bash"], skills=[SKILL], now=DAY)
    assert "<available_skills>" not in build_system_prompt("/p", ["read"], skills=[HIDDEN], now=DAY)


def test_custom_prompt_replaces_only_the_base() -> None:
    context = [ContextFile("/p/AGENTS.md", "project text")]
    prompt = build_system_prompt(
        "/p",
        ["read"],
        custom_prompt="You are a pirate.",
        append=["Arr."],
        context_files=context,
        skills=[SKILL],
        now=DAY,
    )
    assert prompt.startswith("You are a pirate.\n\nArr.\n\n# Project Context")
    assert "Available tools:" not in prompt and "Guidelines:" not in prompt
    assert "<available_skills>" in prompt
    assert prompt.endswith("Current date: 2026-03-04\nCurrent working directory: /p")


def test_empty_custom_prompt_and_empty_appends_are_ignored() -> None:
    prompt = build_system_prompt("/p", ["read"], custom_prompt="", append=["", ""], now=DAY)
    assert prompt.startswith("You are an expert coding assistant")
    assert "\n\n\n" not in prompt


def test_no_context_files_means_no_project_context_heading() -> None:
    assert "# Project Context" not in build_system_prompt("/p", ["read"], now=DAY)
