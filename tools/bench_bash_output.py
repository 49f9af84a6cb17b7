"""Benchmark ``bash-output``: 50 MB of command output through the bash tool.

Measures wall time, throughput and the growth of peak RSS while the output streams (budget: < 60 MB),
plus how long an abort of ``sleep 100`` (with a SIGTERM-ignoring background child) takes to return
(budget: 200 ms). ``tools/bench.py bash-output`` calls :func:`run` (rows for its table); run on its
own, ``python tools/bench_bash_output.py [--mb 50]`` prints the figures in detail.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time

NAME = "bash-output"
DESCRIPTION = "50 MB through the bash tool: wall time and peak RSS growth (budget < 60 MB)"
BUDGET = "peak RSS grows < 60 MB; abort returns < 200 ms"
RSS_BUDGET_MB = 60.0
ABORT_BUDGET_MS = 200.0


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False if not permitted."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def _consume_full_output(path: str | None) -> int:
    """Size of the full-output temp file, which is then deleted."""
    if not path:
        return 0
    size = os.path.getsize(path)
    os.unlink(path)
    return size


async def _stream(megabytes: int) -> tuple[float, int, int, str]:
    from pi_cli.tools.shell.bash import BashTool

    tool = BashTool(tempfile.gettempdir())
    updates = 0

    def on_update(_: object) -> None:
        nonlocal updates
        updates += 1

    # 1 KiB lines of 'x' (1023 + newline), exactly ``megabytes`` MiB in total.
    command = f"yes \"$(head -c 1023 /dev/zero | tr '\\0' x)\" | head -n {megabytes * 1024}"
    started = time.perf_counter()
    result = await tool.execute("bench", {"command": command}, None, on_update)
    wall = time.perf_counter() - started
    text = result.content[0]["text"]  # type: ignore[typeddict-item]
    size = _consume_full_output((result.details or {}).get("fullOutputPath"))
    return wall, updates, size, text.rsplit("\n\n", 1)[-1]


async def _abort_latency(runs: int) -> list[float]:
    from pi_cli.ai.abort import AbortController
    from pi_cli.tools.shell.bash import BashTool, BashToolError

    tool = BashTool(tempfile.gettempdir())
    figures = []
    for _ in range(runs):
        controller = AbortController()
        task = asyncio.ensure_future(
            tool.execute("bench", {"command": "trap '' TERM; sleep 100 & sleep 100"}, controller.signal, None)
        )
        await asyncio.sleep(0.15)
        started = time.perf_counter()
        controller.abort()
        try:
            await task
        except BashToolError:
            pass
        figures.append((time.perf_counter() - started) * 1000)
    return figures


def measure(megabytes: int = 50, abort_runs: int = 5) -> dict[str, float | int | str | bool]:
    """Run both measurements in this process and return the raw figures."""
    import pi_cli.tools.shell.bash  # noqa: F401 - import before the baseline so it is not counted

    baseline_kb = _status_kb("VmRSS")
    exact_peak = _reset_peak_rss()
    wall, updates, size, notice = asyncio.run(_stream(megabytes))
    peak_kb = _status_kb("VmHWM")
    abort_ms = asyncio.run(_abort_latency(abort_runs))
    return {
        "mib": size / 2**20,
        "wall_s": wall,
        "updates": updates,
        "notice": notice,
        "baseline_mb": baseline_kb / 1024,
        "peak_mb": peak_kb / 1024,
        "growth_mb": (peak_kb - baseline_kb) / 1024,
        "exact_peak": exact_peak,
        "abort_max_ms": max(abort_ms),
        "abort_median_ms": sorted(abort_ms)[len(abort_ms) // 2],
        "abort_runs": len(abort_ms),
    }


def run() -> list[tuple[str, str, str, bool]]:
    """Rows for ``tools/bench.py``: (figure, value, budget, ok)."""
    f = measure()
    return [
        ("bash-output: 50 MiB wall", f"{f['wall_s']:.2f} s ({f['updates']} updates)", "-", True),
        (
            "bash-output: peak RSS growth",
            f"{f['growth_mb']:.1f} MB",
            f"< {RSS_BUDGET_MB:.0f} MB",
            float(f["growth_mb"]) < RSS_BUDGET_MB,
        ),
        (
            "bash-output: abort sleep 100 (max of 5)",
            f"{f['abort_max_ms']:.1f} ms",
            f"< {ABORT_BUDGET_MS:.0f} ms",
            float(f["abort_max_ms"]) < ABORT_BUDGET_MS,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"bench_bash_output.py ({NAME})", description=DESCRIPTION)
    parser.add_argument("--mb", type=int, default=50, help="MiB of output to stream (default 50)")
    parser.add_argument("--abort-runs", type=int, default=5, help="abort latency samples (default 5)")
    args = parser.parse_args(argv)
    f = measure(args.mb, args.abort_runs)
    print(
        f"bash-output: {f['mib']:.1f} MiB streamed in {f['wall_s']:.2f} s "
        f"({float(f['mib']) / float(f['wall_s']):.0f} MiB/s), {f['updates']} updates"
    )
    print(
        f"  peak RSS growth: {f['growth_mb']:.1f} MB (baseline {f['baseline_mb']:.1f} MB, peak {f['peak_mb']:.1f} MB"
        f"{'' if f['exact_peak'] else ', peak not resettable: upper bound'}) — budget < {RSS_BUDGET_MB:.0f} MB"
    )
    print(f"  notice: {f['notice']}")
    print(
        f"  abort of `sleep 100` (+ SIGTERM-ignoring child): max {f['abort_max_ms']:.1f} ms, "
        f"median {f['abort_median_ms']:.1f} ms over {f['abort_runs']} runs — budget {ABORT_BUDGET_MS:.0f} ms"
    )
    ok = float(f["growth_mb"]) < RSS_BUDGET_MB and float(f["abort_max_ms"]) < ABORT_BUDGET_MS
    print(f"  {'OK' if ok else 'OVER BUDGET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.exit(main())
