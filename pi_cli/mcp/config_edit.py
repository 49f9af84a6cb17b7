"""Changing one server in an ``mcp.json`` while keeping everything else in the file.

Used by ``pi mcp add/remove`` and by ``/mcp`` (enable/disable, exposure). Writes are atomic
(:func:`pi_cli.config.json_file.write_json_atomic`); a file that is not a JSON object with an
``mcpServers`` object is refused with one line naming it, never overwritten.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_cli.config.json_file import write_json_atomic


class McpConfigEditError(ValueError):
    """One line naming the file and what stops the edit."""


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        parsed = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise McpConfigEditError(f"{path}: cannot read it ({exc.__class__.__name__}); fix or remove it first") from None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("mcpServers", {}), dict):
        raise McpConfigEditError(f'{path}: expected an object with an "mcpServers" object')
    return parsed


def _save(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, data)


def add_server(path: Path, name: str, entry: dict[str, Any]) -> bool:
    """Add or replace ``name``; True when an entry was replaced."""
    data = _load(path)
    servers = data.setdefault("mcpServers", {})
    replaced = name in servers
    servers[name] = entry
    _save(path, data)
    return replaced


def remove_server(path: Path, name: str) -> bool:
    """Remove ``name``; False when the file does not define it (nothing is written then)."""
    if not path.exists():
        return False
    data = _load(path)
    servers = data.get("mcpServers", {})
    if name not in servers:
        return False
    del servers[name]
    _save(path, data)
    return True


def update_server(
    path: Path, name: str, *, enabled: bool | None = None, exposure: str | None = None, create_override: bool = False
) -> None:
    """Set ``enabled``/``exposure`` of ``name`` in ``path``.

    ``create_override`` adds ``{name: {}}`` first when missing (a project override of a user
    server). Default values are dropped from full entries but kept in overrides, since an override's
    keys replace the user entry's.
    """
    data = _load(path)
    servers = data.setdefault("mcpServers", {})
    entry = servers.get(name)
    if entry is None and create_override:
        entry = servers[name] = {}
    if not isinstance(entry, dict):
        raise McpConfigEditError(f'{path} does not define MCP server "{name}"')
    is_override = not any(key in entry for key in ("command", "url", "type"))
    if enabled is not None:
        if enabled and not is_override:
            entry.pop("enabled", None)
        else:
            entry["enabled"] = enabled
    if exposure is not None:
        entry["exposure"] = exposure
    _save(path, data)
