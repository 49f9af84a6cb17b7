"""Permission rule patterns: ``tool`` or ``tool(argument pattern)``.

- ``bash(git status*)``: a command; ``*`` matches any run of characters (spaces and ``/`` too),
  ``?`` one character. Commands are parsed (:mod:`pi_cli.permissions.shell`): a pattern is matched
  against each command that could run — parts split at ``;`` ``&&`` ``||`` ``|`` ``&`` newlines,
  subshells and groups, with quotes removed — never against the raw string. An *allow* rule covers
  a part only if it also names the part's constructs (``$(``, backticks, ``<(``, ``>(``, ``eval``,
  ``exec``, ``-c``, ``xargs``, ``find -exec/-execdir/-ok/-okdir/-delete``): ``bash(find *)`` does not
  cover ``find . -exec rm {} ;``, ``bash(find * -exec *)`` does. A *deny* or *ask* rule matches when
  any part does, including those inside substitutions, ``bash -c``, ``eval``, ``xargs``, ``find
  -exec`` and wrappers (``sudo``, ``env``, ``nice`` …). A command that cannot be parsed is never
  allowed by a pattern. ``bash`` and ``bash(*)`` allow every command.
- ``edit(src/**)``, ``write(**/.env)``, ``read(/etc/**)``: the tool's path. A relative pattern is
  matched against the path relative to the session's cwd (never matching a path outside it); an
  absolute or ``~`` pattern against the absolute path. ``*`` and ``?`` stay in one path component,
  ``**`` crosses components (``**/`` may match nothing). Symlinks count: an *allow* rule must match
  where the path really leads (``src/link/x`` with ``src/link`` → ``/elsewhere`` is
  ``/elsewhere/x``); a *deny* or *ask* rule matches either the path as written or where it leads.
- ``mcp__github__*``, ``bash``: the tool name alone (``*`` in names matches anything).

Matching is case-sensitive. Path tools are ``read write edit ls grep find``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pi_cli.config.globs import glob_regex

if TYPE_CHECKING:  # the shell reader loads on the first bash call, not with the gate at start-up
    from pi_cli.permissions.shell.analysis import Analysis, Part


def analyse(command: str) -> Analysis:
    """:func:`pi_cli.permissions.shell.analysis.analyse`, imported on first use."""
    from pi_cli.permissions.shell.analysis import analyse as analyse_shell

    return analyse_shell(command)


PATH_TOOLS = frozenset({"read", "write", "edit", "ls", "grep", "find"})
RuleKind = Literal["allow", "deny", "ask"]
_RULE = re.compile(r"^\s*([A-Za-z0-9_*?.:-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
# A command that cannot be parsed is still split this way for deny and ask rules, so a syntax
# error never hides `rm -rf` from `bash(rm *)`.
_SPLIT_DEEP = re.compile(r"&&|\|\||;|\||&|\n|\$\(|`|\)|\(|<|>")


class RuleError(ValueError):
    """A pattern that cannot be parsed; the message names the pattern and the problem."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One parsed pattern. ``argument`` is None for a tool-name-only rule."""

    text: str
    tool: re.Pattern[str]
    argument: str | None
    arg_regex: re.Pattern[str] | None
    absolute: bool = False  # a path pattern matched against the absolute path


def _name_regex(glob: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob) + r"\Z")


def _path_regex(glob: str) -> re.Pattern[str]:
    return re.compile(glob_regex(glob) + r"\Z")


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
        return Rule(text, _name_regex(name), glob, _path_regex(glob.rstrip("/") or "/"), os.path.isabs(glob))
    tools = ", ".join(sorted(PATH_TOOLS))
    raise RuleError(f"permission rule {text!r}: only bash and file tools ({tools}) take a (pattern)")


def command_parts(command: str) -> list[str]:
    """The text of each command ``command`` would run at its top level (root parts)."""
    return [part.text for part in analyse(command).roots]


def tool_path(tool: str, args: dict[str, Any], cwd: str) -> str | None:
    """The absolute path a path tool touches as written (its ``path``; ``.`` when absent), else None."""
    if tool not in PATH_TOOLS:
        return None
    raw = args.get("path", args.get("file_path"))
    raw = raw if isinstance(raw, str) and raw else "."
    raw = raw.removeprefix("@")
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(raw)))


def real_path(path: str) -> str:
    """``path`` with symlinks resolved as far as it exists."""
    return os.path.realpath(path)


def is_inside(path: str, cwd: str) -> bool:
    """True when ``path`` is ``cwd`` or below it (lexically; both absolute)."""
    cwd = os.path.normpath(cwd)
    return path == cwd or path.startswith(cwd.rstrip("/") + "/")


def is_outside(path: str, cwd: str) -> bool:
    """True when ``path`` as written, or where it leads, is outside ``cwd``."""
    return not is_inside(path, cwd) or not is_inside(real_path(path), real_path(cwd))


def names_constructs(rule: Rule, part: Part) -> bool:
    """Whether the allow ``rule`` spells out every construct of ``part`` (``-exec``, ``$(`` …)."""
    argument = rule.argument or ""
    return all(construct in argument for construct in part.constructs)


def allows_everything(rule: Rule) -> bool:
    return rule.argument is None or rule.argument == "*"


def covers(rule: Rule, part: Part) -> bool:
    """Whether the allow ``rule`` (a bash rule) covers the root ``part``."""
    if allows_everything(rule):
        return True
    assert rule.arg_regex is not None
    return rule.arg_regex.match(part.text) is not None and names_constructs(rule, part)


@dataclass(frozen=True, slots=True)
class BashView:
    """A bash call as rules see it: the analysis, and every text a deny/ask rule is tried on."""

    analysis: Analysis
    texts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PathView:
    """A path tool's path as written and where it leads, each also relative to the cwd when inside."""

    path: str
    real: str
    rel: str | None
    real_rel: str | None


def bash_view(command: str) -> BashView:
    analysis = analyse(command)
    texts = [command.strip()]
    for part in analysis.parts:
        texts.append(part.text)
        texts.extend(part.variants)
    if analysis.error is not None:
        texts.extend(piece.strip() for piece in _SPLIT_DEEP.split(command) if piece.strip())
    return BashView(analysis, tuple(dict.fromkeys(texts)))


def _relative(path: str, cwd: str) -> str | None:
    if path == cwd:
        return "."
    prefix = cwd.rstrip("/") + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None  # both normalised: no relpath needed


def path_view(path: str, cwd: str, real_cwd: str | None = None) -> PathView:
    """``path`` (absolute, normalised) as rules see it; ``real_cwd`` saves resolving the cwd again."""
    real = real_path(path)
    return PathView(path, real, _relative(path, cwd), _relative(real, real_cwd or real_path(cwd)))


View = BashView | PathView | None


def view_of(tool: str, args: dict[str, Any], cwd: str) -> View:
    """What rules for ``tool`` look at in this call, computed once for all of them."""
    if tool == "bash":
        command = args.get("command")
        return bash_view(command) if isinstance(command, str) else None
    path = tool_path(tool, args, cwd)
    return path_view(path, cwd) if path is not None else None


def _path_hits(rule: Rule, path: str, relative: str | None) -> bool:
    assert rule.arg_regex is not None
    if rule.absolute:
        return rule.arg_regex.match(path) is not None
    return relative is not None and rule.arg_regex.match(relative) is not None


def matches_view(rule: Rule, kind: RuleKind, tool: str, view: View) -> bool:
    """:func:`matches` on a precomputed :func:`view_of`."""
    if rule.tool.match(tool) is None:
        return False
    if rule.arg_regex is None or rule.argument is None:
        return True
    if isinstance(view, BashView):
        if kind == "allow":
            roots = view.analysis.roots
            if allows_everything(rule):
                return True
            return view.analysis.error is None and bool(roots) and all(covers(rule, p) for p in roots)
        regex = rule.arg_regex
        return any(regex.match(text) for text in view.texts)
    if isinstance(view, PathView):
        if kind == "allow":  # where the call really lands must be allowed
            return _path_hits(rule, view.real, view.real_rel)
        return _path_hits(rule, view.path, view.rel) or _path_hits(rule, view.real, view.real_rel)
    return False


def matches(rule: Rule, kind: RuleKind, tool: str, args: dict[str, Any], cwd: str) -> bool:
    """Whether ``rule`` (from the ``kind`` list) covers this call. For bash and *allow*, one rule
    must cover every root part (the gate combines rules part by part, see policy)."""
    return matches_view(rule, kind, tool, view_of(tool, args, cwd))


def _head_rule(part: Part) -> str:
    words = part.text.split(" ")
    second_is_word = len(words) > 1 and re.fullmatch(r"[A-Za-z][\w:-]*", words[1]) is not None
    return f"bash({' '.join(words[:2] if second_is_word else words[:1])}*)"


def suggest_rule(tool: str, args: dict[str, Any], cwd: str, *, absolute: bool = False) -> str:
    """The first pattern "allow always" would save for this call (see :func:`suggest_part_rule`
    and :mod:`pi_cli.permissions.suggest` for compound commands): ``bash(<command words>*)``, the
    file for path tools (relative to cwd unless ``absolute`` or outside it), the tool name otherwise."""
    if tool == "bash":
        command = args.get("command")
        roots = analyse(command).roots if isinstance(command, str) else ()
        return suggest_part_rule(roots[0]) if roots else "bash"
    path = tool_path(tool, args, cwd)
    if path is not None:
        return suggest_path_rule(tool, path, cwd, absolute=absolute)
    return tool


def suggest_part_rule(part: Part) -> str:
    """A pattern covering ``part``: its first word (or two, ``git status``) and ``*``; the whole
    text when it has constructs a rule must name, or when the short form would not cover it."""
    if not part.constructs:
        rule = _head_rule(part)
        if covers(parse_rule(rule), part):
            return rule
    return f"bash({part.text})"


def suggest_path_rule(tool: str, path: str, cwd: str, *, absolute: bool = False) -> str:
    """``tool(<path>)``: relative inside cwd unless ``absolute``; where a symlink leads, since
    that is what an allow rule is matched against."""
    target, root = real_path(path), real_path(cwd)
    if not absolute and is_inside(target, root) and target != root:
        return f"{tool}({_escape(os.path.relpath(target, root))})"
    return f"{tool}({_escape(target)})"


def _escape(path: str) -> str:
    # A literal '*' or '?' in a file name would widen the rule; such names are rare, keep them literal-ish.
    return path.replace("*", "?")
