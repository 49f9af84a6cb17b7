"""Editor completion for inline mode: ``/`` commands at the start, ``@`` paths anywhere."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

MAX_PATH_COMPLETIONS = 50


class InlineCompleter(Completer):
    """Completes ``/name`` from ``commands()`` and ``@partial/path`` relative to ``cwd``."""

    def __init__(self, cwd: Path, commands: Callable[[], list[tuple[str, str]]]) -> None:
        self.cwd = cwd
        self.commands = commands

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before and "\n" not in before:
            typed = before[1:]
            for name, description in self.commands():
                if name.startswith(typed):
                    yield Completion("/" + name, start_position=-len(before), display_meta=description)
            return
        word = before.rsplit(None, 1)[-1] if before and not before[-1].isspace() else ""
        if word.startswith("@"):
            yield from self._paths(word[1:])

    def _paths(self, partial: str) -> Iterable[Completion]:
        expanded = os.path.expanduser(partial)
        directory, _, prefix = expanded.rpartition("/")
        base = Path(directory) if directory else Path()
        root = base if base.is_absolute() else self.cwd / base
        try:
            entries = sorted(os.scandir(root), key=lambda e: e.name)
        except OSError:
            return
        shown = 0
        for entry in entries:
            if not entry.name.startswith(prefix) or (entry.name.startswith(".") and not prefix.startswith(".")):
                continue
            suffix = "/" if entry.is_dir() else ""
            head = partial[: len(partial) - len(prefix)]
            yield Completion(head + entry.name + suffix, start_position=-len(partial), display=entry.name + suffix)
            shown += 1
            if shown >= MAX_PATH_COMPLETIONS:
                return
