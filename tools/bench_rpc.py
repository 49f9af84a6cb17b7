"""Benchmark ``rpc``: ``pi --mode rpc`` delivering every event of a 20,000-token answer.

A warm ``pi --mode rpc`` process (started and answering ``get_state`` first, so start-up is not
counted) gets one ``prompt``; the figure is the time from sending it until ``agent_end`` has been
read, plus the number of ``message_update`` lines and bytes written. The protocol is pi's, with
deltas coalesced to ~60 updates per second. Budget (DESIGN.md §5): ≤ 3 s (pi 0.73.1: 24.6 s,
because each of its 20,000 updates repeats the growing message).

Run ``python tools/bench.py rpc`` or ``python tools/bench_rpc.py [--tokens N] [--repeat N]``.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_print import CHARS_PER_TOKEN, answer_turn, make_env, parse_bench_args, pi_command, run_child  # noqa: E402
from fake_llm_server import FakeLLMServer  # noqa: E402

NAME = "rpc"
DESCRIPTION = "pi --mode rpc: all events of a 20,000-token answer delivered (budget 3 s)"
BUDGET_S = 3.0
BUDGET = "pi --mode rpc, 20,000-token answer: every event delivered in <= 3 s"


def _read_until(proc: subprocess.Popen[bytes], predicate: Any) -> tuple[dict[str, Any], int, int, int]:
    """Read lines until ``predicate(obj)``; returns (that obj, lines, update lines, bytes)."""
    assert proc.stdout is not None
    lines = updates = size = 0
    while True:
        raw = proc.stdout.readline()
        if not raw:
            raise RuntimeError("pi exited early")
        lines += 1
        size += len(raw)
        obj = json.loads(raw)
        if obj.get("type") == "message_update":
            updates += 1
        if predicate(obj):
            return obj, lines, updates, size


def measure(tokens: int = 20_000, repeat: int = 3) -> dict[str, Any]:
    times: list[float] = []
    stats: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="bench-rpc-") as tmp, FakeLLMServer([]) as server:
        root = Path(tmp)
        env = make_env(root, server)
        server.add_turns([{"text": "warm-up"}])
        run_child(pi_command("-p", "warm up"), env, root)  # writes the bytecode cache
        proc = subprocess.Popen(
            pi_command("--mode", "rpc"), env=env, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        assert proc.stdin is not None
        try:
            proc.stdin.write(b'{"type":"get_state","id":"warm"}\n')
            proc.stdin.flush()
            _read_until(proc, lambda o: o.get("id") == "warm")
            for index in range(repeat):
                server.add_turns([answer_turn(tokens)])
                start = time.perf_counter()
                proc.stdin.write(json.dumps({"type": "prompt", "id": f"p{index}", "message": "long"}).encode() + b"\n")
                proc.stdin.flush()
                end, lines, updates, size = _read_until(proc, lambda o: o.get("type") == "agent_end")
                times.append(time.perf_counter() - start)
                text = end["messages"][-1]["content"][0]["text"]
                if len(text) != tokens * CHARS_PER_TOKEN:
                    raise RuntimeError(f"unexpected answer length {len(text)}")
                stats = {"lines": lines, "updates": updates, "bytes": size}
                proc.stdin.write(b'{"type":"new_session"}\n')
                proc.stdin.flush()
                _read_until(proc, lambda o: o.get("command") == "new_session")
        finally:
            proc.stdin.close()
            proc.wait(timeout=10)
    return {"tokens": tokens, "seconds_median": statistics.median(times), "seconds_max": max(times), **stats,
            "ok": statistics.median(times) <= BUDGET_S}  # fmt: skip


def run() -> list[tuple[str, str, str, bool]]:
    """Rows for ``tools/bench.py``: (figure, value, budget, ok)."""
    r = measure()
    return [
        ("rpc: prompt -> agent_end (median of 3)", f"{r['seconds_median']:.3f} s", f"<= {BUDGET_S:.0f} s", r["ok"]),
        ("rpc: message_update lines", str(r["updates"]), "~60 per second", r["updates"] <= 60 * r["seconds_max"] + 5),
    ]


def main(argv: list[str] | None = None) -> int:
    args = parse_bench_args(NAME, DESCRIPTION, argv)
    r = measure(args.tokens, args.repeat)
    print(f"rpc mode, {r['tokens']:,}-token answer, prompt → agent_end")
    print(f"  time: median {r['seconds_median']:.3f} s, max {r['seconds_max']:.3f} s (budget {BUDGET_S:.0f} s) "
          f"{'OK' if r['ok'] else 'OVER'}")  # fmt: skip
    print(f"  output: {r['lines']} lines, {r['updates']} message_update, {r['bytes'] / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
