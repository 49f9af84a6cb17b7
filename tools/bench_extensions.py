"""Extension figures: start-up cost without extensions, and the tool_call/tool_result hook cost.

    python tools/bench_extensions.py      (or: python tools/bench.py extensions)

* the start-up probe ``pi`` runs when no extension exists (stats of the extension folders and the
  cached entry-point probe), median of 200 calls in this process, budget ≤ 5 ms;
* one ``tool_call`` + ``tool_result`` pass through the runner with one sync handler each, median
  over 2,000 calls, budget ≤ 0.1 ms per hook.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NAME = "extensions"
BUDGET = "no extensions: start-up probe <= 5 ms; <= 0.1 ms per tool call per hook"


def probe_ms(runs: int = 200) -> float:
    from pi_cli.cli import _has_extension_sources

    with tempfile.TemporaryDirectory() as tmp:
        agent, cwd = Path(tmp) / "agent", Path(tmp) / "work"
        cwd.mkdir()
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            _has_extension_sources(agent, cwd, True)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def hook_ms(calls: int = 2000) -> float:
    from pi_cli.agent.types import AgentToolResult
    from pi_cli.extensions import ExtensionRunner
    from pi_cli.extensions.api import ExtensionAPI

    runner = ExtensionRunner(".")
    api = ExtensionAPI(runner, "bench.py")
    api.on("tool_call", lambda event, ctx: None)
    api.on("tool_result", lambda event, ctx: None)
    result = AgentToolResult(content=[{"type": "text", "text": "x"}])

    async def go() -> float:
        times = []
        for i in range(calls):
            ctx: Any = SimpleNamespace(tool_call={"id": str(i), "name": "bash"}, args={"command": "ls"}, result=result)
            ctx.is_error = False
            start = time.perf_counter()
            await runner.tool_call(ctx)
            await runner.tool_result(ctx)
            times.append((time.perf_counter() - start) * 1000 / 2)
        return statistics.median(times)

    return asyncio.run(go())


def run() -> list[tuple[str, str, str, bool]]:
    probe = probe_ms()
    hook = hook_ms()
    return [
        ("start-up probe, no extensions (median)", f"{probe:.3f} ms", "<= 5 ms", probe <= 5),
        ("hook cost per tool call, one handler (median)", f"{hook:.4f} ms", "<= 0.1 ms", hook <= 0.1),
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row[0]:<48} {row[1]:>12}  budget {row[2]}  {'ok' if row[3] else 'OVER'}")
