"""Benchmark runner: ``python tools/bench.py <name>|all|list [--reference-pi PATH]``.

Benchmarks are modules ``tools/bench_<name>.py`` exposing::

    NAME: str                                   # the subcommand (usually <name>)
    BUDGET: str                                 # one line: what the budget is
    def run() -> list[tuple[str, str, str, bool]]  # rows: (figure, value, budget, ok)

``bench.py`` discovers them by file name, so adding a benchmark needs no edit here. ``all`` runs every
registered benchmark and prints one table; the exit status is 1 if any row failed or a benchmark
raised (its error becomes a failed row). Benchmarks print figures; they are not tests.
``--reference-pi PATH`` then runs pi 0.73.1's figures too and prints them next to ours with ratios
(see ``tools/bench_reference.py``).
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
Row = tuple[str, str, str, bool]


def discover() -> dict[str, ModuleType]:
    """Every ``tools/bench_*.py`` module, keyed by its ``NAME`` (file stem without ``bench_`` if absent)."""
    for folder in (str(ROOT), str(TOOLS)):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    found: dict[str, ModuleType] = {}
    for path in sorted(TOOLS.glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            continue
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # a broken benchmark must not hide the others
            print(f"bench: cannot load {path.name}: {exc}", file=sys.stderr)
            continue
        name = str(getattr(module, "NAME", path.stem.removeprefix("bench_")))
        if callable(getattr(module, "run", None)):
            found[name] = module
    return found


def run_one(name: str, module: ModuleType) -> list[Row]:
    try:
        result = module.run()
        rows = list(result) if isinstance(result, (list, tuple)) else None
        if rows is None or not all(isinstance(r, (list, tuple)) and len(r) == 4 for r in rows):
            # A module whose run() breaks the rows contract must not take the whole table down.
            shape = type(result).__name__
            return [(f"{name}: run() returned {shape}, not rows", "-", str(getattr(module, "BUDGET", "-")), False)]
        return [(str(f), str(v), str(b), bool(ok)) for f, v, b, ok in rows]
    except Exception as exc:
        traceback.print_exc()
        lines = [line.strip() for line in f"{type(exc).__name__}: {exc}".splitlines() if line.strip()]
        summary = lines[-1] if lines else type(exc).__name__  # a traceback's last line says the most
        return [(f"{name}: crashed", summary[:100], str(getattr(module, "BUDGET", "-")), False)]


def print_table(rows: list[Row]) -> None:
    header = ("figure", "value", "budget", "result")
    table = [header] + [(f, v, str(b), "pass" if ok else "FAIL") for f, v, b, ok in rows]
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    for position, row in enumerate(table):
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if position == 0:
            print("  ".join("-" * w for w in widths))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    reference: str | None = None  # --reference-pi PATH: also run pi 0.73.1's figures (tools/bench_reference.py)
    if "--reference-pi" in args:
        at = args.index("--reference-pi")
        if at + 1 >= len(args):
            print("bench: --reference-pi needs a path", file=sys.stderr)
            return 2
        reference = args[at + 1]
        args = args[:at] + args[at + 2 :]
    registry = discover()
    if not args or args[0] in ("-h", "--help", "list"):
        print(__doc__.strip().splitlines()[0])
        for name, module in registry.items():
            print(f"  {name:<14} {getattr(module, 'BUDGET', '')}")
        return 0
    names = list(registry) if args[0] == "all" else args
    unknown = [n for n in names if n not in registry]
    if unknown:
        print(f"bench: unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(registry)}", file=sys.stderr)
        return 2
    rows: list[Row] = []
    for name in names:
        print(f"running {name} …", file=sys.stderr, flush=True)
        rows.extend(run_one(name, registry[name]))
    print_table(rows)
    if reference is not None:
        import bench_reference

        print(f"running the reference pi at {reference} …", file=sys.stderr, flush=True)
        print()
        bench_reference.print_reference_table(bench_reference.reference_rows(reference))
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
