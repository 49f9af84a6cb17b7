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
    ProviderStack,
    builtin_completions,
    is_pending,
    no_arguments,
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
        self.arguments = arguments or no_arguments
        self.provider_factories = provider_factories  # extensions' autocomplete providers
        base = lambda: BuiltinProvider(self.commands, self.arguments, self.cwd)  # noqa: E731
        self._providers = ProviderStack(base, lambda exc: None)

    def _provider(self) -> Any:
        return self._providers.top(self.provider_factories() if self.provider_factories is not None else [])

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
        cursor = document.cursor_position
        items = builtin_completions(document.text, cursor, self.commands, self.arguments, self.cwd)
        for item in items:
            yield _shown(item, cursor)


def _shown(item: Any, cursor: int) -> Completion:
    """prompt_toolkit's item for one of ours: its menu shows the label and inserts the value (the
    TUI's trailing space after a command is left out here)."""
    value = item.value.rstrip(" ") if item.kind == "command" else item.value
    return Completion(value, start_position=item.start - cursor, display=item.label, display_meta=item.description)
