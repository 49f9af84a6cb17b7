"""Package figures: what start-up pays for pi packages.

    python tools/bench_packages.py      (or: python tools/bench.py packages)

* the probe start-up runs twice (session factory for skills/prompts, CLI for extensions) when no
  package is declared: two small settings.json reads; median of 500 calls, budget <= 1 ms;
* resolving 10 declared local packages (conventional folders, one with a ``[tool.pi]`` manifest)
  into extension/skill/prompt paths, median of 100 calls, budget <= 10 ms;
* ``import pi_cli.packages.probe`` in a fresh interpreter must not import the extension runtime.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NAME = "packages"
BUDGET = "no packages: probe <= 1 ms; 10 local packages resolved <= 10 ms"


def _median_ms(call: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()  # type: ignore[operator]
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _make_packages(base: Path, count: int) -> list[str]:
    sources = []
    for index in range(count):
        root = base / f"pkg{index}"
        (root / "extensions").mkdir(parents=True)
        (root / "extensions" / "ext.py").write_text("def register(pi):\n    pass\n")
        (root / "skills" / "s").mkdir(parents=True)
        (root / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n")
        (root / "prompts").mkdir()
        (root / "prompts" / "p.md").write_text("p\n")
        if index == 0:
            (root / "pyproject.toml").write_text('[tool.pi]\nextensions = ["extensions/*.py"]\n')
        sources.append(str(root))
    return sources


def run() -> list[tuple[str, str, str, bool]]:
    from pi_cli.packages.probe import declared_packages

    with tempfile.TemporaryDirectory() as tmp:
        agent, cwd = Path(tmp) / "agent", Path(tmp) / "work"
        agent.mkdir()
        cwd.mkdir()
        (agent / "settings.json").write_text(json.dumps({"theme": "dark"}))
        none = _median_ms(lambda: declared_packages(agent, cwd, True), 500)
        sources = _make_packages(Path(tmp) / "pkgs", 10)
        (agent / "settings.json").write_text(json.dumps({"packages": sources}))
        ten = _median_ms(lambda: declared_packages(agent, cwd, True), 100)
    probe = "import sys, pi_cli.packages.probe; print(any(m.startswith('pi_cli.extensions') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    return [
        ("probe, no packages declared (median)", f"{none:.3f} ms", "<= 1 ms", none <= 1),
        ("resolve 10 local packages (median)", f"{ten:.3f} ms", "<= 10 ms", ten <= 10),
        ("probe imports the extension runtime", out, "False", out == "False"),
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row[0]:<40} {row[1]:>12}  budget {row[2]}  {'ok' if row[3] else 'OVER'}")
