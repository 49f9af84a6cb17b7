"""Editor completion for inline mode: the TUI's rules (:mod:`pi_cli.modes.completion`) shown by
prompt_toolkit's completion menu — ``/`` commands at the start, ``@`` paths anywhere."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterable
from pathlib import Path
from typing import Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from pi_cli.modes.completion import (
    BuiltinProvider,
    argument_completions,
    command_completions,
    is_pending,
    path_completions,
    stack,
    suggest,
    to_completions,
)


class InlineCompleter(Completer):
    """Completes ``/name`` from ``commands()``, a command's argument from ``arguments(name,
    prefix)`` and ``@partial/path`` relative to ``cwd``."""

    def __init__(
        self,
        cwd: Path,
        commands: Callable[[], list[tuple[str, str]]],
        arguments: Callable[[str, str], list[dict[str, str]]] | None = None,
        provider_factories: Callable[[], list[Callable[[Any], Any]]] | None = None,
    ) -> None:
        self.cwd = cwd
        self.commands = commands
        self.arguments = arguments
        self.provider_factories = provider_factories  # extensions' autocomplete providers
        self._providers: tuple[int, Any] | None = None

    def _provider(self) -> Any:
        factories = self.provider_factories() if self.provider_factories is not None else []
        if not factories:
            return None
        if self._providers is None or self._providers[0] != len(factories):
            base = BuiltinProvider(self.commands, self.arguments or _no_arguments, self.cwd)
            self._providers = (len(factories), stack(factories, base, lambda exc: None))
        return self._providers[1]

    async def get_completions_async(
        self, document: Document, complete_event: CompleteEvent
    ) -> AsyncGenerator[Completion, None]:
        """With extensions' providers: their answer (awaited when async); else the built-in rules."""
        provider = self._provider()
        if provider is None:
            for item in self.get_completions(document, complete_event):
                yield item
            return
        cursor = document.cursor_position
        try:
            answer = suggest(provider, document.text, cursor)
            if is_pending(answer):
                answer = await answer
        except Exception:  # a provider's bug must not break typing
            return
        for found in to_completions(answer, cursor):
            yield _shown(found, cursor)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text, cursor = document.text, document.cursor_position
        items = command_completions(document.text_before_cursor, self.commands()) if cursor == len(text) else []
        if not items and cursor == len(text) and self.arguments is not None:
            items = argument_completions(text, self.arguments)
        if not items:
            items = path_completions(text, cursor, self.cwd)
        for item in items:
            yield _shown(item, cursor)


def _shown(item: Any, cursor: int) -> Completion:
    """prompt_toolkit's item for one of ours: its menu shows the label and inserts the value (the
    TUI's trailing space after a command is left out here)."""
    value = item.value.rstrip(" ") if item.kind == "command" else item.value
    return Completion(value, start_position=item.start - cursor, display=item.label, display_meta=item.description)


def _no_arguments(name: str, prefix: str) -> list[dict[str, str]]:
    return []
