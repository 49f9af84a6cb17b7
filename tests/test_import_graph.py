"""The import graph of pi_cli, read from the source with ``ast`` (no module is imported).

* No import cycle between modules: imports at module level and under ``if TYPE_CHECKING:`` (with
  relative imports resolved) must form a DAG. Imports inside functions are checked too, with the
  few known exceptions below.
* Layers point one way: cli → modes → session → {compaction, resources, models, store, extensions,
  mcp, permissions, checkpoints, oauth, packages} → tools → sandbox → agent → ai. ``config``, ``errors`` and the root
  package (``__version__``) are usable by all and use nothing above them. Parts of one layer may
  import each other, but not in a circle.
* No package holds more than MAX_MODULES modules directly, and every package says in its
  ``__init__`` docstring what it owns.

A new top-level package fails :func:`test_every_module_has_a_layer` until it is given a layer here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "pi_cli"

# Top to bottom: a module may import its own layer's parts (without a circle) and any lower layer.
LAYERS: list[frozenset[str]] = [
    frozenset({"__main__", "cli", "cli_args", "cli_input"}),
    frozenset({"modes"}),
    frozenset({"session"}),
    # "packages" (pi install/list and what installed packages hold) sits beside extensions and
    # resources: it feeds both, and is its own package so resolving packages never imports the
    # extension runtime.
    frozenset(
        {
            "compaction",
            "resources",
            "models",
            "store",
            "extensions",
            "mcp",
            "permissions",
            "checkpoints",
            "oauth",
            "packages",
        }
    ),
    frozenset({"tools"}),
    # The sandbox sits under tools: the bash runner and file tools take its seams at construction.
    frozenset({"sandbox"}),
    frozenset({"agent"}),
    frozenset({"ai"}),
]
# Usable by every layer; they import nothing of pi_cli but each other.
SHARED = frozenset({"config", "errors", ""})  # "" is the root package (``pi_cli.__version__``)

# Cycles that only exist through imports inside functions, not yet broken. Each entry: the
# modules of the cycle and why it is still here. The test fails when one disappears, so the list
# shrinks as they are fixed.
KNOWN_FUNCTION_LEVEL_CYCLES: dict[frozenset[str], str] = {}

MAX_MODULES = 15


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _top_level_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports that run when the module is imported (or that type checkers follow): module body,
    ``if``/``try``/``with`` blocks at module level, ``if TYPE_CHECKING:``; not function bodies."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            yield from _top_level_imports(node.body)
            if not _is_type_checking(node.test):
                yield from _top_level_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _top_level_imports(block)
        elif isinstance(node, ast.With):
            yield from _top_level_imports(node.body)


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The pi_cli modules an import statement loads (relative imports resolved)."""
    modules = _modules()
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if modules[module].name != "__init__.py":
                package.pop()
            package = package[: len(package) - (node.level - 1)]
            base = ".".join([*package, base] if base else package)
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module and (name == "pi_cli" or name.startswith("pi_cli.")):
            yield name


@cache
def _graph(everywhere: bool) -> dict[str, frozenset[str]]:
    """module → modules it imports; ``everywhere`` adds imports inside functions."""
    graph: dict[str, frozenset[str]] = {}
    for module, path in _modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        nodes = (
            [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
            if everywhere
            else list(_top_level_imports(tree.body))
        )
        graph[module] = frozenset(t for n in nodes for t in _targets(module, n))
    return graph


def _cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _path_through(graph: dict[str, frozenset[str]], cycle: list[str]) -> str:
    """One concrete circle inside a strongly connected component, for the failure message."""
    members = set(cycle)
    start = cycle[0]
    seen = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    return " → ".join([*seen[node], start])
                if child not in seen:
                    seen[child] = [*seen[node], child]
                    nxt.append(child)
        frontier = nxt
    return " ⇄ ".join(cycle)


def _part(module: str) -> str:
    """The top-level part of pi_cli a module belongs to (``pi_cli.store.manager`` → ``store``)."""
    return module.split(".")[1] if "." in module else ""


def _layer(module: str) -> int | None:
    part = _part(module)
    if part in SHARED:
        return None
    for depth, parts in enumerate(LAYERS):
        if part in parts:
            return depth
    raise LookupError(part)


def test_graph_sees_the_package() -> None:
    graph = _graph(False)
    assert "pi_cli.session.agent_session" in graph and "pi_cli.cli" in graph
    assert "pi_cli.ai.types" in graph["pi_cli.agent.agent"]  # the reader follows real imports


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"a"})}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _path_through(graph, ["a", "b", "c"]) == "a → b → c → a"


def test_no_import_cycles_at_module_level() -> None:
    graph = _graph(False)
    cycles = _cycles(graph)
    assert not cycles, "import cycles (module level or TYPE_CHECKING):\n" + "\n".join(
        _path_through(graph, c) for c in cycles
    )


def test_no_import_cycles_through_function_level_imports() -> None:
    graph = _graph(True)
    cycles = {frozenset(c): c for c in _cycles(graph)}
    new = [_path_through(graph, c) for key, c in cycles.items() if key not in KNOWN_FUNCTION_LEVEL_CYCLES]
    assert not new, "import cycles through imports inside functions:\n" + "\n".join(new)
    gone = [sorted(k) for k in KNOWN_FUNCTION_LEVEL_CYCLES if k not in cycles]
    assert not gone, f"cycles fixed: remove them from KNOWN_FUNCTION_LEVEL_CYCLES: {gone}"


def test_every_module_has_a_layer() -> None:
    layered = SHARED.union(*LAYERS)
    unknown = sorted({_part(m) for m in _modules() if _part(m) not in layered})
    assert not unknown, f"parts of pi_cli with no layer in tests/test_import_graph.py: {unknown}"


def test_imports_point_down_the_layers() -> None:
    wrong = []
    for module, targets in _graph(True).items():
        for target in targets:
            if _part(module) in SHARED:
                if _part(target) not in SHARED:
                    wrong.append(f"{module} → {target} (config/errors must not import other layers)")
                continue
            source_layer, target_layer = _layer(module), _layer(target)
            if source_layer is not None and target_layer is not None and target_layer < source_layer:
                wrong.append(f"{module} → {target}")
    assert not wrong, "imports pointing up the layers:\n" + "\n".join(sorted(wrong))


def test_parts_of_a_layer_do_not_import_each_other_in_a_circle() -> None:
    parts: dict[str, set[str]] = {}
    for module, targets in _graph(True).items():
        for target in targets:
            if _part(module) != _part(target):
                parts.setdefault(_part(module), set()).add(_part(target))
    graph = {p: frozenset(parts.get(p, ())) for p in {*parts, *(t for ts in parts.values() for t in ts)}}
    cycles = _cycles(graph)
    assert not cycles, "parts importing each other in a circle: " + "; ".join(_path_through(graph, c) for c in cycles)


def _packages() -> list[Path]:
    return sorted(p.parent for p in ROOT.rglob("__init__.py"))


@pytest.mark.parametrize("package", _packages(), ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_package_is_small_and_says_what_it_owns(package: Path) -> None:
    modules = [p for p in package.glob("*.py") if p.name != "__init__.py"]
    assert len(modules) <= MAX_MODULES, f"{package} holds {len(modules)} modules; split it into subpackages"
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
    assert doc, f"{package}/__init__.py needs a docstring saying what the package owns"
