"""Completion candidates for the editor, the one rule set of both front ends: ``/`` commands, an
extension command's own argument completions, and ``@`` paths. Matching is case-insensitive,
prefix matches before substring matches, at most :data:`MAX_ITEMS`; path completion skips hidden
entries (unless the stem starts with a dot) and the folders no one edits (``.git``,
``node_modules``, caches). No UI toolkit here: the TUI's editor menu and inline's prompt_toolkit
completer show the same :class:`Completion` items.

Extensions' autocomplete providers (pi's ``ctx.ui.add_autocomplete_provider``) stack on these
rules. A provider has pi's shape in snake_case (pi's camelCase names work too):
``get_suggestions(lines, cursor_line, cursor_col, options) -> {"items": [...], "prefix": str} |
None`` — sync or async; ``items`` are ``{value, label?, description?}`` — and optionally
``apply_completion(lines, cursor_line, cursor_col, item, prefix)`` and ``trigger_characters``.
``add_autocomplete_provider(factory)`` calls ``factory(current)`` with the provider below it (the
built-in one at the bottom), so a provider answers what it knows and hands the rest down.
Accepting an item replaces the ``prefix`` before the cursor with its ``value`` (the built-in
behaviour; a provider's own ``apply_completion`` is not consulted by the editors)."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_cli.extensions.rendering.component import field_of

MAX_ITEMS = 30
_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache"})


@dataclass(frozen=True, slots=True)
class Completion:
    """Replace ``text[start:end]`` with ``value``; ``label``/``description`` are for display."""

    start: int
    end: int
    value: str
    label: str
    description: str = ""
    kind: str = "path"  # "path" | "command" | "argument"


def command_completions(text: str, commands: list[tuple[str, str]]) -> list[Completion]:
    """Commands matching a leading ``/word`` (only while no space has been typed)."""
    if not text.startswith("/") or " " in text or "\n" in text:
        return []
    prefix = text[1:].lower()
    matches = [(name, desc) for name, desc in commands if name.lower().startswith(prefix)]
    if prefix:
        matches += [(n, d) for n, d in commands if prefix in n.lower() and not n.lower().startswith(prefix)]
    return [Completion(0, len(text), f"/{name} ", f"/{name}", desc, "command") for name, desc in matches[:MAX_ITEMS]]


def argument_completions(text: str, complete: Callable[[str, str], list[dict[str, str]]]) -> list[Completion]:
    """A command's own completions of its argument (``/name prefix``, one line): what
    ``complete(name, prefix)`` offers, replacing the argument typed so far."""
    if not text.startswith("/") or "\n" in text or " " not in text:
        return []
    name, _, prefix = text[1:].partition(" ")
    start = len(name) + 2
    items = complete(name, prefix)
    return [
        Completion(start, len(text), item["value"], item["label"], item["description"], "argument")
        for item in items[:MAX_ITEMS]
    ]


def current_token(text: str, cursor: int) -> tuple[int, str]:
    """Start offset and text of the whitespace-delimited token ending at ``cursor``."""
    start = cursor
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return start, text[start:cursor]


def path_completions(text: str, cursor: int, cwd: Path) -> list[Completion]:
    """Entries of the directory named by an ``@partial/path`` token before the cursor."""
    start, token = current_token(text, cursor)
    if not token.startswith("@"):
        return []
    partial = token[1:]
    directory, _, stem = partial.rpartition("/")
    base = Path(os.path.expanduser(directory)) if directory else Path(".")
    if not base.is_absolute():
        base = cwd / base
    try:
        entries = list(os.scandir(base))
    except OSError:
        return []
    show_hidden = stem.startswith(".")
    lowered = stem.lower()
    out: list[tuple[int, str, bool]] = []
    for entry in entries:
        name = entry.name
        if name.startswith(".") and not show_hidden:
            continue
        if name in _SKIP_DIRS:
            continue
        low = name.lower()
        if not low.startswith(lowered) and lowered not in low:
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        rank = 0 if low.startswith(lowered) else 1
        out.append((rank, name, is_dir))
    out.sort(key=lambda item: (item[0], not item[2], item[1].lower()))
    prefix = f"{directory}/" if directory else ""
    items = []
    for _rank, name, is_dir in out[:MAX_ITEMS]:
        value = f"@{prefix}{name}{'/' if is_dir else ''}"
        inserted = value if is_dir else value + " "
        items.append(Completion(start, cursor, inserted, value, "dir" if is_dir else "", "path"))
    return items


def apply_completion(text: str, completion: Completion) -> tuple[str, int]:
    """New text and cursor offset after accepting ``completion``."""
    new = text[: completion.start] + completion.value + text[completion.end :]
    return new, completion.start + len(completion.value)


def no_arguments(name: str, prefix: str) -> list[dict[str, str]]:
    """The argument completer of a front end without extensions: nothing to offer."""
    return []


def builtin_completions(
    text: str,
    cursor: int,
    commands: Callable[[], list[tuple[str, str]]],
    arguments: Callable[[str, str], list[dict[str, str]]],
    cwd: Path,
) -> list[Completion]:
    """The built-in rules in order: ``/`` commands, else a command's own argument items (both
    with the cursor at the end), else ``@`` paths."""
    items: list[Completion] = []
    if cursor == len(text):
        items = command_completions(text, commands()) or argument_completions(text, arguments)
    return items or path_completions(text, cursor, cwd)


# --- extensions' autocomplete providers (pi's ctx.ui.add_autocomplete_provider) -------------------


class BuiltinProvider:
    """The built-in rules (``/`` commands, a command's argument, ``@`` paths) as pi's provider."""

    def __init__(
        self,
        commands: Callable[[], list[tuple[str, str]]],
        arguments: Callable[[str, str], list[dict[str, str]]],
        cwd: Path,
    ) -> None:
        self._commands = commands
        self._arguments = arguments
        self._cwd = cwd

    def get_suggestions(
        self, lines: Sequence[str], cursor_line: int, cursor_col: int, options: Any = None
    ) -> dict[str, Any] | None:
        text, cursor = "\n".join(lines), offset_of(lines, cursor_line, cursor_col)
        items = builtin_completions(text, cursor, self._commands, self._arguments, self._cwd)
        if not items:
            return None
        start = min(item.start for item in items)
        return {
            "prefix": text[start:cursor],
            "items": [
                {"value": c.value, "label": c.label, "description": c.description, "kind": c.kind} for c in items
            ],
        }

    def apply_completion(
        self, lines: Sequence[str], cursor_line: int, cursor_col: int, item: dict[str, str], prefix: str
    ) -> dict[str, Any]:
        line = lines[cursor_line]
        before, after = line[: cursor_col - len(prefix)], line[cursor_col:]
        new_lines = [*lines[:cursor_line], *(before + item["value"] + after).split("\n"), *lines[cursor_line + 1 :]]
        return {"lines": new_lines, "cursorLine": cursor_line, "cursorCol": len(before) + len(item["value"])}

    # pi's names, for providers ported from TypeScript that call ``current.getSuggestions(...)``
    getSuggestions = get_suggestions
    applyCompletion = apply_completion


def offset_of(lines: Sequence[str], cursor_line: int, cursor_col: int) -> int:
    return sum(len(line) + 1 for line in lines[:cursor_line]) + cursor_col


class Provider:
    """A provider as the next one up sees it (``current``): methods, whether it was given as an
    object or a dict, under snake_case or pi's camelCase names."""

    def __init__(self, spec: Any, below: Any) -> None:
        self._get = field_of(spec, "get_suggestions", "getSuggestions")
        self._apply = field_of(spec, "apply_completion", "applyCompletion")
        self._below = below
        self.trigger_characters = list(field_of(spec, "trigger_characters", "triggerCharacters") or [])

    def get_suggestions(self, lines: Sequence[str], cursor_line: int, cursor_col: int, options: Any = None) -> Any:
        return self._get(lines, cursor_line, cursor_col, options)

    def apply_completion(
        self, lines: Sequence[str], cursor_line: int, cursor_col: int, item: dict[str, str], prefix: str
    ) -> Any:
        apply = self._apply or self._below.apply_completion
        return apply(lines, cursor_line, cursor_col, item, prefix)

    # pi's names, for providers ported from TypeScript that call ``current.getSuggestions(...)``
    getSuggestions = get_suggestions
    applyCompletion = apply_completion


def stack(factories: Sequence[Callable[[Any], Any]], base: Any, report: Callable[[BaseException], None]) -> Any:
    """The top provider after each ``factory(current)`` in order; a factory that raises, or
    returns no ``get_suggestions``, is reported and skipped."""
    current = base
    for factory in factories:
        try:
            made = factory(current)
            if field_of(made, "get_suggestions", "getSuggestions") is None:
                raise TypeError("the provider has no get_suggestions")
        except Exception as exc:
            report(exc)
            continue
        current = Provider(made, current)
    return current


class ProviderStack:
    """The extensions' providers stacked on the built-in one (``base()``), built again only when a
    provider was added; ``top(factories)`` is None while there are none (the built-in rules)."""

    def __init__(self, base: Callable[[], Any], report: Callable[[BaseException], None]) -> None:
        self._base = base
        self._report = report
        self._built: tuple[int, Any] | None = None  # (how many factories it has, the top provider)

    def top(self, factories: Sequence[Callable[[Any], Any]]) -> Any:
        if not factories:
            return None
        if self._built is None or self._built[0] != len(factories):
            self._built = (len(factories), stack(factories, self._base(), self._report))
        return self._built[1]


def suggest(provider: Any, text: str, cursor: int) -> Any:
    """The provider's answer for ``text`` with the cursor at ``cursor``: its raw answer, or an
    awaitable of it (an async provider); see :func:`to_completions`."""
    before = text[:cursor]
    cursor_line = before.count("\n")
    cursor_col = cursor - (before.rfind("\n") + 1)
    get = field_of(provider, "get_suggestions", "getSuggestions")
    return get(text.split("\n"), cursor_line, cursor_col, {"force": False, "signal": None})


def to_completions(answer: Any, cursor: int, limit: int = 30) -> list[Completion]:
    """Editor items from a provider's ``{items, prefix}`` answer (None or malformed: none)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("items"), list):
        return []
    prefix = str(answer.get("prefix") or "")
    start = max(0, cursor - len(prefix))
    out = []
    for item in answer["items"][:limit]:
        fields = item if isinstance(item, dict) else {"value": item}
        value = fields.get("value")
        if isinstance(value, str):
            label = str(fields.get("label") or value)
            kind = str(fields.get("kind") or "extension")  # the built-in items keep theirs
            out.append(Completion(start, cursor, value, label, str(fields.get("description") or ""), kind))
    return out


def is_pending(answer: Any) -> bool:
    return inspect.isawaitable(answer)
