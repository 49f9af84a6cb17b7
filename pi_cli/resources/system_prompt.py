"""The system prompt: pi's structure, our own words.

Layout (sections in this order, each only when it has content):

1. the base — our default coding-agent text (identity, ``Available tools:`` with one line per active
   tool, ``Guidelines:`` chosen by which tools are active, a pointer to pi_cli's docs), or a custom
   prompt (``--system-prompt`` / ``SYSTEM.md``) that replaces it;
2. appended text (``--append-system-prompt`` values or ``APPEND_SYSTEM.md``), after a blank line;
3. ``# Project Context`` with every context file as ``## <path>`` and its content;
4. the ``<available_skills>`` block — only when the ``read`` tool is active, since the model needs
   it to open a skill;
5. ``Current date: YYYY-MM-DD`` and ``Current working directory: <cwd>``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from pathlib import Path

from pi_cli.resources.context_files import ContextFile
from pi_cli.resources.skills import Skill, format_skills_for_prompt

__all__ = ["TOOL_GUIDELINES", "TOOL_SNIPPETS", "build_system_prompt", "docs_readme_path"]

# One line per built-in tool, shown under "Available tools:".
TOOL_SNIPPETS: dict[str, str] = {
    "read": "Read a file's contents (text files, and images such as PNG or JPEG)",
    "bash": "Run a shell command in the working directory (ls, rg, git, test runners, ...)",
    "edit": "Change a file by replacing exact text; several separate replacements fit in one call",
    "write": "Create a file, or replace a file's whole content",
    "grep": "Search file contents for a pattern (honours .gitignore)",
    "find": "Find files by glob pattern (honours .gitignore)",
    "ls": "List the entries of a directory",
}

# Guideline bullets each built-in tool contributes while it is active.
TOOL_GUIDELINES: dict[str, tuple[str, ...]] = {
    "read": ("Look at files with read rather than cat, head or sed",),
    "edit": (
        "Use edit for targeted changes: every edits[].oldText must match the file exactly and only once",
        "Change several places in one file with a single edit call holding several edits[] entries",
        "All edits[] entries are matched against the original file, not against each other's results, "
        "so they must not overlap; merge changes that sit close together into one entry",
        "Keep each oldText as short as it can be while staying unique; do not pad it with unchanged lines",
    ),
    "write": ("Reserve write for new files and complete rewrites",),
}

_IDENTITY = (
    "You are an expert coding assistant working inside pi_cli, a terminal coding agent. "
    "You help the user by reading files, running commands, editing code and writing new files."
)
_CUSTOM_TOOLS_NOTE = "Other tools may be available too, depending on the project."
_EXPLORATION_TOOLS = ("grep", "find", "ls")


def docs_readme_path() -> str | None:
    """pi_cli's README when it ships next to the package (source checkouts, editable installs)."""
    readme = Path(__file__).resolve().parent.parent.parent / "README.md"
    return str(readme) if readme.is_file() else None


def _guidelines(tools: Sequence[str], extra: Mapping[str, Sequence[str]]) -> list[str]:
    rules: list[str] = []

    def add(rule: str) -> None:
        text = rule.strip()
        if text and text not in rules:
            rules.append(text)

    active = set(tools)
    explorers = [name for name in _EXPLORATION_TOOLS if name in active]
    if "bash" in active and not explorers:
        add("Use bash for file operations such as ls, rg and find")
    elif "bash" in active:
        add(f"To explore files prefer the {'/'.join(explorers)} tools over bash: they are faster and honour .gitignore")
    if "read" in active and "edit" in active:
        add("Read a file before you edit it, so that oldText matches what is really there")
    for name in tools:
        for rule in extra.get(name, TOOL_GUIDELINES.get(name, ())):
            add(rule)
    if "edit" in active or "write" in active:
        add("When you sum up what you changed, write it as plain text; do not run cat or bash just to show it")
    add("Be concise in your answers")
    add("Show file paths clearly when you work with files")
    if tools:
        add("Ask for independent operations (such as reading several files) in one response; they run in parallel")
    return rules


def _default_base(tools: Sequence[str], snippets: Mapping[str, str], guidelines: Mapping[str, Sequence[str]]) -> str:
    listed = [f"- {name}: {snippets[name]}" for name in tools if snippets.get(name)]
    tool_block = "\n".join(listed) if listed else "(none)"
    rule_block = "\n".join(f"- {rule}" for rule in _guidelines(tools, guidelines))
    readme = docs_readme_path()
    docs = [
        "pi_cli documentation (open it only when the user asks about pi_cli itself: settings, models, "
        "providers, skills, prompt templates, context files, keybindings or sessions):",
    ]
    if readme is not None:
        docs.append(f"- README: {readme}")
    docs.append("- `pi --help` lists the command-line options")
    docs.append(
        "- pi_cli reads pi's files: ~/.pi/agent/{settings.json,models.json,AGENTS.md,SYSTEM.md,skills/,prompts/} "
        "and .pi/ in the project"
    )
    return (
        f"{_IDENTITY}\n\nAvailable tools:\n{tool_block}\n\n{_CUSTOM_TOOLS_NOTE}\n\n"
        f"Guidelines:\n{rule_block}\n\n" + "\n".join(docs)
    )


def _date_text(now: datetime | date | None) -> str:
    moment = now if now is not None else datetime.now()
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"


def build_system_prompt(
    cwd: str | os.PathLike[str],
    tools: Sequence[str],
    custom_prompt: str | None = None,
    append: Sequence[str] = (),
    context_files: Sequence[ContextFile] = (),
    skills: Sequence[Skill] = (),
    now: datetime | date | None = None,
    *,
    tool_snippets: Mapping[str, str] | None = None,
    tool_guidelines: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """Assemble the system prompt (layout in the module doc).

    ``tools`` are the active tool names in display order; a tool is listed under "Available tools"
    only when it has a snippet (built-in ones do; others can pass ``tool_snippets``), and
    ``tool_guidelines`` replaces a tool's guideline bullets. ``custom_prompt`` is the already-read
    replacement text (an empty string counts as none). ``append`` items are joined with blank
    lines. ``now`` fixes the date (tests); the local date is used otherwise.
    """
    snippets = {**TOOL_SNIPPETS, **(tool_snippets or {})}
    prompt = custom_prompt if custom_prompt else _default_base(tools, snippets, tool_guidelines or {})

    appended = "\n\n".join(part for part in append if part)
    if appended:
        prompt += f"\n\n{appended}"

    if context_files:
        prompt += "\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n"
        for context in context_files:
            prompt += f"## {context.path}\n\n{context.content}\n\n"

    if "read" in tools and skills:
        prompt += format_skills_for_prompt(skills)

    cwd_text = os.fspath(cwd).replace("\\", "/")
    prompt += f"\nCurrent date: {_date_text(now)}\nCurrent working directory: {cwd_text}"
    return prompt
