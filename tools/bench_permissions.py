"""Permissions figures: what the approval gate and project trust cost.

    python tools/bench_permissions.py [--runs 7] [--calls 20000]

* ``import pi_cli.permissions.gate`` in a fresh interpreter after the modules a session has
  already loaded (settings, factory), median of ``--runs`` (added start-up cost);
* one gate decision per tool call, in µs: auto mode without rules, and ask mode with 60 rules
  (20 allow / 20 deny / 20 ask) on a compound bash command and on an edit path;
* project trust at start-up for a folder with ``.pi/settings.json`` and a saved decision three
  levels up (reads trust.json under its lock), median in ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_PROBE = (
    "import time, pi_cli.session.assembly, pi_cli.config.settings\n"
    "t = time.perf_counter()\nimport pi_cli.permissions.gate\nprint((time.perf_counter() - t) * 1000)"
)


def import_ms(runs: int) -> float:
    times = [float(subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True).stdout)
             for _ in range(runs)]  # fmt: skip
    return statistics.median(times)


def decision_us(calls: int) -> dict[str, float]:
    from pi_cli.permissions.policy import RuleSet, decide
    from pi_cli.permissions.rules import parse_rule

    many = RuleSet()
    for n in range(20):
        many.add("allow", parse_rule(f"bash(tool{n} *)"))
        many.add("deny", parse_rule(f"write(secret{n}/**)"))
        many.add("ask", parse_rule(f"edit(area{n}/**)"))
    cases = {
        "auto, no rules, bash": ("auto", RuleSet(), "bash", {"command": "git status && npm test | tail"}),
        "ask, 60 rules, compound bash": ("ask", many, "bash", {"command": "git status && npm test | tail"}),
        "ask, 60 rules, edit path": ("ask", many, "edit", {"path": "src/pkg/module.py", "edits": []}),
    }
    out = {}
    for label, (mode, rules, tool, args) in cases.items():
        start = time.perf_counter()
        for _ in range(calls):
            decide(tool, args, mode, rules, "/work/project")  # type: ignore[arg-type]
        out[label] = (time.perf_counter() - start) / calls * 1e6
    return out


def trust_ms(runs: int) -> float:
    from pi_cli.permissions import trust

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "a" / "b" / "c"
        (project / ".pi").mkdir(parents=True)
        (project / ".pi" / "settings.json").write_text("{}")
        (root / "agent").mkdir()
        (root / "agent" / "trust.json").write_text(json.dumps({str((root / "a").resolve()): True}))
        times = []
        for _ in range(runs):
            trust.forget_decisions()
            start = time.perf_counter()
            assert trust.resolve_project_trust(project, agent_dir=root / "agent") is True
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    print(f"import pi_cli.permissions.gate (after settings/assembly), median of {args.runs}: "
          f"{import_ms(args.runs):.1f} ms")  # fmt: skip
    for label, value in decision_us(args.calls).items():
        print(f"gate decision, {label}: {value:.1f} µs/call")
    print(f"project trust at start-up (trust.json, parent decision), median of {args.runs}: "
          f"{trust_ms(args.runs):.2f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
