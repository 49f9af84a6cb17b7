"""Adding a group of slash commands to the editor's ``/`` completion."""

from __future__ import annotations

from typing import Any


def add_completions(runner: Any, items: list[tuple[str, str]]) -> None:
    """List ``items`` (``(name, description)``) after what ``runner.completion_entries`` already
    gives; names it already has are not repeated."""
    base = runner.completion_entries

    def completion_entries() -> list[tuple[str, str]]:
        entries: list[tuple[str, str]] = list(base())
        known = {name for name, _ in entries}
        return entries + [item for item in items if item[0] not in known]

    runner.completion_entries = completion_entries
