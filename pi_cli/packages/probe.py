"""Are any packages declared? Answered with two small JSON reads, importing nothing else.

Start-up (the session factory for skills and prompts, the CLI for extensions) calls
:func:`declared_packages`; only when a ``packages`` array is non-empty is the resolver imported.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.packages.startup import PackageSet


def _declares(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False  # the settings loader reports a broken file
    return isinstance(data, dict) and bool(data.get("packages"))


def declared_packages(agent_dir: Path, cwd: Path, trusted: bool) -> PackageSet | None:
    """The resolved packages (see :func:`pi_cli.packages.startup.resolve_packages`), or None
    when neither the user's settings nor (``trusted``) the project's declare any."""
    files = [agent_dir / "settings.json", *([cwd / ".pi" / "settings.json"] if trusted else [])]
    if not any(_declares(path) for path in files):
        return None
    from pi_cli.packages.startup import resolve_packages

    return resolve_packages(agent_dir, cwd, trusted)
