"""Where ``mcp.json`` files are, and whether any would be read: what every start-up asks, so it
imports nothing beyond :mod:`pathlib` (the parser in :mod:`pi_cli.mcp.config` is only imported
when a file is there)."""

from __future__ import annotations

from pathlib import Path


def user_config_path(agent_dir: Path) -> Path:
    return agent_dir / "mcp.json"


def project_config_path(cwd: Path) -> Path:
    return cwd / ".pi" / "mcp.json"


def has_mcp_config(agent_dir: Path, cwd: Path, trusted: bool) -> bool:
    """Cheap check (no parsing) whether any ``mcp.json`` would be read at all."""
    if user_config_path(agent_dir).is_file():
        return True
    return trusted and project_config_path(cwd).is_file()
