"""Loading the extensions of resolved packages into an :class:`ExtensionRunner`.

Package folders' extension files go through the ordinary loader (one error line per failure, the
same file loaded once). A pip package's private folder is appended to ``sys.path`` (after
everything else, so pi_cli's own dependencies are never shadowed) and its ``pi_cli.extensions``
entry points are loaded from that folder only. This is the one module of :mod:`pi_cli.packages`
that imports the extension runtime.
"""

from __future__ import annotations

import sys

from pi_cli.extensions.loader import load_entry_points, load_path
from pi_cli.extensions.runner import ExtensionRunner
from pi_cli.packages.pip_target import DEPS_DIR
from pi_cli.packages.startup import PackageSet


def load_package_extensions(runner: ExtensionRunner, packages: PackageSet) -> list[str]:
    """Register every package extension with ``runner``; returns the error lines."""
    errors: list[str] = []
    for package in packages.packages:
        deps = package.root / DEPS_DIR
        if package.contents.extensions and deps.is_dir() and str(deps) not in sys.path:
            sys.path.append(str(deps))  # a git package's own dependencies
        for path in package.contents.extensions:
            # pi names a package's resources by the package: origin "package", its declared source.
            info = {
                "path": str(path.resolve()),
                "source": package.declaration.source,
                "scope": str(package.declaration.scope),
                "origin": "package",
                "baseDir": str(package.root),
            }
            runner.source_info.setdefault(str(path.resolve()), info)
            error = load_path(runner, path.resolve())
            if error:
                errors.append(error)
        if package.entry_points:
            site = str(package.root)
            if site not in sys.path:
                sys.path.append(site)
            errors.extend(load_entry_points(runner, [site]))
    return errors
