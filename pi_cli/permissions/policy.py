"""Approval modes and the decision for one tool call: allow, deny, or ask the user.

Modes (``--permissions MODE``, settings ``permissions.mode``):
- ``auto`` (default, pi's behaviour): nothing is asked; only ``deny`` / ``ask`` rules apply;
- ``ask``: ``write``, ``edit``, ``bash``, MCP and extension tools ask; ``read``, ``grep``,
  ``find``, ``ls`` run unasked unless their path is outside the session's cwd;
- ``read-only``: every tool but the read-only ones (and ``tool_search``) is refused (allow rules do not
  reopen them).

Order for a call: a ``deny`` rule refuses (any mode) → read-only mode refuses a mutating tool →
an ``ask`` rule asks → an ``allow`` rule allows → the mode decides. Rules come from the user
settings and, in a trusted project, ``.pi/settings.json``; both files' lists are combined.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pi_cli.config import paths
from pi_cli.permissions.rules import Rule, RuleError, RuleKind, is_inside, matches, parse_rule, tool_path

Mode = Literal["auto", "ask", "read-only"]
MODES: tuple[Mode, ...] = ("auto", "ask", "read-only")
MODE_DETAILS: dict[str, str] = {
    "auto": "run every tool unasked (pi's behaviour)",
    "ask": "ask before write, edit, bash, MCP tools and paths outside the project",
    "read-only": "refuse every tool but read, grep, find and ls",
}
# tool_search only loads MCP tool declarations (the loaded tools still ask when they are called).
READ_ONLY_TOOLS = frozenset({"read", "grep", "find", "ls", "tool_search"})
Action = Literal["allow", "deny", "ask"]


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with a call; ``reason`` is a sentence for the user and the model; ``rule`` the
    pattern that decided, when one did."""

    action: Action
    reason: str
    rule: str | None = None


@dataclass(slots=True)
class RuleSet:
    """The allow / deny / ask patterns in force (user first, then project)."""

    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)

    def add(self, kind: RuleKind, rule: Rule) -> None:
        getattr(self, kind).append(rule)

    def first(self, kind: RuleKind, tool: str, args: dict[str, Any], cwd: str) -> Rule | None:
        return next((rule for rule in getattr(self, kind) if matches(rule, kind, tool, args, cwd)), None)


def parse_mode(value: str) -> Mode:
    """``value`` as a mode; ValueError naming the choices otherwise."""
    if value in MODES:
        return value
    raise ValueError(f"unknown permissions mode {value!r} (choose auto, ask or read-only)")


def rule_files(
    cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str] | None, project_trusted: bool
) -> list[Path]:
    """The settings files whose ``permissions`` lists apply, user file first."""
    files = [Path(agent_dir or paths.agent_dir()) / "settings.json"]
    if project_trusted:
        files.append(paths.project_settings_path(Path(cwd)))
    return files


def load_rules(
    cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str] | None = None, *, project_trusted: bool = True
) -> tuple[RuleSet, list[str]]:
    """Rules from each settings file (lists combined, not replaced); bad entries become one-line
    problems naming the file and the list, and are skipped."""
    rules = RuleSet()
    problems: list[str] = []
    for file in rule_files(cwd, agent_dir, project_trusted):
        try:
            data = json.loads(file.read_text(encoding="utf-8").removeprefix("\ufeff"))
        except (OSError, ValueError):
            continue  # missing, or reported by the settings loader
        section = data.get("permissions") if isinstance(data, dict) else None
        if not isinstance(section, dict):
            continue
        for kind in ("allow", "deny", "ask"):
            entries = section.get(kind, [])
            if not isinstance(entries, list):
                problems.append(f"Invalid setting in {file}: permissions.{kind}: expected a list of patterns; ignored")
                continue
            for index, text in enumerate(entries):
                try:
                    rules.add(kind, parse_rule(text))
                except RuleError as exc:
                    problems.append(f"Invalid setting in {file}: permissions.{kind}[{index}]: {exc}; ignored")
    return rules, problems


def is_mutating(tool: str) -> bool:
    """Every tool but read, grep, find, ls (and tool_search) may change something (bash, edits, MCP, extensions)."""
    return tool not in READ_ONLY_TOOLS


def decide(tool: str, args: dict[str, Any], mode: Mode, rules: RuleSet, cwd: str) -> Decision:
    """The decision for one call (module doc order). ``cwd`` is the session's absolute cwd."""
    rule = rules.first("deny", tool, args, cwd)
    if rule is not None:
        return Decision("deny", f"{tool} is denied by the permission rule {rule.text}", rule.text)
    if mode == "read-only" and is_mutating(tool):
        return Decision("deny", f"{tool} is not allowed in read-only mode; only read, grep, find and ls may run")
    rule = rules.first("ask", tool, args, cwd)
    if rule is not None:
        return Decision("ask", f"the permission rule {rule.text} asks before {tool}", rule.text)
    rule = rules.first("allow", tool, args, cwd)
    if rule is not None:
        return Decision("allow", f"allowed by the permission rule {rule.text}", rule.text)
    if mode != "ask":
        return Decision("allow", f"{mode} mode")
    path = tool_path(tool, args, cwd)
    if path is not None and not is_inside(path, cwd):
        return Decision("ask", f"{tool} touches {path}, outside the working directory")
    if is_mutating(tool):
        return Decision("ask", f"{tool} asks before it runs in ask mode")
    return Decision("allow", "read-only tool inside the working directory")
