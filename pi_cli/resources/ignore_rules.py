"""``.gitignore``-style rules for the skill walk (pi honours ``.gitignore``, ``.ignore``, ``.fdignore``).

Supported: comments and blank lines, ``\\#`` / ``\\!`` escapes, ``!`` re-inclusion, a leading ``/``
anchoring to the file's folder, a trailing ``/`` for directories only, ``*``, ``?``, ``[...]`` and
``**``. As in pi, rules from a nested ignore file are prefixed with that folder's path relative to
the walk's root, and paths are matched relative to that root. The last matching rule decides.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from pi_cli.config.globs import glob_regex

__all__ = ["IGNORE_FILE_NAMES", "IgnoreRule", "is_ignored", "read_ignore_rules"]

IGNORE_FILE_NAMES: tuple[str, ...] = (".gitignore", ".ignore", ".fdignore")


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def _compile(line: str, prefix: str) -> IgnoreRule | None:
    text = line if line.endswith("\\ ") else line.rstrip(" ")  # "\ " keeps a trailing space
    if not text.strip() or text.startswith("#"):
        return None
    negated = text.startswith("!")
    if negated or text.startswith(("\\!", "\\#")):  # drop the "!" or the escaping backslash
        text = text[1:]
    dir_only = text.endswith("/")
    text = text.rstrip("/")
    anchored = text.startswith("/") or "/" in text or bool(prefix)
    text = text.lstrip("/")
    if not text:
        return None
    lead = "" if anchored else "(?:.*/)?"
    regex = re.compile(f"^{re.escape(prefix)}{lead}{glob_regex(text, classes=True)}$")
    return IgnoreRule(regex=regex, negated=negated, dir_only=dir_only)


def read_ignore_rules(directory: str, root: str) -> list[IgnoreRule]:
    """Rules from the ignore files in ``directory``, scoped to it relative to ``root``."""
    relative = os.path.relpath(directory, root)
    prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
    rules: list[IgnoreRule] = []
    for name in IGNORE_FILE_NAMES:
        try:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            continue
        for line in lines:
            rule = _compile(line, prefix)
            if rule is not None:
                rules.append(rule)
    return rules


def is_ignored(relative_path: str, is_dir: bool, rules: list[IgnoreRule]) -> bool:
    """Whether ``relative_path`` (posix, relative to the walk's root) is excluded by ``rules``."""
    ignored = False
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.regex.match(relative_path):
            ignored = not rule.negated
    return ignored
