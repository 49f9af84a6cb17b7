"""Installing, removing, listing and updating declared packages (the work behind the commands).

Order keeps the settings honest: the settings file is read (and a broken one refused) before
anything is fetched; a declaration is written only after its install succeeded; on removal the
declaration goes first and the files after, so a failure never leaves a declaration pointing at
half a package. Messages of :class:`InstallError` / :class:`DeclarationError` / :class:`SourceError`
are single lines for the user.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_cli.packages import git_repo, pip_target
from pi_cli.packages.declarations import (
    Declaration,
    Scope,
    declarations,
    entries_of,
    is_entry,
    read_settings,
    settings_file,
)
from pi_cli.packages.declarations import write_entries as write_declarations
from pi_cli.packages.sources import PackageSource, SourceError, parse_source, settings_form
from pi_cli.packages.store import InstallError, install_path, remove_tree


@dataclass(frozen=True, slots=True)
class Listed:
    """A declared package for ``pi list``: its entry, and its folder when installed."""

    declaration: Declaration
    installed: Path | None


def _same(entry: Any, source: PackageSource, cwd: Path, base: Path) -> bool:
    if not is_entry(entry):
        return False
    text = entry if isinstance(entry, str) else str(entry["source"])
    try:
        return parse_source(text).identity(base) == source.identity(cwd)
    except SourceError:
        return False


def fetch(source: PackageSource, scope: Scope, agent_dir: Path, cwd: Path, base: Path) -> tuple[str | None, str | None]:
    """Install or refresh ``source``'s files; (before, after) commit or version. Local: checked."""
    target = install_path(source, scope, agent_dir, cwd, base)
    if source.kind == "local":
        if not target.exists():
            raise InstallError(f"Path does not exist: {target}")
        return None, None
    existed = target.exists()
    try:
        if source.kind == "git":
            return git_repo.install_or_update(source, target)
        return pip_target.install(source, target)
    except InstallError:
        if not existed:  # a first install that failed: leave nothing (not even empty folders)
            remove_tree(target, agent_dir)
        raise


def install(raw: str, scope: Scope, agent_dir: Path, cwd: Path) -> None:
    """``pi install``: fetch the package, then add (or rewrite) its declaration in ``scope``."""
    source = parse_source(raw)
    path = settings_file(scope, agent_dir, cwd)
    entries = list(entries_of(read_settings(path), path))
    fetch(source, scope, agent_dir, cwd, cwd)
    form = settings_form(source, cwd, path.parent)
    for index, entry in enumerate(entries):
        if _same(entry, source, cwd, path.parent):
            if (entry if isinstance(entry, str) else entry.get("source")) == form:
                return
            entries[index] = form if isinstance(entry, str) else {**entry, "source": form}
            break
    else:
        entries.append(form)
    write_declarations(path, entries)


def remove(raw: str, scope: Scope, agent_dir: Path, cwd: Path) -> bool:
    """``pi remove``: drop the declaration, then the installed files. False: nothing matched."""
    source = parse_source(raw)
    path = settings_file(scope, agent_dir, cwd)
    entries = entries_of(read_settings(path), path)
    kept = [entry for entry in entries if not _same(entry, source, cwd, path.parent)]
    if len(kept) != len(entries):
        write_declarations(path, kept)
    if source.kind != "local":
        remove_tree(install_path(source, scope, agent_dir, cwd, cwd), agent_dir)
    return len(kept) != len(entries)


def listed(agent_dir: Path, cwd: Path, trusted: bool, problems: list[str]) -> list[Listed]:
    """Every declaration (project ones when ``trusted``) and where it is installed."""
    out: list[Listed] = []
    for decl in declarations(agent_dir, cwd, trusted, problems):
        try:
            target = install_path(parse_source(decl.source), decl.scope, agent_dir, cwd, decl.base)
        except SourceError:
            target = None
        out.append(Listed(decl, target if target is not None and target.exists() else None))
    return out


def _short(value: str | None, kind: str) -> str:
    if value is None:
        return "(none)"
    return value[:7] if kind == "git" else value


def update(
    raw: str | None,
    agent_dir: Path,
    cwd: Path,
    trusted: bool,
    problems: list[str],
    progress: Callable[[str], None] = lambda line: None,
) -> list[str]:
    """``pi update [SOURCE]``: reconcile git clones and upgrade unpinned pip packages (a missing
    install is installed), announcing each through ``progress`` (``Updating SOURCE...``).
    Returns ``"SOURCE[ (project)] OLD -> NEW"`` for each that changed."""
    decls = declarations(agent_dir, cwd, trusted, problems)
    wanted = parse_source(raw) if raw else None
    chosen = [d for d in decls if wanted is None or _same(d.source, wanted, cwd, d.base)]
    if wanted is not None and not chosen:
        raise InstallError(f"No matching package found for {raw}")
    changed: list[str] = []
    for decl in chosen:
        source = parse_source(decl.source)
        target = install_path(source, decl.scope, agent_dir, cwd, decl.base)
        if source.kind == "local" or (source.kind == "pip" and source.pinned and target.exists()):
            continue
        progress(f"Updating {decl.source}...")
        before, after = fetch(source, decl.scope, agent_dir, cwd, decl.base)
        if before != after:
            scope = " (project)" if decl.scope == "project" else ""
            changed.append(f"{decl.source}{scope} {_short(before, source.kind)} -> {_short(after, source.kind)}")
    return changed
