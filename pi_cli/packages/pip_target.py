"""pip sources: ``pip install --target`` into a private folder per package.

The interpreter pi_cli runs in provides pip (``python -m pip``), but nothing is installed into
that interpreter or the user's project: the package and its dependencies land in the package's
own folder, which start-up puts at the end of ``sys.path`` only when that package is loaded (so
pi_cli's own dependencies always win). An install or upgrade goes to a staging folder that
replaces the old one only on success. pip's own configuration (index URL, ``PIP_NO_INDEX``,
find-links) applies as usual.
"""

from __future__ import annotations

import email.parser
import json
import shutil
import subprocess
import sys
from pathlib import Path

from pi_cli.packages.sources import PackageSource, canonical_name
from pi_cli.packages.store import InstallError, swap_in


def dist_info(site: Path, name: str) -> Path | None:
    """The ``*.dist-info`` folder of project ``name`` in ``site``."""
    wanted = canonical_name(name)
    try:
        children = sorted(site.iterdir())
    except OSError:
        return None
    for child in children:
        if child.suffix == ".dist-info" and canonical_name(child.name.split("-")[0]) == wanted:
            return child
    return None


def installed_version(site: Path, name: str) -> str | None:
    """The version of ``name`` installed in ``site`` (from its METADATA), or None."""
    info = dist_info(site, name)
    if info is None:
        return None
    try:
        headers = email.parser.Parser().parsestr((info / "METADATA").read_text(encoding="utf-8"), headersonly=True)
    except OSError:
        return None
    return headers.get("Version")


def _pip(args: list[str]) -> None:
    command = [sys.executable, "-m", "pip", *args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
    except OSError as exc:
        raise InstallError(f"cannot run pip: {exc.strerror or exc}") from None
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("ERROR")] or lines
        reason = errors[-1] if errors else f"exit code {done.returncode}"
        if "No module named pip" in reason:
            reason = f"pip is not available for {sys.executable}"
        raise InstallError(f"pip install failed: {reason}")


DEPS_DIR = ".pi-deps"  # a git package's Python dependencies, inside its clone (kept by git clean)


def _pip_install(specs: list[str], site: Path) -> None:
    _pip(
        [
            "install",
            "--quiet",
            "--no-input",
            "--disable-pip-version-check",
            "--no-warn-script-location",
            "--upgrade",
            "--target",
            str(site),
            *specs,
        ]
    )


def declared_dependencies(root: Path) -> list[str]:
    """``[project].dependencies`` of ``root/pyproject.toml`` ([] when there is none)."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return []
    import tomllib

    try:
        project = tomllib.loads(path.read_text(encoding="utf-8")).get("project", {})
    except (OSError, ValueError) as exc:
        raise InstallError(f"{path}: {exc}") from None
    deps = project.get("dependencies", []) if isinstance(project, dict) else []
    if not (isinstance(deps, list) and all(isinstance(d, str) for d in deps)):
        raise InstallError(f"{path}: project.dependencies must be a list of requirements")
    return deps


def install_dependencies(root: Path) -> None:
    """Install a git package's declared dependencies into ``root/.pi-deps`` (pi runs ``npm
    install`` in a git clone); skipped when the list is unchanged since the last install."""
    deps = declared_dependencies(root)
    site = root / DEPS_DIR
    stamp = site / ".requirements.json"
    if not deps:
        shutil.rmtree(site, ignore_errors=True)
        return
    try:
        if json.loads(stamp.read_text(encoding="utf-8")) == deps:
            return
    except (OSError, ValueError):
        pass
    staged = root / f"{DEPS_DIR}.new"
    shutil.rmtree(staged, ignore_errors=True)
    try:
        _pip_install(deps, staged)
        (staged / ".requirements.json").write_text(json.dumps(deps), encoding="utf-8")
        swap_in(staged, site)
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def install(source: PackageSource, target: Path) -> tuple[str | None, str | None]:
    """(Re)install ``source`` into ``target``; returns the version before and after."""
    before = installed_version(target, source.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = target.with_name(f".{target.name}.new")
    shutil.rmtree(staged, ignore_errors=True)
    try:
        _pip_install([source.location], staged)
        if dist_info(staged, source.name) is None:
            found = [p.name.split("-")[0] for p in staged.glob("*.dist-info")]
            raise InstallError(f"pip installed {', '.join(found) or 'nothing'}, not {source.name}")
        swap_in(staged, target)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    return before, installed_version(target, source.name)
