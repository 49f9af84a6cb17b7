"""Benchmark ``print``: ``pi -p`` on a 20,000-token streamed answer from the fake server.

The fake OpenAI-compatible server (tools/fake_llm_server.py, in this process on a thread) streams
80,000 characters in 4-character deltas (20,000 SSE events, ~1 token each). ``pi -p`` runs as a
subprocess with a private agent dir; the figure is its wall time from spawn to exit and its peak
RSS (``wait4`` rusage). Budget (DESIGN.md §5): ≤ 1.0 s and ≤ 100 MiB (pi 0.73.1: 2.9 s, 204 MiB).

Run ``python tools/bench.py print`` or ``python tools/bench_print.py [--tokens N] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fake_llm_server import FakeLLMServer  # noqa: E402

NAME = "print"
DESCRIPTION = "pi -p on a 20,000-token streamed answer (budget 1.0 s wall, 100 MiB peak RSS)"
BUDGET = "pi -p, 20,000-token answer: <= 1.0 s wall, <= 100 MiB peak RSS"
WALL_BUDGET_S = 1.0
RSS_BUDGET_MIB = 100.0
CHARS_PER_TOKEN = 4


def answer_turn(tokens: int) -> dict[str, Any]:
    """A fake-server turn streaming ``tokens`` tokens of text, one token per SSE event."""
    return {"text": "word", "text_repeat": tokens, "chunk_size": CHARS_PER_TOKEN}


def make_env(root: Path, server: FakeLLMServer) -> dict[str, str]:
    """A private agent dir pointing at ``server``; returns the environment for ``pi``."""
    agent = root / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            "fake": {
                "baseUrl": server.openai_base_url,
                "api": "openai-completions",
                "apiKey": "sk-fake",
                "models": [{"id": "fake-model"}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    # Installed packages ship compiled bytecode; let the warm-up run write it (PYTHONDONTWRITEBYTECODE
    # would make every run recompile pi_cli's sources and measure the compiler instead).
    drop = ("PYTHONDONTWRITEBYTECODE",)
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PI_") and k not in drop
    }
    env.update(PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1", HOME=str(root))
    return env


def pi_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pi_cli", "--model", "fake/fake-model", "--no-session", *args]


LAST_CPU_S: list[float] = []  # CPU seconds (user+sys) of the last run_child, for the report


def run_child(
    cmd: list[str], env: dict[str, str], cwd: Path, stdin: Any = subprocess.DEVNULL
) -> tuple[float, float, bytes]:
    """Run ``cmd``; returns (wall seconds, peak RSS MiB, stdout). CPU time goes to LAST_CPU_S."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    LAST_CPU_S[:] = [usage.ru_utime + usage.ru_stime]
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"pi exited {proc.returncode}: {err.decode(errors='replace')[-500:]}")
    return wall, usage.ru_maxrss / 1024.0, out


def measure(tokens: int = 20_000, repeat: int = 3) -> dict[str, Any]:
    walls: list[float] = []
    rss: list[float] = []
    cpus: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-print-") as tmp, FakeLLMServer([], loop=False) as server:
        root = Path(tmp)
        env = make_env(root, server)
        server.add_turns([{"text": "warm-up"}])
        run_child(pi_command("-p", "warm up"), env, root)  # bytecode cache and page cache
        for _ in range(repeat):
            server.add_turns([answer_turn(tokens)])
            wall, peak, out = run_child(pi_command("-p", "write a long answer"), env, root)
            if len(out.strip()) != tokens * CHARS_PER_TOKEN:
                raise RuntimeError(f"unexpected answer length {len(out.strip())}")
            walls.append(wall)
            rss.append(peak)
            cpus.extend(LAST_CPU_S)
    return {
        "tokens": tokens,
        "wall_s_median": statistics.median(walls),
        "wall_s_min": min(walls),
        "peak_rss_mib_max": max(rss),
        "cpu_s_median": statistics.median(cpus),
        "load_avg_1min": os.getloadavg()[0],
        "wall_ok": statistics.median(walls) <= WALL_BUDGET_S,
        "rss_ok": max(rss) <= RSS_BUDGET_MIB,
    }


def run() -> list[tuple[str, str, str, bool]]:
    """Rows for ``tools/bench.py``: (figure, value, budget, ok)."""
    r = measure()
    return [
        ("print: wall (median of 3)", f"{r['wall_s_median']:.3f} s", f"<= {WALL_BUDGET_S:.1f} s", r["wall_ok"]),
        ("print: CPU user+sys (median)", f"{r['cpu_s_median']:.3f} s", "-", True),
        ("print: peak RSS", f"{r['peak_rss_mib_max']:.1f} MiB", f"<= {RSS_BUDGET_MIB:.0f} MiB", r["rss_ok"]),
    ]


def parse_bench_args(name: str, description: str, argv: list[str] | None) -> argparse.Namespace:
    """``--tokens N --repeat N``, the options of the print and rpc benchmarks."""
    parser = argparse.ArgumentParser(prog=f"bench.py {name}", description=description)
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_bench_args(NAME, DESCRIPTION, argv)
    result = measure(args.tokens, args.repeat)
    print(f"print mode, {result['tokens']:,}-token answer")
    print(
        f"  wall: median {result['wall_s_median']:.3f} s, min {result['wall_s_min']:.3f} s "
        f"(budget {WALL_BUDGET_S:.1f} s) {'OK' if result['wall_ok'] else 'OVER'}"
    )
    print(f"  CPU (user+sys): median {result['cpu_s_median']:.3f} s; 1-min load average "
          f"{result['load_avg_1min']:.2f} on {os.cpu_count()} cores")  # fmt: skip
    print(f"  peak RSS: {result['peak_rss_mib_max']:.1f} MiB (budget {RSS_BUDGET_MIB:.0f} MiB) "
          f"{'OK' if result['rss_ok'] else 'OVER'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
