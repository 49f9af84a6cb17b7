"""Extensions' autocomplete providers (pi's ``ctx.ui.add_autocomplete_provider``), stacked on the
built-in completion rules of :mod:`pi_cli.modes.completion`. No UI toolkit here.

A provider has pi's shape in snake_case (pi's camelCase names work too):
``get_suggestions(lines, cursor_line, cursor_col, options) -> {"items": [...], "prefix": str} |
None`` — sync or async; ``items`` are ``{value, label?, description?}`` — and optionally
``apply_completion(lines, cursor_line, cursor_col, item, prefix)`` and ``trigger_characters``.
``add_autocomplete_provider(factory)`` calls ``factory(current)`` with the provider below it (the
built-in one at the bottom), so a provider answers what it knows and hands the rest down.

Accepting an item replaces the ``prefix`` before the cursor with its ``value`` (the built-in
behaviour; a provider's own ``apply_completion`` is not consulted by the editors).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pi_cli.modes.completion import Completion, argument_completions, command_completions, path_completions


def _find(provider: Any, snake: str, camel: str) -> Any:
    for name in (snake, camel):
        value = provider.get(name) if isinstance(provider, dict) else getattr(provider, name, None)
        if value is not None:
            return value
    return None


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
        items = []
        if cursor == len(text):
            items = command_completions(text, self._commands()) or argument_completions(text, self._arguments)
        items = items or path_completions(text, cursor, self._cwd)
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
        self._get = _find(spec, "get_suggestions", "getSuggestions")
        self._apply = _find(spec, "apply_completion", "applyCompletion")
        self._below = below
        self.trigger_characters = list(_find(spec, "trigger_characters", "triggerCharacters") or [])

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
            if _find(made, "get_suggestions", "getSuggestions") is None:
                raise TypeError("the provider has no get_suggestions")
        except Exception as exc:
            report(exc)
            continue
        current = Provider(made, current)
    return current


def suggest(provider: Any, text: str, cursor: int) -> Any:
    """The provider's answer for ``text`` with the cursor at ``cursor``: its raw answer, or an
    awaitable of it (an async provider); see :func:`to_completions`."""
    before = text[:cursor]
    cursor_line = before.count("\n")
    cursor_col = cursor - (before.rfind("\n") + 1)
    get = _find(provider, "get_suggestions", "getSuggestions")
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
