"""Discovery of project instruction files (AGENTS.md / CLAUDE.md) for the system prompt.

pi's order, which the model sees under ``# Project Context``:

1. the global file in the agent dir (``~/.pi/agent`` or ``$PI_CODING_AGENT_DIR``);
2. one file per directory on the path from the filesystem root down to the cwd, outermost first,
   so the most specific instructions come last.

In each directory the first existing name of :data:`CONTEXT_FILE_NAMES` wins (AGENTS.md before
CLAUDE.md). A file already taken (the agent dir can itself sit on the cwd's path) is not repeated.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["CONTEXT_FILE_NAMES", "ContextFile", "find_context_file", "load_context_files"]

CONTEXT_FILE_NAMES: tuple[str, ...] = ("AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")


@dataclass(frozen=True, slots=True)
class ContextFile:
    """One instruction file: absolute ``path`` (as shown to the model) and its text."""

    path: str
    content: str


def find_context_file(directory: str) -> str | None:
    """The context file ``directory`` offers (first of :data:`CONTEXT_FILE_NAMES`), or None."""
    for name in CONTEXT_FILE_NAMES:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def _read(path: str, diagnostics: list[str] | None) -> ContextFile | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return ContextFile(path=path, content=handle.read())
    except OSError as exc:
        if diagnostics is not None:
            diagnostics.append(f"Could not read context file {path}: {exc.strerror or exc}")
        return None


def _ancestors(cwd: str) -> list[str]:
    """``cwd`` and each parent up to the filesystem root, innermost first."""
    chain: list[str] = []
    current = cwd
    while True:
        chain.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            return chain
        current = parent


def load_context_files(
    cwd: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str],
    *,
    diagnostics: list[str] | None = None,
) -> list[ContextFile]:
    """The context files for ``cwd`` in pi's order: global first, then root → cwd.

    Unreadable files are skipped; when ``diagnostics`` is given a one-line warning naming the file
    is appended to it. Paths are absolute (``~`` expanded) but symlinks are not resolved, so the
    model sees the path the user knows.
    """
    cwd_abs = os.path.abspath(os.path.expanduser(os.fspath(cwd)))
    agent_abs = os.path.abspath(os.path.expanduser(os.fspath(agent_dir)))
    found: list[ContextFile] = []
    seen: set[str] = set()

    global_path = find_context_file(agent_abs)
    if global_path is not None:
        loaded = _read(global_path, diagnostics)
        if loaded is not None:
            found.append(loaded)
            seen.add(global_path)

    project: list[ContextFile] = []
    for directory in _ancestors(cwd_abs):
        path = find_context_file(directory)
        if path is None or path in seen:
            continue
        loaded = _read(path, diagnostics)
        if loaded is not None:
            seen.add(path)
            project.append(loaded)
    project.reverse()
    found.extend(project)
    return found
