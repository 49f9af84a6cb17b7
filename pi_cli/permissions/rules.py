"""Permission rule patterns: ``tool`` or ``tool(argument pattern)``.

- ``bash(git status*)``: the command; ``*`` matches any run of characters (spaces and ``/`` too),
  ``?`` one character. A compound command (``&&``, ``||``, ``;``, ``|``, newlines) matches an
  *allow* rule only when every part does, and never when it holds ``$(`` or a backtick; it
  matches a *deny* or *ask* rule when any part does. So ``bash(git status*)`` never lets
  ``git status && rm -rf ~`` through.
- ``edit(src/**)``, ``write(**/.env)``, ``read(/etc/**)``: the tool's path. A relative pattern is
  matched against the path relative to the session's cwd (never matching a path outside it); an
  absolute or ``~`` pattern against the absolute path. ``*`` and ``?`` stay in one path component,
  ``**`` crosses components (``**/`` may match nothing).
- ``mcp__github__*``, ``bash``: the tool name alone (``*`` in names matches anything).

Matching is case-sensitive. Path tools are ``read write edit ls grep find``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Literal

PATH_TOOLS = frozenset({"read", "write", "edit", "ls", "grep", "find"})
RuleKind = Literal["allow", "deny", "ask"]
_RULE = re.compile(r"^\s*([A-Za-z0-9_*?.:-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_SPLIT = re.compile(r"&&|\|\||;|\||\n")
# Deny/ask also look inside command substitutions: `echo $(rm -rf /)` must meet `bash(rm -rf *)`.
_SPLIT_DEEP = re.compile(r"&&|\|\||;|\||\n|\$\(|`|\)|\(")


class RuleError(ValueError):
    """A pattern that cannot be parsed; the message names the pattern and the problem."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One parsed pattern. ``argument`` is None for a tool-name-only rule."""

    text: str
    tool: re.Pattern[str]
    argument: str | None
    arg_regex: re.Pattern[str] | None


def _name_regex(glob: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob) + r"\Z")


def _path_regex(glob: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            ch = glob[i]
            out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
            i += 1
    return re.compile("".join(out) + r"\Z")


def parse_rule(text: str) -> Rule:
    """Parse one pattern; :class:`RuleError` for a malformed one or an argument on a tool that
    takes none (only bash and the path tools have one)."""
    if not isinstance(text, str):
        raise RuleError(f"permission rule {text!r} is not a string")
    match = _RULE.match(text)
    if match is None:
        raise RuleError(f"permission rule {text!r}: expected tool or tool(pattern)")
    name, argument = match.group(1), match.group(2)
    if argument is None:
        return Rule(text, _name_regex(name), None, None)
    argument = argument.strip()
    if name == "bash":
        return Rule(text, _name_regex(name), argument, _name_regex(argument))
    if name in PATH_TOOLS:
        glob = os.path.expanduser(argument) if argument.startswith("~") else argument
        return Rule(text, _name_regex(name), glob, _path_regex(glob.rstrip("/") or "/"))
    tools = ", ".join(sorted(PATH_TOOLS))
    raise RuleError(f"permission rule {text!r}: only bash and file tools ({tools}) take a (pattern)")


def command_parts(command: str) -> list[str]:
    """``command`` split at shell separators, each part stripped, empty parts dropped."""
    return [part.strip() for part in _SPLIT.split(command) if part.strip()]


def tool_path(tool: str, args: dict[str, Any], cwd: str) -> str | None:
    """The absolute path a path tool touches (its ``path``; ``.`` when absent), else None."""
    if tool not in PATH_TOOLS:
        return None
    raw = args.get("path", args.get("file_path"))
    raw = raw if isinstance(raw, str) and raw else "."
    raw = raw.removeprefix("@")
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(raw)))


def is_inside(path: str, cwd: str) -> bool:
    """True when ``path`` is ``cwd`` or below it (lexically; both absolute)."""
    cwd = os.path.normpath(cwd)
    return path == cwd or path.startswith(cwd.rstrip("/") + "/")


def matches(rule: Rule, kind: RuleKind, tool: str, args: dict[str, Any], cwd: str) -> bool:
    """Whether ``rule`` (from the ``kind`` list) covers this call."""
    if rule.tool.match(tool) is None:
        return False
    if rule.arg_regex is None or rule.argument is None:
        return True
    if tool == "bash":
        command = args.get("command")
        if not isinstance(command, str):
            return False
        parts = command_parts(command)
        if kind == "allow":
            if "$(" in command or "`" in command or not parts:
                return False
            return all(rule.arg_regex.match(part) for part in parts)
        deep = [part.strip() for part in _SPLIT_DEEP.split(command) if part.strip()]
        return any(rule.arg_regex.match(part) for part in [command.strip(), *deep])
    path = tool_path(tool, args, cwd)
    if path is None:
        return False
    if os.path.isabs(rule.argument):
        return rule.arg_regex.match(path) is not None
    if not is_inside(path, cwd):
        return False
    relative = os.path.relpath(path, cwd)
    return rule.arg_regex.match(relative) is not None


def suggest_rule(tool: str, args: dict[str, Any], cwd: str, *, absolute: bool = False) -> str:
    """The pattern "allow always" saves for this call: ``bash(<command words>*)`` (the first word,
    plus a sub-command word such as ``git status``), the file for path tools (relative to cwd
    unless ``absolute`` or outside it), the tool name otherwise."""
    if tool == "bash":
        command = args.get("command")
        words = command.split() if isinstance(command, str) else []
        if not words:
            return "bash"
        head = words[:2] if len(words) > 1 and re.fullmatch(r"[A-Za-z][\w:-]*", words[1]) else words[:1]
        return f"bash({' '.join(head)}*)"
    path = tool_path(tool, args, cwd)
    if path is not None:
        if not absolute and is_inside(path, cwd) and path != os.path.normpath(cwd):
            return f"{tool}({_escape(os.path.relpath(path, cwd))})"
        return f"{tool}({_escape(path)})"
    return tool


def _escape(path: str) -> str:
    # A literal '*' or '?' in a file name would widen the rule; such names are rare, keep them literal-ish.
    return path.replace("*", "?")
