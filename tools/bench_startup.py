"""Start-up benchmark: ``pi --version`` and ``pi --help`` wall time in a fresh interpreter.

Budget 0.10 s: the fast path imports nothing heavy (no textual, httpx, pydantic). Reported as the
median of several runs, since a single process start is noisy on a busy machine.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

NAME = "startup"
BUDGET_S = 0.10
BUDGET = f"pi --version / --help wall <= {BUDGET_S} s"
RUNS = 7


def measure(flag: str, runs: int = RUNS) -> float:
    """Median wall seconds of ``python -m pi_cli <flag>`` from spawn to exit."""
    times: list[float] = []
    with tempfile.TemporaryDirectory() as agent_dir:
        env = {**os.environ, "PI_CODING_AGENT_DIR": agent_dir, "PI_OFFLINE": "1"}
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pi_cli", flag], env=env, capture_output=True, check=True)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def run() -> list[tuple[str, str, str, bool]]:
    rows = []
    for flag in ("--version", "--help"):
        wall = measure(flag)
        rows.append((f"startup: pi {flag} (median of {RUNS})", f"{wall:.3f} s", f"<= {BUDGET_S} s", wall <= BUDGET_S))
    return rows


if __name__ == "__main__":
    for figure, value, budget, ok in run():
        print(f"{figure:40} {value:>10}  {budget:12} {'pass' if ok else 'FAIL'}")
