"""What a package folder holds: extensions, skills, prompt templates, themes and agents.

Without a manifest, pi's conventional folders: ``extensions/`` (each ``name.py`` and each package
folder with ``__init__.py``), ``skills/`` (walked by the skill loader), ``prompts/`` (``*.md``),
``themes/`` (``*.json``) and ``agents/`` (subagent definitions, ``**/*.md``, as pi-subagents
packages ship them). A file given as the package is one extension.

The manifest is a ``[tool.pi]`` table in the package's ``pyproject.toml`` (pi keeps it under
``"pi"`` in package.json)::

    [tool.pi]
    extensions = ["src/my_ext.py"]
    skills = ["resources/skills"]
    prompts = ["resources/prompts/*.md", "!resources/prompts/draft.md"]
    themes = []
    agents = ["agents"]

Paths are relative to the package root; globs and ``!`` exclusions are allowed. When the table
names any of the lists, only what it lists loads (a type it leaves out contributes nothing).
The object form of a ``packages`` entry narrows further, as pi's: a list per type (``[]`` = none,
``!glob`` excludes, ``+path`` / ``-path`` force one exact path in or out).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RESOURCE_TYPES = ("extensions", "skills", "prompts", "themes", "agents")


@dataclass(slots=True)
class PackageContents:
    """Paths (files or folders) of each resource type a package contributes."""

    extensions: list[Path] = field(default_factory=list)
    skills: list[Path] = field(default_factory=list)
    prompts: list[Path] = field(default_factory=list)
    themes: list[Path] = field(default_factory=list)
    agents: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def of(self, kind: str) -> list[Path]:
        """The list for ``kind`` (one of :data:`RESOURCE_TYPES`)."""
        paths: list[Path] = getattr(self, kind)
        return paths


def extension_entries(folder: Path) -> list[Path]:
    """``*.py`` files and package folders directly in ``folder``, by name (``.``/``_`` skipped)."""
    try:
        children = sorted(folder.iterdir())
    except OSError:
        return []
    return [
        child
        for child in children
        if not child.name.startswith((".", "_"))
        and ((child.is_file() and child.suffix == ".py") or (child.is_dir() and (child / "__init__.py").is_file()))
    ]


def _conventional(root: Path, kind: str) -> list[Path]:
    folder = root / kind
    if kind == "extensions":
        return extension_entries(folder)
    if not folder.is_dir():
        return []
    if kind == "themes":
        return sorted(folder.glob("*.json"))
    return [folder]


def read_manifest(root: Path, problems: list[str]) -> dict[str, list[str]] | None:
    """The ``[tool.pi]`` lists of ``root/pyproject.toml``; None when there is no such table."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return None
    import tomllib  # only for packages that ship a pyproject.toml

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        problems.append(f"{path}: {exc}")
        return None
    table = data.get("tool", {}).get("pi") if isinstance(data.get("tool"), dict) else None
    if not isinstance(table, dict):
        return None
    manifest: dict[str, list[str]] = {}
    for kind in RESOURCE_TYPES:
        value = table.get(kind)
        if value is None:
            continue
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            manifest[kind] = value
        else:
            problems.append(f"{path}: tool.pi.{kind} must be a list of paths")
    return manifest or None


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def select(candidates: Iterable[Path], patterns: list[str], root: Path) -> list[Path]:
    """``candidates`` narrowed by pi's pattern list (see the module doc)."""
    items = list(candidates)
    includes = [p for p in patterns if not p.startswith(("!", "+", "-"))]
    chosen = [c for c in items if any(fnmatch.fnmatch(_relative(c, root), p.removeprefix("./")) for p in includes)]
    if not includes:
        chosen = list(items)
    for pattern in patterns:
        body = pattern[1:].removeprefix("./")
        if pattern.startswith("!"):
            chosen = [c for c in chosen if not fnmatch.fnmatch(_relative(c, root), body)]
        elif pattern.startswith("+"):
            chosen.extend(c for c in items if _relative(c, root) == body and c not in chosen)
        elif pattern.startswith("-"):
            chosen = [c for c in chosen if _relative(c, root) != body]
    return chosen


def _expand(root: Path, entries: list[str]) -> list[Path]:
    """Manifest entries → existing paths (globs expanded), then ``!`` exclusions applied."""
    found: list[Path] = []
    for entry in entries:
        if entry.startswith(("!", "+", "-")):
            continue
        matches = sorted(root.glob(entry.removeprefix("./"))) if any(ch in entry for ch in "*?[") else [root / entry]
        found.extend(m for m in matches if m.exists() and m not in found)
    return select(found, [e for e in entries if e.startswith("!")], root)


def _files(paths: list[Path], kind: str) -> list[Path]:
    """Folders opened into the files a filter can name (prompts ``*.md``; skill folders)."""
    out: list[Path] = []
    for path in paths:
        if not path.is_dir() or kind == "extensions":
            out.append(path)
        elif kind == "skills":
            out.extend(sorted(p.parent if p.name == "SKILL.md" else p for p in path.rglob("*.md")))
        elif kind == "agents":
            out.extend(sorted(path.rglob("*.md")))
        else:
            out.extend(sorted(path.glob("*.md" if kind == "prompts" else "*.json")))
    return list(dict.fromkeys(out))


def package_contents(root: Path, filters: dict[str, Any] | None = None) -> PackageContents:
    """What ``root`` (a package folder or one extension file) contributes, after ``filters``."""
    contents = PackageContents()
    if root.is_file():
        if root.suffix == ".py":
            contents.extensions.append(root)
        return contents
    manifest = read_manifest(root, contents.problems)
    for kind in RESOURCE_TYPES:
        paths = _expand(root, manifest.get(kind, [])) if manifest is not None else _conventional(root, kind)
        wanted = (filters or {}).get(kind)
        if isinstance(wanted, list) and all(isinstance(p, str) for p in wanted):
            paths = select(_files(paths, kind), wanted, root) if wanted else []
        contents.of(kind).extend(paths)
    return contents
