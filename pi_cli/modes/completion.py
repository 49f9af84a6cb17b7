"""Completion candidates for the editor, the one rule set of both front ends: ``/`` commands, an
extension command's own argument completions, and ``@`` paths. Matching is case-insensitive,
prefix matches before substring matches, at most :data:`MAX_ITEMS`; path completion skips hidden
entries (unless the stem starts with a dot) and the folders no one edits (``.git``,
``node_modules``, caches). No UI toolkit here: the TUI's editor menu and inline's prompt_toolkit
completer show the same :class:`Completion` items."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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
