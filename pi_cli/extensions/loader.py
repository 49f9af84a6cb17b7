"""Finding and importing extensions.

Places, in load order: ``<agent dir>/extensions/``, ``<cwd>/.pi/extensions/`` (only in a trusted
project), settings ``"extensions": [...]``, installed packages (entry-point group
``pi_cli.extensions``), then each ``-e/--extension PATH`` (``example:NAME`` names a module of
:mod:`pi_cli.extensions.examples`). In a folder, every ``name.py`` and every ``name/__init__.py``
is an extension. The same file (or entry point) is tried once per runner, so a second pass
(after project trust is decided) adds only what the first did not try.

A file that fails to import, lacks ``register`` or whose ``register`` raises is reported in one
line naming the file and line; the others still load. An async ``register`` is awaited by
:meth:`ExtensionRunner.start` on the session's loop, before ``session_start``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Collection, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.runner import ExtensionRunner

ENTRY_POINT_GROUP = "pi_cli.extensions"
EXAMPLES = Path(__file__).parent / "examples"


def folder_entries(folder: Path) -> list[Path]:
    """The extensions in a folder: ``*.py`` files and packages, sorted by name."""
    try:
        children = sorted(folder.iterdir())
    except OSError:
        return []
    found: list[Path] = []
    for child in children:
        if child.name.startswith((".", "_")):
            continue
        if (child.is_file() and child.suffix == ".py") or (child.is_dir() and (child / "__init__.py").is_file()):
            found.append(child)
    return found


def example_paths() -> dict[str, Path]:
    """The shipped examples by name: modules of ``examples/`` and of its topic subpackages (kept
    small, as every package is), all named without their folder."""
    modules = [*EXAMPLES.glob("*.py"), *EXAMPLES.glob("*/*.py")]
    return {p.stem: p for p in sorted(modules) if not p.name.startswith("_")}


def resolve_spec(spec: str, base: Path) -> Path | str:
    """A path for ``-e``/settings entries; ``example:NAME`` → the shipped example; an error
    string when nothing is there."""
    if spec.startswith("example:"):
        name = spec.split(":", 1)[1]
        examples = example_paths()
        if name not in examples:
            return f"unknown example {name!r} (examples: {', '.join(sorted(examples))})"
        return examples[name]
    path = Path(spec).expanduser()
    if not path.is_absolute():
        path = base / path
    if not path.exists():
        return f"{spec}: no such file or folder"
    return path


def _location(exc: BaseException, path: Path) -> str:
    """``file:line`` where ``exc`` arose, preferring the deepest frame inside the extension."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno or 0}"
    frames = traceback.extract_tb(exc.__traceback__)
    root = str(path if path.is_dir() else path.parent)
    inside = [f for f in frames if f.filename.startswith(root)]
    chosen = inside or list(frames)
    return f"{chosen[-1].filename}:{chosen[-1].lineno}" if chosen else str(path)


def _import(path: Path) -> ModuleType:
    target = path / "__init__.py" if path.is_dir() else path
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:8]
    name = f"pi_cli_ext_{path.stem.replace('-', '_')}_{digest}"
    spec = importlib.util.spec_from_file_location(
        name, target, submodule_search_locations=[str(path)] if path.is_dir() else None
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {target}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _register(runner: ExtensionRunner, register: Any, source: str, path: Path | None) -> str | None:
    """Call ``register(pi)``; an async one is kept for ``runner.start``. Returns an error line."""
    runner.registrations.append((source, register))
    return register_on(runner, register, source, path)


def register_on(runner: ExtensionRunner, register: Any, source: str, path: Path | None = None) -> str | None:
    """Call one extension's ``register(pi)`` with an API over ``runner`` (also how a child
    session's runner gets its parent's extensions). Returns an error line or None."""
    api = ExtensionAPI(runner, source)
    try:
        result = register(api)
    except Exception as exc:
        where = _location(exc, path) if path is not None else source
        return f"extension {source} failed to register at {where}: {type(exc).__name__}: {exc}"
    if inspect.isawaitable(result):
        runner.deferred.append((source, result))
    runner.sources.append(source)
    return None


def child_runner(parent: ExtensionRunner, cwd: str, allowed_tools: Collection[str] | None) -> ExtensionRunner:
    """A runner for a subagent's child session holding the same extensions as ``parent``: each
    ``register`` is called again (the modules are not imported again) on a runner of its own, so
    handlers see the child as their session. It shares the parent's dialogs, error sink, flag
    values, sandbox, model registry and ``ctx.mode``; ``allowed_tools`` limits the extension tools
    it adds. Registration errors are reported through the error sink. A child has no
    ``ctx.shutdown()``: ending the whole program is its parent's decision."""
    child = ExtensionRunner(cwd, parent.flag_values, parent.sandbox, allowed_tools)
    child.ui = parent.ui
    child.mode = parent.mode
    child.on_error = parent.on_error
    child.model_registry = parent.model_registry
    for source, register in parent.registrations:
        error = register_on(child, register, source)
        if error is not None:
            child.report(source, "register", RuntimeError(error))
    return child


def load_path(runner: ExtensionRunner, path: Path) -> str | None:
    """Import one extension file or package and register it; returns an error line or None."""
    source = str(path)
    if source in runner.seen:
        return None
    runner.seen.add(source)
    try:
        module = _import(path)
    except Exception as exc:
        return f"extension {source} failed to load at {_location(exc, path)}: {type(exc).__name__}: {exc}"
    register = getattr(module, "register", None)
    if not callable(register):
        return f"extension {source}: no register(pi) function"
    return _register(runner, register, source, path)


def load_entry_points(runner: ExtensionRunner, sites: list[str] | None = None) -> list[str]:
    """Installed packages that declare an entry point in ``pi_cli.extensions``: those on
    ``sys.path``, or with ``sites`` only the distributions in those folders (a pip package's
    private install, which the caller has put on ``sys.path``)."""
    from importlib.metadata import EntryPoint, distributions, entry_points

    points: list[EntryPoint] = (
        list(entry_points(group=ENTRY_POINT_GROUP))
        if sites is None
        else [p for dist in distributions(path=sites) for p in dist.entry_points if p.group == ENTRY_POINT_GROUP]
    )
    errors: list[str] = []
    for point in points:
        source = f"{point.name} ({point.value})"
        if source in runner.seen:
            continue
        runner.seen.add(source)
        try:
            target = point.load()
        except Exception as exc:
            errors.append(f"extension {source} failed to load: {type(exc).__name__}: {exc}")
            continue
        register = getattr(target, "register", target)
        if not callable(register):
            errors.append(f"extension {source}: no register(pi) function")
            continue
        error = _register(runner, register, source, None)
        if error:
            errors.append(error)
    return errors


def load_all(
    runner: ExtensionRunner,
    *,
    agent_dir: Path,
    cwd: Path,
    trusted: bool,
    settings_entries: Iterable[str] = (),
    cli_entries: Iterable[str] = (),
    entry_points: bool = True,
) -> list[str]:
    """Load every extension from every place; returns the error lines (one per failure)."""
    errors: list[str] = []
    # Each path with pi's sourceInfo metadata: discovered folders are "local" of their scope, a
    # ``-e`` path is {source: "cli", scope: "temporary"} (pi's resource loader, no baseDir).
    paths: list[tuple[Path, dict[str, str]]] = []
    user = {"source": "local", "scope": "user", "origin": "top-level"}
    paths.extend((p, user) for p in folder_entries(agent_dir / "extensions"))
    if trusted:
        project = {"source": "local", "scope": "project", "origin": "top-level"}
        paths.extend((p, project) for p in folder_entries(cwd / ".pi" / "extensions"))
    cli = set(cli_entries)
    for spec in [*settings_entries, *cli_entries]:
        meta = {"source": "cli", "scope": "temporary", "origin": "top-level"} if spec in cli else user
        resolved = resolve_spec(spec, cwd)
        if isinstance(resolved, str):
            errors.append(f"extension {resolved}")
        elif resolved.is_dir() and not (resolved / "__init__.py").is_file():
            paths.extend((p, meta) for p in folder_entries(resolved))
        else:
            paths.append((resolved, meta))
    for path, meta in paths:
        runner.source_info.setdefault(str(path.resolve()), {"path": str(path.resolve()), **meta})
        error = load_path(runner, path.resolve())
        if error:
            errors.append(error)
    if entry_points:
        errors.extend(load_entry_points(runner))
    return errors


async def reload_runner(runner: ExtensionRunner) -> list[str]:
    """pi's ``/reload`` for extensions, in the same runner: ``session_shutdown`` (``reason:
    "reload"``), every registration forgotten (:meth:`ExtensionRunner.reset`), the extension files
    imported and registered again (``runner.reloader``: the same places as at start-up), their
    tools and providers applied, then ``session_start`` and ``resources_discover`` with ``reason:
    "reload"``. Returns the load error lines. Installed packages' modules are registered again
    from the copies already imported (a changed package needs a restart)."""
    from pi_cli.extensions.tool_set import all_tools, apply_tools
    from pi_cli.extensions.ui import DialogUI

    if runner.started:
        await runner.emit({"type": "session_shutdown", "reason": "reload"})
    host = runner.host
    outside = [] if host is None else [t for t in host.agent.state.tools if t.name not in all_tools(runner)]
    previous = list(runner.registrations)
    runner.reset()
    if isinstance(runner.ui, DialogUI):  # a terminal front end: what the extensions showed goes
        runner.ui.reset()
    errors = runner.reloader(previous) if runner.reloader is not None else _register_again(runner, previous)
    if runner.model_registry is not None:
        errors.extend(runner.apply_providers(runner.model_registry))
    if host is not None:  # the built-ins (their active set restored) and MCP's, then the new tools
        host.agent.state.tools = [*runner.base_tools, *outside]
        apply_tools(runner)
    if isinstance(runner.ui, DialogUI):
        runner.ui.reloaded()
    await runner.start("reload")
    return errors


def _register_again(runner: ExtensionRunner, previous: list[tuple[str, Any]]) -> list[str]:
    """A runner the assembly did not load (an embedder's, a test's): its ``register`` functions
    called again, nothing imported."""
    errors = []
    for source, register in previous:
        runner.registrations.append((source, register))
        error = register_on(runner, register, source)
        if error:
            errors.append(error)
    return errors
