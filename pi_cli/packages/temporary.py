"""``-e SOURCE`` with a package: try one for a single run without adding it to settings (as pi).

``-e pip:NAME``, ``-e git:URL[@REF]`` / ``-e https://…`` install into a cache under
``<agentDir>/tmp/extensions/`` on first use (progress on stderr, so print/json output stays clean)
and load from that cached copy afterwards; delete the cache folder to fetch again (pi 1.6.0 checks
for a newer version on every start when online; pi_cli does no network work at start-up once
cached). ``-e DIR`` where DIR is a package folder (an ``extensions/`` subfolder or a ``[tool.pi]``
manifest, and no ``__init__.py``) loads that package's extensions. Only extensions load this way:
skills and prompts of a package come with ``pi install``. Every other ``-e`` value is left to the
extension loader as before.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from pi_cli.packages.contents import PackageContents, package_contents
from pi_cli.packages.declarations import Declaration
from pi_cli.packages.sources import SourceError, parse_source
from pi_cli.packages.startup import LoadedPackage, PackageSet, read_entry_points
from pi_cli.packages.store import InstallError

_REMOTE = ("pip:", "git:", "https://", "http://", "ssh://", "git://", "npm:")


def is_package_spec(spec: str, cwd: Path) -> bool:
    """Does ``-e spec`` name a package (a remote source or a package folder)?"""
    if spec.startswith(_REMOTE):
        return True
    path = Path(spec).expanduser()
    path = path if path.is_absolute() else cwd / path
    if not path.is_dir() or (path / "__init__.py").is_file():
        return False
    if (path / "extensions").is_dir():
        return True
    try:  # a folder of loose extension files with a pyproject.toml for its tooling stays a folder
        return "[tool.pi]" in (path / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return False


def _cache_path(agent_dir: Path, kind: str, key: str, name: str) -> Path:
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return agent_dir / "tmp" / "extensions" / kind / digest / Path(*name.split("/"))


def temporary_packages(specs: list[str], agent_dir: Path, cwd: Path) -> tuple[PackageSet, list[str]]:
    """The packages among ``-e`` values (installed to the cache when missing) and the other values."""
    from pi_cli.packages import git_repo, pip_target

    result = PackageSet()
    rest: list[str] = []
    for spec in specs:
        if not is_package_spec(spec, cwd):
            rest.append(spec)
            continue
        try:
            source = parse_source(spec)
            if source.kind == "local":
                root = source.local_path(cwd)
            else:
                root = _cache_path(agent_dir, source.kind, f"{source.identity(cwd)}@{source.ref or ''}", source.name)
                if not root.exists():
                    sys.stderr.write(f"Installing {spec}...\n")
                    sys.stderr.flush()
                    if source.kind == "git":
                        git_repo.install_or_update(source, root)
                    else:
                        pip_target.install(source, root)
        except (SourceError, InstallError) as exc:
            result.warnings.append(f"extension {spec}: {exc}")
            continue
        decl = Declaration(spec, "user", cwd)
        if source.kind == "pip":
            result.packages.append(LoadedPackage(decl, source, root, PackageContents(), read_entry_points(root)))
        else:
            contents = package_contents(root)
            result.warnings.extend(f"extension {spec}: {problem}" for problem in contents.problems)
            result.packages.append(LoadedPackage(decl, source, root, contents))
    return result, rest
