"""Editor completion for inline mode: the TUI's rules (:mod:`pi_cli.modes.completion`) shown by
prompt_toolkit's completion menu — ``/`` commands at the start, ``@`` paths anywhere."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from pi_cli.modes.completion import argument_completions, command_completions, path_completions


class InlineCompleter(Completer):
    """Completes ``/name`` from ``commands()``, a command's argument from ``arguments(name,
    prefix)`` and ``@partial/path`` relative to ``cwd``."""

    def __init__(
        self,
        cwd: Path,
        commands: Callable[[], list[tuple[str, str]]],
        arguments: Callable[[str, str], list[dict[str, str]]] | None = None,
    ) -> None:
        self.cwd = cwd
        self.commands = commands
        self.arguments = arguments

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text, cursor = document.text, document.cursor_position
        items = command_completions(document.text_before_cursor, self.commands()) if cursor == len(text) else []
        if not items and cursor == len(text) and self.arguments is not None:
            items = argument_completions(text, self.arguments)
        if not items:
            items = path_completions(text, cursor, self.cwd)
        for item in items:
            # The TUI inserts a trailing space after a command or file; prompt_toolkit's menu shows
            # the label and inserts the value.
            value = item.value.rstrip(" ") if item.kind == "command" else item.value
            yield Completion(
                value, start_position=item.start - cursor, display=item.label, display_meta=item.description
            )
