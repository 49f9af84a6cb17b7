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

Bash is decided on the parsed command (:mod:`pi_cli.permissions.shell`): a deny rule for any part
denies, and so does a ``write(...)`` deny rule for a file an output redirection writes; an allow
needs every root part covered (by one rule or several) *and*, in ask mode, every written file
allowed by a ``write(...)`` rule. With deny or ask rules for bash, a command whose name or inline
code is computed at run time (``$cmd``, ``bash -c "$x"``) asks, since no rule can be checked
against it. With the sandbox on (``sandboxed``), ask mode lets a bash call run unasked — deny and
ask rules still apply. Paths are judged where they really lead: a path tool whose path resolves
outside the working directory asks in ask mode.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pi_cli.config import paths
from pi_cli.permissions.compiled import BashRules, PathRules
from pi_cli.permissions.rules import (
    PathView,
    Rule,
    RuleError,
    RuleKind,
    View,
    bash_view,
    is_outside,
    matches_view,
    parse_rule,
    path_view,
    real_path,
    tool_path,
    view_of,
)

if TYPE_CHECKING:
    from pi_cli.permissions.shell.analysis import Analysis

Mode = Literal["auto", "ask", "read-only"]
MODES: tuple[Mode, ...] = ("auto", "ask", "read-only")
MODE_DETAILS: dict[str, str] = {
    "auto": "run every tool unasked (pi's behaviour)",
    "ask": "ask before write, edit, bash, MCP tools and paths outside the project",
    "read-only": "refuse every tool but read, grep, find and ls",
}
# tool_search only loads MCP tool declarations (the loaded tools still ask when they are called);
# subagent only starts child sessions, whose every call this same gate decides in the same mode.
READ_ONLY_TOOLS = frozenset({"read", "grep", "find", "ls", "tool_search", "subagent"})
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
    _bash: tuple[tuple[int, int, int], BashRules] | None = field(default=None, repr=False, compare=False)
    _paths: dict[tuple[str, str], tuple[int, PathRules]] = field(default_factory=dict, repr=False, compare=False)

    def add(self, kind: RuleKind, rule: Rule) -> None:
        getattr(self, kind).append(rule)

    def bash(self) -> BashRules:
        """The bash rules compiled together (rebuilt when a list changed)."""
        key = (len(self.allow), len(self.deny), len(self.ask))
        if self._bash is None or self._bash[0] != key:
            self._bash = (key, BashRules.of(self.allow, self.deny, self.ask))
        return self._bash[1]

    def first(self, kind: RuleKind, tool: str, args: dict[str, Any], cwd: str, view: View = None) -> Rule | None:
        """The first ``kind`` rule covering the call (``view``: its :func:`view_of`, when known)."""
        candidates: list[Rule] = getattr(self, kind)
        if not candidates:
            return None
        seen = view if view is not None else view_of(tool, args, cwd)
        if isinstance(seen, PathView):
            return self._path_rules(kind, tool, candidates).hit(kind, seen)
        return next((rule for rule in candidates if matches_view(rule, kind, tool, seen)), None)

    def _path_rules(self, kind: RuleKind, tool: str, candidates: list[Rule]) -> PathRules:
        cached = self._paths.get((kind, tool))
        if cached is None or cached[0] != len(candidates):
            cached = self._paths[(kind, tool)] = (len(candidates), PathRules.of(candidates, tool))
        return cached[1]

    def bash_cover(self, analysis: Analysis) -> list[Rule] | None:
        """Allow rules covering every root part of a parsed command (one per part, a catch-all
        rule alone), or None when some part is not covered."""
        compiled = self.bash()
        catch_all = compiled.catch_all()
        if catch_all is not None:
            return [catch_all]
        if analysis.error is not None or not analysis.roots:
            return None
        used: list[Rule] = []
        for part in analysis.roots:
            rule = compiled.cover(part)
            if rule is None:
                return None
            if rule not in used:
                used.append(rule)
        return used

    def has_bash_patterns(self) -> bool:
        """Deny or ask rules that look at bash commands."""
        return self.bash().has_patterns


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
    """Every tool but read, grep, find, ls (and tool_search, subagent) may change something (bash,
    edits, MCP, extensions)."""
    return tool not in READ_ONLY_TOOLS


def decide(
    tool: str, args: dict[str, Any], mode: Mode, rules: RuleSet, cwd: str, *, sandboxed: bool = False
) -> Decision:
    """The decision for one call (module doc order). ``cwd`` is the session's absolute cwd;
    ``sandboxed``: this bash call runs inside the sandbox, which auto-allows it in ask mode."""
    command = args.get("command") if tool == "bash" else None
    if isinstance(command, str):
        return _decide_bash(command, args, mode, rules, cwd, sandboxed)
    view = view_of(tool, args, cwd)
    rule = rules.first("deny", tool, args, cwd, view)
    if rule is not None:
        return Decision("deny", f"{tool} is denied by the permission rule {rule.text}", rule.text)
    if mode == "read-only" and is_mutating(tool):
        return _read_only(tool)
    rule = rules.first("ask", tool, args, cwd, view)
    if rule is not None:
        return Decision("ask", f"the permission rule {rule.text} asks before {tool}", rule.text)
    rule = rules.first("allow", tool, args, cwd, view)
    if rule is not None:
        return Decision("allow", f"allowed by the permission rule {rule.text}", rule.text)
    if mode != "ask":
        return Decision("allow", f"{mode} mode")
    path = tool_path(tool, args, cwd)
    if path is not None and is_outside(path, cwd):
        real = real_path(path)
        leads = f" (which leads to {real})" if real != path else ""
        return Decision("ask", f"{tool} touches {path}{leads}, outside the working directory")
    if is_mutating(tool):
        return Decision("ask", f"{tool} asks before it runs in ask mode")
    return Decision("allow", "read-only tool inside the working directory")


def _read_only(tool: str) -> Decision:
    return Decision("deny", f"{tool} is not allowed in read-only mode; only read, grep, find and ls may run")


def redirect_targets(analysis: Analysis, cwd: str) -> list[str | None]:
    """Absolute paths of the files a command's redirections write; None for one only the running
    shell knows (computed, or relative after a ``cd``)."""
    out: list[str | None] = []
    for target in analysis.writes:
        if target is None or (analysis.changes_dir and not os.path.isabs(target)):
            out.append(None)
        else:
            out.append(os.path.normpath(os.path.join(cwd, target)))
    return out


def _decide_bash(command: str, args: dict[str, Any], mode: Mode, rules: RuleSet, cwd: str, sandboxed: bool) -> Decision:
    compiled = rules.bash()
    unquestioned = not (compiled.deny.whole or compiled.ask.whole or compiled.has_patterns or _write_rules(rules))
    if unquestioned and (mode == "auto" or (mode == "ask" and sandboxed)):
        # Nothing could refuse or question it: auto mode (pi's) and a sandboxed call need no parse.
        return Decision("allow", "runs inside the sandbox" if mode == "ask" else "auto mode")
    view = bash_view(command)
    analysis = view.analysis
    rule = compiled.deny.hit(view.texts)
    if rule is not None:
        return Decision("deny", f"bash is denied by the permission rule {rule.text}", rule.text)
    targets = redirect_targets(analysis, cwd)
    real_cwd = real_path(cwd) if targets else cwd
    writes = [(target, path_view(target, cwd, real_cwd)) for target in targets if target is not None]
    for target, target_view in writes:
        hit = rules.first("deny", "write", {}, cwd, target_view)
        if hit is not None:
            return Decision(
                "deny", f"the command writes {target}, and the permission rule {hit.text} denies it", hit.text
            )
    if mode == "read-only":
        return _read_only("bash")
    rule = compiled.ask.hit(view.texts)
    if rule is not None:
        return Decision("ask", f"the permission rule {rule.text} asks before bash", rule.text)
    for target, target_view in writes:
        hit = rules.first("ask", "write", {}, cwd, target_view)
        if hit is not None:
            return Decision("ask", f"the command writes {target}, and the permission rule {hit.text} asks", hit.text)
    if compiled.has_patterns and any(part.dynamic for part in analysis.parts):
        return Decision(
            "ask", "the command computes a command name or inline code at run time, so no rule can vouch for it"
        )
    if mode == "ask" and sandboxed:
        return Decision("allow", "runs inside the sandbox")
    cover = rules.bash_cover(analysis)
    if cover is not None:
        texts = ", ".join(rule.text for rule in cover)
        if mode != "ask" or (len(cover) == 1 and cover[0].argument in (None, "*")):
            return Decision("allow", f"allowed by the permission rule {texts}", cover[0].text)
        unallowed = _unallowed_write(targets, writes, rules, cwd)
        if unallowed is None:
            return Decision("allow", f"allowed by the permission rule {texts}", cover[0].text)
        return Decision("ask", unallowed)
    if mode != "ask":
        return Decision("allow", f"{mode} mode")
    return Decision("ask", _why_bash_asks(analysis, rules))


def _write_rules(rules: RuleSet) -> bool:
    """Deny or ask rules that could meet a file a redirection writes."""
    return any(rule.tool.match("write") is not None for rule in (*rules.deny, *rules.ask))


def _unallowed_write(
    targets: list[str | None], writes: list[tuple[str, PathView]], rules: RuleSet, cwd: str
) -> str | None:
    """Why a write of an otherwise allowed command still asks, or None when every write is allowed."""
    if None in targets:
        return "the command writes to a file named only at run time"
    for target, view in writes:
        if rules.first("allow", "write", {}, cwd, view) is None:
            return f"the command writes {target} (an output redirection) and no write(...) rule allows it"
    return None


def _why_bash_asks(analysis: Analysis, rules: RuleSet) -> str:
    if analysis.error is not None:
        return f"the command could not be read safely ({analysis.error})"
    if any(r.tool.match("bash") for r in rules.allow):
        for part in analysis.roots:
            constructs = sorted(part.constructs)
            if constructs and not any(
                r.arg_regex and r.arg_regex.match(part.text) and all(c in (r.argument or "") for c in constructs)
                for r in rules.allow
            ):
                return f"{part.text!r} uses {', '.join(constructs)}, which an allow rule must name"
        return "a part of the command is not covered by an allow rule"
    return "bash asks before it runs in ask mode"
