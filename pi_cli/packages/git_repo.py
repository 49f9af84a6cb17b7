"""git sources: clone into a private folder, check out the ref, reconcile on update.

git runs non-interactively (``GIT_TERMINAL_PROMPT=0``, ssh in batch mode): a source that needs a
password fails with git's message instead of waiting on a prompt nobody sees. A clone goes to a
staging folder first and is moved in only when the clone and checkout succeeded. A clone whose
``pyproject.toml`` declares ``[project].dependencies`` gets them pip-installed into its own
``.pi-deps/`` folder (pi runs ``npm install`` in a git package), which start-up puts on ``sys.path``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from pi_cli.packages.pip_target import DEPS_DIR, install_dependencies
from pi_cli.packages.sources import PackageSource
from pi_cli.packages.store import InstallError, swap_in


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def git(args: list[str], cwd: Path | None = None) -> str:
    """Run ``git args``; its stdout, or :class:`InstallError` with git's last error line."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=_env(), capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False
        )
    except FileNotFoundError:
        raise InstallError("git is not installed (needed for git: sources)") from None
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        reason = lines[-1] if lines else f"exit code {done.returncode}"
        raise InstallError(f"git {args[0]} failed: {reason}")
    return done.stdout


def head(target: Path) -> str | None:
    """The commit checked out in ``target``, or None."""
    try:
        return git(["rev-parse", "HEAD"], target).strip() or None
    except InstallError:
        return None


def clone(source: PackageSource, target: Path) -> None:
    """A fresh clone of ``source`` at ``target`` (which must not exist), at its ref if any."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = target.with_name(f".{target.name}.new")
    shutil.rmtree(staged, ignore_errors=True)
    try:
        git(["clone", "--quiet", source.location, str(staged)])
        if source.ref:
            git(["checkout", "--quiet", source.ref], staged)
        swap_in(staged, target)
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def reconcile(source: PackageSource, target: Path) -> None:
    """Bring an existing clone to the source's ref, or to the latest commit of its branch."""
    if source.ref:
        if head(target) == source.ref:  # a full commit hash already checked out: nothing to fetch
            return
        git(["fetch", "--quiet", "origin", source.ref], target)
        revision = "FETCH_HEAD"
    else:
        git(["fetch", "--quiet", "origin"], target)
        try:
            revision = git(["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"], target).strip()
        except InstallError:  # detached (was pinned before): follow the remote's default branch
            git(["remote", "set-head", "origin", "--auto"], target)
            revision = "origin/HEAD"
    git(["reset", "--quiet", "--hard", revision], target)
    git(["clean", "--quiet", "-fdx", "-e", DEPS_DIR], target)


def install_or_update(source: PackageSource, target: Path) -> tuple[str | None, str | None]:
    """Clone when missing, else reconcile; returns the commit before and after."""
    before = None
    if not (target / ".git").exists():
        if target.exists():
            raise InstallError(f"{target} exists and is not a git clone; remove it first")
        clone(source, target)
    else:
        before = head(target)
        reconcile(source, target)
    install_dependencies(target)
    return before, head(target)
