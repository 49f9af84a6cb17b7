"""Resolving the declared packages at start-up: where each is and what it contributes.

Cheap by design (stdlib only, a few stats and two small JSON reads): with no ``packages`` declared
nothing else is imported. Declarations are deduplicated by identity, a project entry replacing a
user one (pi's rule). A package that is declared but missing (a deleted clone, a vanished local
folder, an install that never ran) is skipped with one warning line and start-up goes on; pi_cli
does not install at start-up (pi 1.6.0 does, when online): ``pi update SOURCE`` installs it.

A pip package contributes the extensions its ``pi_cli.extensions`` entry points name (found in its
private folder's ``*.dist-info``) and the ``skills/``, ``prompts/``, ``themes/`` folders inside the
top-level module those entry points live in (and its ``agents/`` folder).
"""

from __future__ import annotations

import configparser
from dataclasses import dataclass, field
from pathlib import Path

from pi_cli.packages.contents import PackageContents, package_contents
from pi_cli.packages.declarations import Declaration, Scope, declarations
from pi_cli.packages.sources import PackageSource, SourceError, parse_source
from pi_cli.packages.store import install_path

ENTRY_POINT_GROUP = "pi_cli.extensions"


@dataclass(slots=True)
class LoadedPackage:
    """One usable package: its declaration, source, folder and contributions."""

    declaration: Declaration
    source: PackageSource
    root: Path
    contents: PackageContents
    entry_points: list[tuple[str, str]] = field(default_factory=list)  # (name, "module:attr") of pip packages

    @property
    def scope(self) -> Scope:
        """``user`` or ``project``."""
        return self.declaration.scope


@dataclass(slots=True)
class PackageSet:
    """The packages that load, and one warning line per package that cannot."""

    packages: list[LoadedPackage] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def resource_paths(self, kind: str, scope: str) -> list[str]:
        """``skills``/``prompts``/``themes``/``agents`` paths of ``scope``'s packages, as strings."""
        return [str(p) for pkg in self.packages if pkg.scope == scope for p in pkg.contents.of(kind)]

    def has_extensions(self) -> bool:
        """Any package extension (file, folder or entry point) to load."""
        return any(pkg.contents.extensions or pkg.entry_points for pkg in self.packages)


def read_entry_points(site: Path, group: str = ENTRY_POINT_GROUP) -> list[tuple[str, str]]:
    """``(name, value)`` of every ``group`` entry point declared by a distribution in ``site``."""
    found: list[tuple[str, str]] = []
    for info in sorted(site.glob("*.dist-info")):
        parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep names' case
        try:
            parser.read(info / "entry_points.txt", encoding="utf-8")
        except (OSError, configparser.Error):
            continue
        if parser.has_section(group):
            found.extend((name, value.strip()) for name, value in parser.items(group))
    return found


def _pip_contents(site: Path, points: list[tuple[str, str]], decl: Declaration) -> PackageContents:
    contents = PackageContents()
    tops = dict.fromkeys(value.split(":")[0].split(".")[0].strip() for _, value in points)
    for top in tops:
        if top and (site / top).is_dir():
            found = package_contents(site / top, decl.filters)
            for kind in ("skills", "prompts", "themes", "agents"):
                contents.of(kind).extend(found.of(kind))
            contents.problems.extend(found.problems)
    return contents


def _unique(decls: list[Declaration], cwd: Path, warnings: list[str]) -> list[tuple[Declaration, PackageSource]]:
    """Parsed declarations, one per identity; a project entry replaces a user entry."""
    chosen: dict[str, tuple[Declaration, PackageSource]] = {}
    for decl in decls:
        if decl.source.startswith("npm:"):
            continue  # pi's own (Node) packages in the settings file both programs read: not ours
        try:
            source = parse_source(decl.source)
        except SourceError as exc:
            warnings.append(f'Extension package "{decl.source}": {exc}')
            continue
        key = source.identity(decl.base)
        if key not in chosen or decl.scope == "project":
            chosen[key] = (decl, source)
    return list(chosen.values())


def resolve_packages(agent_dir: Path, cwd: Path, trusted: bool) -> PackageSet:
    """The packages declared for ``cwd`` (project ones only when ``trusted``)."""
    result = PackageSet()
    decls = declarations(agent_dir, cwd, trusted)  # broken settings: the settings loader says so
    for decl, source in _unique(decls, cwd, result.warnings):
        root = install_path(source, decl.scope, agent_dir, cwd, decl.base)
        if not root.exists():
            missing = f"not installed (run: pi update {decl.source})"
            hint = f"path does not exist: {root}" if source.kind == "local" else missing
            result.warnings.append(f'Extension package "{decl.source}": {hint}')
            continue
        if source.kind == "pip":
            points = read_entry_points(root)
            contents = _pip_contents(root, points, decl)
            loaded = LoadedPackage(decl, source, root, contents, points)
        else:
            loaded = LoadedPackage(decl, source, root, package_contents(root, decl.filters))
        result.warnings.extend(f'Extension package "{decl.source}": {p}' for p in loaded.contents.problems)
        result.packages.append(loaded)
    return result
