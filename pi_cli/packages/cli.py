"""``pi install|remove|uninstall|list|update``: pi 1.6.0's package commands, wording and exit codes.

    pi install <source> [-l] [--approve|--no-approve]
    pi remove <source> [-l] [--approve|--no-approve]      (alias: pi uninstall)
    pi list [--approve|--no-approve]
    pi update [source] [--extensions|--all] [--extension <source>] [--approve|--no-approve]

Progress (``Installing X...``) and results go to stdout, failures to stderr as one ``Error: …``
line; exit 1 on any failure, else 0. Differences from pi: pi_cli cannot update itself, so
``pi update`` without a target updates the packages (pi's ``--extensions``), and ``self``/``pi``/
``--self`` say how to upgrade pi_cli instead. ``PI_OFFLINE`` skips updates, as in pi.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from pi_cli.config import paths
from pi_cli.packages import manager
from pi_cli.packages.declarations import DeclarationError, Scope
from pi_cli.packages.sources import SourceError
from pi_cli.packages.store import InstallError

COMMANDS = ("install", "remove", "uninstall", "list", "update")
USAGE = {
    "install": "pi install <source> [-l] [--approve|--no-approve]",
    "remove": "pi remove <source> [-l] [--approve|--no-approve]",
    "list": "pi list [--approve|--no-approve]",
    "update": "pi update [source] [--extensions|--all] [--extension <source>] [--approve|--no-approve]",
}
HELP = {
    "install": "Install a package and add it to settings.\n\nOptions:\n"
    "  -l, --local       Install project-locally (.pi/settings.json)\n",
    "remove": "Remove a package and its source from settings.\nAlias: pi uninstall <source> [-l]\n\nOptions:\n"
    "  -l, --local       Remove from project settings (.pi/settings.json)\n",
    "list": "List installed packages from user and project settings.\n\nOptions:\n",
    "update": "Update installed packages (pi_cli itself is upgraded with pip).\n\nOptions:\n"
    "  --extensions, --all     Update all installed packages (the default)\n"
    "  --extension <source>    Update one package only\n",
}
TRUST_OPTIONS = (
    "  -a, --approve     Trust project-local files for this command\n"
    "  -na, --no-approve Ignore project-local files for this command\n"
)
EXAMPLES = (
    "\nExamples:\n  pi install pip:pi-tools==1.0\n  pi install git:github.com/user/repo@v1\n"
    "  pi install https://github.com/user/repo\n  pi install ./local/path\n"
)


@dataclass(slots=True)
class Request:
    """A parsed package command, or the one-line reason it is malformed (``problem``)."""

    command: str
    source: str | None = None
    local: bool = False
    approve: bool | None = None
    help: bool = False
    self_update: bool = False
    problem: list[str] = field(default_factory=list)


def parse(argv: list[str]) -> Request:
    """Parse ``argv`` (starting with the command word), the way pi's parsePackageCommand does."""
    command = "remove" if argv[0] == "uninstall" else argv[0]
    request = Request(command)
    rest = iter(argv[1:])
    for arg in rest:
        if arg in ("-h", "--help"):
            request.help = True
        elif arg in ("-l", "--local") and command in ("install", "remove"):
            request.local = True
        elif arg in ("-a", "--approve"):
            request.approve = True
        elif arg in ("-na", "--no-approve"):
            request.approve = False
        elif command == "update" and arg in ("--extensions", "--all"):
            continue
        elif command == "update" and arg == "--self":
            request.self_update = True
        elif command == "update" and arg == "--extension":
            value = next(rest, None)
            if value is None:
                request.problem = ["Missing value for --extension.", f"Usage: {USAGE[command]}"]
            request.source = value
        elif arg.startswith("-") and len(arg) > 1:
            request.problem = request.problem or [
                f'Unknown option {arg} for "{command}".',
                f'Use "pi --help" or "{USAGE[command]}".',
            ]
        elif command == "update" and arg in ("self", "pi") and request.source is None:
            request.self_update = True
        elif command == "list" or request.source is not None:
            request.problem = request.problem or [f"Unexpected argument {arg}.", f"Usage: {USAGE[command]}"]
        else:
            request.source = arg
    if not request.problem and command in ("install", "remove") and not request.source and not request.help:
        request.problem = [f"Missing {command} source.", f"Usage: {USAGE[command]}"]
    return request


def _out(line: str = "") -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _err(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _print_help(command: str) -> None:
    text = HELP[command] + TRUST_OPTIONS + (EXAMPLES if command == "install" else "")
    _out(f"Usage:\n  {USAGE[command]}\n\n{text}")


def _trusted(cwd: Path, agent_dir: Path, approve: bool | None) -> bool:
    from pi_cli.permissions import trust

    trust.set_trust_override(approve)
    return trust.is_project_trusted(cwd, agent_dir=agent_dir)


def _list(agent_dir: Path, cwd: Path, trusted: bool) -> int:
    problems: list[str] = []
    rows = manager.listed(agent_dir, cwd, trusted, problems)
    for line in problems:
        _err(f"Warning: {line}")
    if not rows:
        _out("No packages installed.")
        return 0
    for scope, title in (("user", "User packages:"), ("project", "Project packages:")):
        mine = [row for row in rows if row.declaration.scope == scope]
        if not mine:
            continue
        if scope == "project" and len(mine) != len(rows):
            _out()
        _out(title)
        for row in mine:
            filtered = " (filtered)" if row.declaration.filters is not None else ""
            _out(f"  {row.declaration.source}{filtered}")
            if row.installed is not None:
                _out(f"    {row.installed}")
    return 0


def _update(source: str | None, agent_dir: Path, cwd: Path, trusted: bool) -> int:
    if paths.offline():
        _out("Skipped package updates (offline mode)")
        return 0
    problems: list[str] = []
    changed = manager.update(source, agent_dir, cwd, trusted, problems, _out)
    for line in problems:
        _err(f"Warning: {line}")
    if not changed:
        _out(f"{source} is already up to date" if source else "Packages are already up to date")
        return 0
    _out(f"Updated {len(changed)} package{'' if len(changed) == 1 else 's'}:")
    for line in changed:
        _out(f"  {line}")
    return 0


def run_package_command(argv: list[str], cwd: Path, agent_dir: Path) -> int:
    """Run one package command (``argv[0]`` in :data:`COMMANDS`); returns the exit code."""
    request = parse(argv)
    if request.help:
        _print_help(request.command)
        return 0
    if request.problem:
        for line in request.problem:
            _err(line)
        return 1
    if request.self_update:
        _err("pi_cli does not update itself: upgrade it with pip (pip install -U pi_cli) or your installer.")
        return 1
    trusted = _trusted(cwd, agent_dir, request.approve)
    if request.local and not trusted:
        _err("Project is not trusted. Use --approve to modify local package config.")
        return 1
    scope: Scope = "project" if request.local else "user"
    try:
        if request.command == "list":
            return _list(agent_dir, cwd, trusted)
        if request.command == "update":
            return _update(request.source, agent_dir, cwd, trusted)
        assert request.source is not None
        if request.command == "install":
            _out(f"Installing {request.source}...")
            manager.install(request.source, scope, agent_dir, cwd)
            _out(f"Installed {request.source}")
            return 0
        _out(f"Removing {request.source}...")
        if manager.remove(request.source, scope, agent_dir, cwd):
            _out(f"Removed {request.source}")
            return 0
        _err(f"No matching package found for {request.source}")
        return 1
    except (InstallError, DeclarationError, SourceError) as exc:
        _err(f"Error: {exc}")
        return 1
