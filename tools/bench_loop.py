"""Benchmark ``loop``: agent overhead per turn (instant model, one instant tool call per turn).

One ``Agent.prompt`` runs 1,000 turns: each scripted faux reply calls an ``echo`` tool that
returns at once, then a final text reply ends the run. The figure is wall time / turns, i.e. the
agent loop + tool pipeline + faux playback + an awaited no-op listener, with the transcript
growing to ~2,000 messages as in a long session. A second figure replaces the faux provider by a
stream that only sends ``done``, isolating the loop itself. Budget (DESIGN.md §5): ≤ 2 ms/turn.

Run: ``python tools/bench.py loop`` or ``python tools/bench_loop.py [--turns N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_cli.agent.agent import Agent
from pi_cli.agent.types import AgentToolResult
from pi_cli.ai.event_stream import AssistantMessageEventStream
from pi_cli.ai.providers.faux import faux_assistant, faux_tool_call, register_faux_provider

NAME = "loop"
DESCRIPTION = "agent overhead per turn: 1,000 turns of one instant tool call through the faux provider"
BUDGET_MS = 2.0
BUDGET = "agent overhead per turn (instant model, one tool call) <= 2 ms"


class EchoTool:
    name = "echo"
    label = "Echo"
    description = "Echo a value back"
    execution_mode = None

    def __init__(self) -> None:
        self.parameters: dict[str, Any] = {
            "type": "object",
            "properties": {"value": {"type": "string"}},
            "required": ["value"],
        }

    async def execute(self, tool_call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        return AgentToolResult(content=[{"type": "text", "text": args["value"]}])


def _script(turns: int) -> list[Any]:
    replies: list[Any] = [
        faux_assistant([faux_tool_call("echo", {"value": f"v{i}"}, id=f"c{i}")]) for i in range(turns)
    ]
    replies.append(faux_assistant("done"))
    return replies


def _listener(event: dict[str, Any], signal: Any) -> None:
    return None


async def _run_faux(turns: int) -> float:
    faux = register_faux_provider()
    try:
        faux.set_responses(_script(turns))
        agent = Agent(model=faux.model(), tools=[EchoTool()])
        agent.subscribe(_listener)
        start = time.perf_counter()
        await agent.prompt("go")
        elapsed = time.perf_counter() - start
        assert faux.call_count == turns + 1, faux.call_count
        assert len(agent.state.messages) == 2 * turns + 2
        return elapsed
    finally:
        faux.unregister()


async def _run_done_only(turns: int) -> float:
    script = iter(_script(turns))

    def stream_fn(model: Any, context: Any, options: Any) -> AssistantMessageEventStream:
        message = next(script)

        async def events() -> Any:
            yield {"type": "done", "reason": message["stopReason"], "message": message}

        return AssistantMessageEventStream(events())

    agent = Agent(stream_fn=stream_fn, tools=[EchoTool()])
    agent.subscribe(_listener)
    start = time.perf_counter()
    await agent.prompt("go")
    return time.perf_counter() - start


def measure(turns: int = 1000, repeat: int = 3) -> dict[str, float]:
    """Best-of-``repeat`` per-turn figures in milliseconds."""
    results: dict[str, float] = {}
    for label, fn in (("faux", _run_faux), ("loop_only", _run_done_only)):
        asyncio.run(fn(50))  # warm-up: imports, jsonschema validator compile
        best = float("inf")
        for _ in range(repeat):
            gc.collect()
            best = min(best, asyncio.run(fn(turns)))
        results[label] = best * 1000 / (turns + 1)
    return results


def run() -> list[tuple[str, str, str, bool]]:
    """Rows for ``tools/bench.py``: (figure, value, budget, ok)."""
    figures = measure()
    return [
        ("loop: per turn via faux provider (1,000 turns)", f"{figures['faux']:.3f} ms", f"<= {BUDGET_MS} ms",
         figures["faux"] <= BUDGET_MS),
        ("loop: per turn, loop only (done-only stream)", f"{figures['loop_only']:.3f} ms", "(info)", True),
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"bench {NAME}", description=DESCRIPTION)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    figures = measure(args.turns, args.repeat)
    verdict = "OK" if figures["faux"] <= BUDGET_MS else "OVER BUDGET"
    print(f"loop: {args.turns} turns (one instant tool call each), best of {args.repeat}")
    print(f"  per turn via faux provider : {figures['faux']:.3f} ms  (budget {BUDGET_MS} ms: {verdict})")
    print(f"  per turn, loop only        : {figures['loop_only']:.3f} ms  (done-only stream)")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    raise SystemExit(main())
