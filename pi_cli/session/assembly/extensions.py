"""Loading a session's Python extensions from every place (pi_cli.extensions, pi_cli.packages).

User and trusted-project extension folders, settings ``extensions``, ``-e`` entries (files,
folders, ``pip:``/``git:`` packages for this run only), installed packages and entry points.
Nothing is imported when no extension exists (a few stats). The user's and ``-e`` extensions may
load before project trust is decided (they hear ``project_trust``); a later pass adds the rest to
the same runner.
"""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.config import paths
from pi_cli.errors import UsageError

if TYPE_CHECKING:
    from pi_cli.config.settings import Settings
    from pi_cli.extensions.runner import ExtensionRunner

Loaded = tuple["ExtensionRunner", list[str]]  # the runner and its load errors (one line each)


def load_extensions(
    cwd: Path,
    entries: list[str],
    flags: dict[str, str | bool],
    settings: Settings,
    *,
    discover: bool = True,
    pre: Loaded | None = None,
    trusted: bool | None = None,
) -> Loaded | None:
    """Extensions from every place (``entries``: the ``-e`` list; ``discover``: not
    ``--no-extensions``), as (runner, error lines); None and nothing imported when none exists.
    ``pre``: what an earlier pass loaded (before trust); this pass adds the rest to it.
    ``trusted=False`` is that earlier pass. The final pass refuses ``flags`` no extension declares."""
    from pi_cli.packages.probe import declared_packages
    from pi_cli.permissions.trust import is_project_trusted

    agent_dir = paths.agent_dir()
    final = trusted is None
    trusted = discover and (is_project_trusted(cwd) if trusted is None else trusted)
    settings_entries = list(settings.extensions) if discover else []
    packages = declared_packages(agent_dir, cwd, trusted) if discover else None
    has_packaged = packages is not None and packages.has_extensions()
    if pre is None and not (
        entries or settings_entries or has_packaged or (discover and _has_extension_sources(agent_dir, cwd, trusted))
    ):
        return None
    from pi_cli.extensions.loader import load_all
    from pi_cli.extensions.runner import ExtensionRunner

    cli_entries, temporary = (list(entries) if pre is None else []), None
    if cli_entries:  # -e pip:/git:/package folder: a package for this run only (pi_cli.packages)
        from pi_cli.packages.temporary import temporary_packages

        temporary, cli_entries = temporary_packages(cli_entries, agent_dir, cwd)
    runner, errors = pre if pre is not None else (ExtensionRunner(str(cwd), dict(flags)), [])
    errors += load_all(
        runner,
        agent_dir=agent_dir,
        cwd=cwd,
        trusted=trusted,
        settings_entries=settings_entries,
        cli_entries=cli_entries,
        entry_points=discover,
    )
    package_sets = [found for found in (packages if has_packaged else None, temporary) if found is not None]
    if package_sets:
        from pi_cli.packages.extensions import load_package_extensions

        errors.extend(temporary.warnings if temporary is not None else [])
        for found in package_sets:
            errors.extend(load_package_extensions(runner, found))
    if final:  # project extensions may still register flags until the last pass
        runner.trust_check = functools.partial(is_project_trusted, cwd)  # /trust may change it later
        runner.reloader = functools.partial(_load_again, runner, cwd, settings, discover)
        unknown = [name for name in flags if name not in runner.flags]
        if unknown:
            raise UsageError(f"Error: Unknown option: --{unknown[0]}", hint="(see pi --help)")
    return runner, errors


def _load_again(
    runner: ExtensionRunner, cwd: Path, settings: Settings, discover: bool, previous: list[tuple[str, Any]]
) -> list[str]:
    """``/reload``: load the extensions again into ``runner`` (just reset): the folders and settings
    entries start-up read (files imported afresh, new ones found, the project's trust as it is
    now), the other files loaded before (``-e``) imported again, and what came from installed
    packages or entry points (``previous`` registrations without a file) registered again."""
    from pi_cli.extensions.loader import load_all, load_path, register_on

    trusted = discover and runner.trust_check()
    errors = load_all(runner, agent_dir=paths.agent_dir(), cwd=cwd, trusted=trusted,
                      settings_entries=list(settings.extensions) if discover else [], entry_points=False)  # fmt: skip
    for source, register in previous:
        path = Path(source)
        if path.is_absolute() and path.exists():
            error = load_path(runner, path)
        elif source not in runner.seen:
            runner.seen.add(source)
            runner.registrations.append((source, register))
            error = register_on(runner, register, source)
        else:
            error = None
        if error:
            errors.append(error)
    return errors


def _has_extension_sources(agent_dir: Path, cwd: Path, trusted: bool) -> bool:
    """Any extension folder entry, or an installed package with a ``pi_cli.extensions`` entry point."""
    folders = [agent_dir / "extensions", *([cwd / ".pi" / "extensions"] if trusted else [])]
    for folder in folders:
        with contextlib.suppress(OSError):
            if any(not name.startswith((".", "_")) for name in os.listdir(folder)):
                return True
    from pi_cli.config.entry_point_probe import has_entry_points

    return has_entry_points("pi_cli.extensions", agent_dir / "cache" / "entry-points.json")


def provider_problems(loaded: Loaded | None, registry: Any) -> list[str]:
    """Register the extensions' providers with ``registry`` (before the model is chosen, so
    ``--model`` sees them); returns the problem lines."""
    return [] if loaded is None else list(loaded[0].apply_providers(registry))
