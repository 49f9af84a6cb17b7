"""The ``packages`` arrays of the settings files: reading them per scope and rewriting one.

An entry is a source string or pi's object form ``{"source": "...", "extensions": [...], ...}``
(resource filters). Relative local paths in an entry are relative to the folder of the settings
file holding it: the agent dir for ``user``, ``<cwd>/.pi`` for ``project``. Project declarations
count only in a trusted project (the caller passes the decision).

Writes go through :func:`pi_cli.config.json_file.write_json_atomic`, keep every other key, and are
refused when the file is not a JSON object, so a typo never costs the user the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pi_cli.config.json_file import write_json_atomic

Scope = Literal["user", "project"]


class DeclarationError(ValueError):
    """A settings file that cannot be read or written as needed; one line for the user."""


@dataclass(frozen=True, slots=True)
class Declaration:
    """One ``packages`` entry, where it was declared, and the folder its paths are relative to."""

    entry: str | dict[str, Any]
    scope: Scope
    base: Path

    @property
    def source(self) -> str:
        """The source string of the entry."""
        return self.entry if isinstance(self.entry, str) else str(self.entry.get("source", ""))

    @property
    def filters(self) -> dict[str, Any] | None:
        """The object form's resource filters (``extensions``/``skills``/``prompts``/``themes``)."""
        return self.entry if isinstance(self.entry, dict) else None


def settings_file(scope: Scope, agent_dir: Path, cwd: Path) -> Path:
    """The settings file of ``scope``."""
    return agent_dir / "settings.json" if scope == "user" else cwd / ".pi" / "settings.json"


def read_settings(path: Path) -> dict[str, Any]:
    """The whole settings object of ``path`` ({} when absent); raises :class:`DeclarationError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise DeclarationError(f"Cannot read {path}: {exc.strerror or exc}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise DeclarationError(f"Invalid JSON in {path}: {exc}") from None
    if not isinstance(data, dict):
        raise DeclarationError(f"Invalid settings in {path}: expected a JSON object")
    return data


def entries_of(data: dict[str, Any], path: Path) -> list[Any]:
    """The ``packages`` list of a settings object, as written (bad items included, so a rewrite
    loses nothing); raises when ``packages`` is not a list at all."""
    value = data.get("packages", [])
    if not isinstance(value, list):
        raise DeclarationError(f"Invalid settings in {path}: packages must be a list")
    return value


def is_entry(item: Any) -> bool:
    """A source string or an object with a ``source`` string."""
    return isinstance(item, str) or (isinstance(item, dict) and isinstance(item.get("source"), str))


def write_entries(path: Path, entries: list[Any]) -> None:
    """Replace the ``packages`` list of ``path`` (created when absent), keeping other keys."""
    data = read_settings(path)
    data["packages"] = entries
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, data)
    except OSError as exc:
        raise DeclarationError(f"Could not write {path}: {exc.strerror or exc}") from None


def declarations(agent_dir: Path, cwd: Path, trusted: bool, problems: list[str] | None = None) -> list[Declaration]:
    """Every declared package: the user's, then (in a trusted project) the project's.

    An unreadable file or a bad entry adds one line to ``problems`` (when given: start-up leaves
    them to the settings loader, which reports them already) and contributes nothing.
    """
    found: list[Declaration] = []
    scopes: list[Scope] = ["user", "project"] if trusted else ["user"]
    for scope in scopes:
        path = settings_file(scope, agent_dir, cwd)
        try:
            entries = entries_of(read_settings(path), path)
        except DeclarationError as exc:
            if problems is not None:
                problems.append(str(exc))
            continue
        for index, entry in enumerate(entries):
            if is_entry(entry):
                found.append(Declaration(entry, scope, path.parent))
            elif problems is not None:
                problems.append(f"Invalid settings in {path}: packages[{index}] must be a source string")
    return found
