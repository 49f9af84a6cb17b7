"""What "Allow always" saves, and what print mode's refusal suggests: rules that cover the whole call.

For a compound command that is one rule per part that runs (``sed -n 1p a.txt && echo done`` →
``bash(sed*)``, ``bash(echo done*)``), the whole text for a part with a construct a rule must name
(``bash(find . -exec rm {} ;)``), and a ``write(...)`` rule per file an output redirection writes.
The list is checked: with it added, the call must be allowed in ask mode. When no list of rules
can do that (a write to a file only the running shell knows, a command that cannot be parsed), the
answer is an empty list and no "Allow always" is offered.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pi_cli.permissions.policy import RuleSet, decide, redirect_targets
from pi_cli.permissions.rules import RuleError, parse_rule, suggest_part_rule, suggest_path_rule, suggest_rule
from pi_cli.permissions.shell.analysis import Analysis, Part, analyse


def suggest_rules(
    tool: str, args: dict[str, Any], cwd: str, rules: RuleSet | None = None, *, absolute: bool = False
) -> list[str]:
    """Patterns that, added to ``rules``, allow this call in ask mode; [] when none can."""
    if tool != "bash":
        return [suggest_rule(tool, args, cwd, absolute=absolute)]
    command = args.get("command")
    if not isinstance(command, str):
        return []
    analysis = analyse(command)
    if analysis.error is not None:
        return []
    current = rules or RuleSet()
    patterns: list[str] = []
    for part in analysis.roots:
        if current.bash_cover(_only(part, analysis)) is None:
            pattern = suggest_part_rule(part)
            if pattern not in patterns:
                patterns.append(pattern)
    for target in redirect_targets(analysis, cwd):
        if target is None:
            return []
        if current.first("allow", "write", {"path": target}, cwd) is None:
            pattern = suggest_path_rule("write", target, cwd, absolute=absolute)
            if pattern not in patterns:
                patterns.append(pattern)
    return patterns if _covered(args, cwd, current, patterns) else []


def _only(part: Part, analysis: Analysis) -> Analysis:
    """``analysis`` with ``part`` as its one root part (to test existing rules part by part)."""
    return replace(analysis, parts=(part,))


def _covered(args: dict[str, Any], cwd: str, rules: RuleSet, patterns: list[str]) -> bool:
    trial = RuleSet(list(rules.allow), list(rules.deny), list(rules.ask))
    try:
        for pattern in patterns:
            trial.add("allow", parse_rule(pattern))
    except RuleError:
        return False
    return decide("bash", args, "ask", trial, cwd).action == "allow"
