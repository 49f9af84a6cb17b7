"""A rule set's patterns compiled together, so a decision costs one regex run per text or path.

A 1 KB command has some thirty parts and writes a few files; with twenty rules a list, matching
rule by rule would be hundreds of regex runs. Each list's patterns for a tool are joined into one
alternation with a named group per rule (the regex engine tries them in C, in list order), and the
group that matched names the rule. :class:`BashRules` serves bash (allow patterns must also name a
part's constructs, see :mod:`pi_cli.permissions.rules`; when the first pattern that matches a part
does not, the others are tried one by one); :class:`PathRules` serves one path tool, with absolute
and relative patterns apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_cli.permissions.rules import PathView, Rule, RuleKind, allows_everything, covers

if TYPE_CHECKING:
    from pi_cli.permissions.shell.analysis import Part


def _combined(rules: list[Rule]) -> re.Pattern[str] | None:
    if not rules:
        return None
    return re.compile("|".join(f"(?P<r{i}>{rule.arg_regex.pattern})" for i, rule in enumerate(rules) if rule.arg_regex))


@dataclass(slots=True)
class _Patterns:
    """One list's bash rules: those without a pattern (the whole tool) and the compiled patterns."""

    whole: list[Rule]
    patterned: list[Rule]
    regex: re.Pattern[str] | None

    @classmethod
    def of(cls, rules: Iterable[Rule], tool: str = "bash") -> _Patterns:
        mine = [rule for rule in rules if rule.tool.match(tool) is not None]
        whole = [rule for rule in mine if rule.argument is None]
        patterned = [rule for rule in mine if rule.argument is not None]
        return cls(whole, patterned, _combined(patterned))

    def first(self, text: str | None) -> Rule | None:
        """The first patterned rule matching ``text`` (None never matches)."""
        if self.regex is None or text is None:
            return None
        found = self.regex.match(text)
        return self.patterned[int(found.lastgroup[1:])] if found is not None and found.lastgroup else None

    def hit(self, texts: Iterable[str]) -> Rule | None:
        """The first rule (tool name alone, else pattern) that matches any of ``texts``."""
        if self.whole:
            return self.whole[0]
        if self.regex is None:
            return None
        match = self.regex.match
        for text in texts:
            found = match(text)
            if found is not None and found.lastgroup is not None:
                return self.patterned[int(found.lastgroup[1:])]
        return None


@dataclass(slots=True)
class BashRules:
    """The bash rules of one rule set (build with :meth:`of`, rebuild when the set changes)."""

    deny: _Patterns
    ask: _Patterns
    allow: _Patterns

    @classmethod
    def of(cls, allow: list[Rule], deny: list[Rule], ask: list[Rule]) -> BashRules:
        return cls(_Patterns.of(deny), _Patterns.of(ask), _Patterns.of(allow))

    @property
    def has_patterns(self) -> bool:
        """Deny or ask rules that look at commands (not just the tool name)."""
        return bool(self.deny.patterned or self.ask.patterned)

    def cover(self, part: Part) -> Rule | None:
        """An allow rule covering the root ``part`` (it matches and names the constructs)."""
        allow = self.allow
        if allow.whole:
            return allow.whole[0]
        if allow.regex is None:
            return None
        found = allow.regex.match(part.text)
        if found is None or found.lastgroup is None:
            return None
        rule = allow.patterned[int(found.lastgroup[1:])]
        if covers(rule, part):
            return rule
        return next((r for r in allow.patterned if covers(r, part)), None)

    def catch_all(self) -> Rule | None:
        """``bash`` or ``bash(*)`` in the allow list: every command is allowed."""
        if self.allow.whole:
            return self.allow.whole[0]
        return next((r for r in self.allow.patterned if allows_everything(r)), None)


@dataclass(slots=True)
class PathRules:
    """One list's rules for one path tool: absolute patterns match absolute paths, relative ones
    the path relative to the cwd (a path outside it never matches them)."""

    whole: list[Rule]
    absolute: _Patterns
    relative: _Patterns

    @classmethod
    def of(cls, rules: Iterable[Rule], tool: str) -> PathRules:
        mine = [rule for rule in rules if rule.tool.match(tool) is not None]
        whole = [rule for rule in mine if rule.argument is None]
        patterned = [rule for rule in mine if rule.argument is not None]
        absolute = [rule for rule in patterned if rule.absolute]
        relative = [rule for rule in patterned if not rule.absolute]
        return cls(whole, _Patterns([], absolute, _combined(absolute)), _Patterns([], relative, _combined(relative)))

    def hit(self, kind: RuleKind, view: PathView) -> Rule | None:
        """The rule covering ``view``: *allow* where the path really leads; deny and ask either
        the path as written or where it leads."""
        if self.whole:
            return self.whole[0]
        forms = [(view.real, view.real_rel)] if kind == "allow" else [(view.path, view.rel), (view.real, view.real_rel)]
        for path, relative in forms:
            rule = self.absolute.first(path) or self.relative.first(relative)
            if rule is not None:
                return rule
        return None
