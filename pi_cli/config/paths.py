"""Where pi_cli keeps its files: pi's layout, so a pi user's files are ours too.

The agent dir is ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``; project settings live in
``<cwd>/.pi/``. Functions, not constants: tests change the environment between calls.
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_DIR_NAME = ".pi"


def agent_dir() -> Path:
    """The global config dir (``PI_CODING_AGENT_DIR`` wins, ``~`` expanded)."""
    override = os.environ.get("PI_CODING_AGENT_DIR")
    if override:
        return Path(override).expanduser()
    return Path.home() / CONFIG_DIR_NAME / "agent"


def models_json_path() -> Path:
    return agent_dir() / "models.json"


def auth_json_path() -> Path:
    return agent_dir() / "auth.json"


def settings_path() -> Path:
    return agent_dir() / "settings.json"


def keybindings_path() -> Path:
    return agent_dir() / "keybindings.json"


def project_dir(cwd: Path) -> Path:
    return cwd / CONFIG_DIR_NAME


def project_settings_path(cwd: Path) -> Path:
    return project_dir(cwd) / "settings.json"


def offline() -> bool:
    """``PI_OFFLINE`` set to a true-ish value disables network probes at start-up."""
    return os.environ.get("PI_OFFLINE", "").lower() in {"1", "true", "yes", "on"}
