"""Finding sessions: listing per project and across projects, id-prefix lookup, and pi's
``-c`` / ``-r`` / ``--session`` / ``--fork`` / ``--no-session`` resolution for the CLI.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pi_cli.store.entry_messages import user_text
from pi_cli.store.jsonl import (
    SESSION_DIR_ENV,
    SessionFileError,
    iso_to_ms,
    parse_session_text,
    resolve_session_dir,
    sessions_root,
)
from pi_cli.store.manager import SessionManager


class SessionNotFoundError(Exception):
    """``--session``/``--fork`` matched nothing; the message is pi's (print it, exit 1)."""


class SessionArgsError(Exception):
    """Conflicting session flags, e.g. ``--fork`` with ``--continue`` (print, exit 1)."""


class SessionAbortedError(Exception):
    """The user declined to fork a session from another project (pi prints ``Aborted.``, exit 0)."""


@dataclass(slots=True)
class SessionInfo:
    """One row of the ``/resume`` picker. Times are ms since the epoch."""

    path: Path
    id: str
    cwd: str
    name: str | None
    parent_session_path: str | None
    created: int
    modified: int
    message_count: int
    first_message: str
    all_messages_text: str


def session_info(path: Path) -> SessionInfo | None:
    """Summarise one file for listing (None if it is not a session file)."""
    try:
        data = path.read_bytes()
        mtime_ms = int(path.stat().st_mtime * 1000)
    except OSError:
        return None
    entries = parse_session_text(data, str(path)).entries
    if not entries or entries[0].get("type") != "session" or not isinstance(entries[0].get("id"), str):
        return None
    header = entries[0]
    name: str | None = None
    count = 0
    first = ""
    texts: list[str] = []
    last_activity = 0
    for entry in entries[1:]:
        if entry.get("type") == "session_info":
            name = str(entry.get("name") or "").strip() or None
        if entry.get("type") != "message":
            continue
        count += 1
        message = entry.get("message") or {}
        if message.get("role") not in ("user", "assistant"):
            continue
        stamp = message.get("timestamp")
        last_activity = max(last_activity, stamp if isinstance(stamp, int) else iso_to_ms(entry.get("timestamp")))
        text = user_text(message, " ")
        if text:
            texts.append(text)
            if not first and message.get("role") == "user":
                first = text
    created = iso_to_ms(header.get("timestamp"))
    return SessionInfo(
        path=path,
        id=header["id"],
        cwd=str(header.get("cwd") or ""),
        name=name,
        parent_session_path=header.get("parentSession"),
        created=created,
        modified=last_activity or created or mtime_ms,
        message_count=count,
        first_message=first or "(no messages)",
        all_messages_text=" ".join(texts),
    )


def _list_dir(directory: Path) -> list[SessionInfo]:
    try:
        files = [p for p in directory.iterdir() if p.suffix == ".jsonl" and p.is_file()]
    except OSError:
        return []
    return [info for info in map(session_info, files) if info is not None]


def list_sessions(cwd: str | Path, session_dir: str | Path | None = None) -> list[SessionInfo]:
    """Sessions of one project, most recently active first."""
    infos = _list_dir(resolve_session_dir(cwd, session_dir))
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


def list_all_sessions() -> list[SessionInfo]:
    """Sessions of every project under ``<agentDir>/sessions``, most recently active first."""
    root = sessions_root()
    infos: list[SessionInfo] = []
    try:
        dirs = [d for d in root.iterdir() if d.is_dir()]
    except OSError:
        return []
    for directory in dirs:
        infos.extend(_list_dir(directory))
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


def threaded(infos: list[SessionInfo]) -> list[tuple[SessionInfo, int]]:
    """``infos`` with each session whose header names a listed parent (``parentSession``: a
    subagent's child session, a fork) moved right under that parent, oldest child first, paired
    with its depth (0 for a top-level session) for indenting. Sessions whose parent is not listed
    stay where they are; the order of the top level is kept."""
    by_name = {info.path.name: info for info in infos}
    children: dict[str, list[SessionInfo]] = {}
    roots: list[SessionInfo] = []
    for info in infos:
        parent = os.path.basename(info.parent_session_path or "")
        if parent and parent in by_name and parent != info.path.name:
            children.setdefault(parent, []).append(info)
        else:
            roots.append(info)
    out: list[tuple[SessionInfo, int]] = []
    seen: set[str] = set()

    def visit(info: SessionInfo, depth: int) -> None:
        if info.path.name in seen:
            return
        seen.add(info.path.name)
        out.append((info, depth))
        for child in sorted(children.get(info.path.name, []), key=lambda i: i.created):
            visit(child, depth + 1)

    for info in roots:
        visit(info, 0)
    for info in infos:  # a cycle of parents (hand-edited files) still lists every session
        visit(info, 0)
    return out


def rename_session(path: str | Path, name: str) -> None:
    """Set a session's name from the picker (appends a ``session_info`` entry to that file)."""
    SessionManager.open(path).append_session_info(name)


def delete_session(path: str | Path) -> None:
    """Delete a session file (the picker asks for confirmation first)."""
    Path(path).unlink()


@dataclass(slots=True)
class ResolvedSession:
    kind: str  # "path" | "local" | "global" | "not_found"
    path: Path | None = None
    cwd: str | None = None


def resolve_session_arg(arg: str, cwd: str | Path, session_dir: str | Path | None = None) -> ResolvedSession:
    """pi's rule: an argument with ``/``, ``\\`` or a ``.jsonl`` ending is a path; otherwise an id
    prefix, searched in this project first and then in all projects."""
    if "/" in arg or "\\" in arg or arg.endswith(".jsonl"):
        return ResolvedSession("path", Path(arg).expanduser())
    for info in list_sessions(cwd, session_dir):
        if info.id.startswith(arg):
            return ResolvedSession("local", info.path, info.cwd)
    for info in list_all_sessions():
        if info.id.startswith(arg):
            return ResolvedSession("global", info.path, info.cwd)
    return ResolvedSession("not_found")


def open_session_for_cli(
    cwd: str | Path,
    continue_: bool = False,
    resume: str | Path | None = None,
    session: str | None = None,
    fork: str | None = None,
    session_dir: str | Path | None = None,
    no_session: bool = False,
    *,
    resumed: bool = False,
    setting_session_dir: str | None = None,
    confirm_fork: Callable[[str], bool] | None = None,
) -> SessionManager:
    """The session the CLI flags ask for, as pi resolves them.

    ``resume`` is the path chosen in the ``-r`` picker (the UI runs the picker; pass ``resumed=True``
    for ``-r`` so flag conflicts are checked). ``confirm_fork(other_cwd)`` is asked when
    ``--session`` names a session of another project (default: fork without asking).
    Raises :class:`SessionArgsError`, :class:`SessionNotFoundError` (``No session found matching 'x'``),
    :class:`SessionAbortedError` or :class:`SessionFileError`.
    """
    if fork:
        conflicts = [
            flag
            for flag, on in (
                ("--session", bool(session)),
                ("--continue", continue_),
                ("--resume", resumed or resume is not None),
                ("--no-session", no_session),
            )
            if on
        ]
        if conflicts:
            raise SessionArgsError(f"--fork cannot be combined with {', '.join(conflicts)}")
    if no_session:
        return SessionManager.in_memory(cwd)
    directory = resolve_session_dir(cwd, session_dir, setting_session_dir)
    # Opened files keep their own folder for /new and /fork unless a dir was given explicitly.
    explicit = directory if (session_dir or os.environ.get(SESSION_DIR_ENV) or setting_session_dir) else None
    if fork:
        found = resolve_session_arg(fork, cwd, directory)
        if found.path is None:
            raise SessionNotFoundError(f"No session found matching '{fork}'")
        return SessionManager.fork_from(found.path, cwd, directory)
    if session:
        found = resolve_session_arg(session, cwd, directory)
        if found.path is None:
            raise SessionNotFoundError(f"No session found matching '{session}'")
        if found.kind == "global":
            if confirm_fork is not None and not confirm_fork(found.cwd or ""):
                raise SessionAbortedError("Aborted.")
            return SessionManager.fork_from(found.path, cwd, directory)
        return SessionManager.open(found.path, explicit)
    if resume is not None:
        return SessionManager.open(resume, explicit)
    if continue_:
        return SessionManager.continue_recent(cwd, directory)
    return SessionManager.create(cwd, directory)


def missing_cwd_message(manager: SessionManager, fallback_cwd: str | Path) -> str | None:
    """pi's error when a resumed session's cwd no longer exists (non-interactive: print, exit 1)."""
    if manager.session_file is None or not manager.cwd or os.path.exists(manager.cwd):
        return None
    return (
        f"Stored session working directory does not exist: {manager.cwd}\n"
        f"Session file: {manager.session_file}\nCurrent working directory: {fallback_cwd}"
    )


__all__ = [
    "ResolvedSession",
    "SessionAbortedError",
    "SessionArgsError",
    "SessionFileError",
    "SessionInfo",
    "SessionNotFoundError",
    "delete_session",
    "list_all_sessions",
    "list_sessions",
    "missing_cwd_message",
    "open_session_for_cli",
    "rename_session",
    "resolve_session_arg",
    "session_info",
    "threaded",
]
