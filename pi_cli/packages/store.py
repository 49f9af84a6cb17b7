"""Where installed packages live: private folders under the agent dir, never in the project.

* user scope: ``<agentDir>/git/<host>/<path>`` (pi's layout) and ``<agentDir>/pip/<name>/``;
* project scope (``-l``): the same below ``<agentDir>/projects/<folder>-<hash>/``, keyed by the
  project's canonical path, so two projects may pin different refs and the project tree stays
  untouched (pi 1.6.0 clones into ``<cwd>/.pi/git``; pi_cli keeps it out of the work tree);
* local sources are not installed: their path is used as it is.

A pip folder is a ``pip install --target`` site: importable once put on ``sys.path``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from pathlib import Path

from pi_cli.packages.declarations import Scope
from pi_cli.packages.sources import PackageSource, canonical_name


class InstallError(RuntimeError):
    """An install, update or removal that failed; the message is one line for the user."""


def scope_root(scope: Scope, agent_dir: Path, cwd: Path) -> Path:
    """The folder holding ``scope``'s git and pip installs."""
    if scope == "user":
        return agent_dir
    real = os.path.realpath(cwd)
    digest = hashlib.sha256(real.encode()).hexdigest()[:12]
    return agent_dir / "projects" / f"{os.path.basename(real) or 'root'}-{digest}"


def install_path(source: PackageSource, scope: Scope, agent_dir: Path, cwd: Path, base: Path) -> Path:
    """Where ``source`` is (or would be) installed; a local source's own resolved path."""
    if source.kind == "local":
        return source.local_path(base)
    root = scope_root(scope, agent_dir, cwd)
    if source.kind == "git":
        return root / "git" / Path(*source.name.split("/"))
    return root / "pip" / canonical_name(source.name)


def remove_tree(path: Path, stop: Path) -> None:
    """Delete ``path`` and then each parent left empty, up to (not including) ``stop``."""
    shutil.rmtree(path, ignore_errors=True)
    parent = path.parent
    while parent != stop and stop in parent.parents:
        with contextlib.suppress(OSError):
            parent.rmdir()  # fails (and stops the walk) when not empty
        if parent.exists():
            break
        parent = parent.parent


def swap_in(staged: Path, target: Path) -> None:
    """Replace ``target`` by ``staged`` (same parent) so a reader never sees a half-written copy."""
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(staged, target)
    shutil.rmtree(old, ignore_errors=True)
