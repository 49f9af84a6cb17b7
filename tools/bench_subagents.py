"""Subagent figures: what starting a child session costs (the assembly, no model time).

    python tools/bench_subagents.py [--children 200]

A parent session is built once through ``create_agent_session`` (a ``models.json`` provider served
by the faux stream, the ``subagent`` tool on, an AGENTS.md in the project, a private agent dir).
Then, per child, median and p90 ms of two spans:

* build: :func:`~pi_cli.session.assembly.children.build_child_session` and the child's
  ``dispose()`` — model and thinking level resolved, tools built with the parent's sandbox and
  gate, extensions registered again, system prompt, session manager, Agent, AgentSession;
* to first request: from the start of the build until the child's request reaches the stream
  function (the task's prompt preflight, run start, context conversion), the reply then being
  instant;

for:

* ``scout`` (4 read-only tools), its session file beside the parent's;
* ``worker`` (7 tools), likewise;
* ``worker`` with three extensions loaded in the parent (each registers a handler and a tool);
* ``scout`` of a parent that keeps no session file (``--no-session``).

Budget: ≤ 30 ms per child (DESIGN.md §5). Nothing is sent to a model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NAME = "subagents"
BUDGET_MS = 30.0
EXTENSION = """
def register(pi):
    pi.on("tool_call", lambda event, ctx: None)
    pi.register_tool({"name": "ext_tool_%d", "label": "x", "description": "x",
                      "parameters": {"type": "object", "properties": {}},
                      "execute": lambda *args: {"content": [{"type": "text", "text": "x"}]}})
"""


def _setup(root: Path, extensions: int) -> tuple[Path, Path]:
    agent_dir = root / "agent"
    (agent_dir / "extensions").mkdir(parents=True, exist_ok=True)
    for index in range(extensions):
        (agent_dir / "extensions" / f"ext{index}.py").write_text(EXTENSION % index)
    provider = {"api": "openai-completions", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k"}
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fx": {**provider, "models": [{"id": "m"}]}}}))
    project = root / "project"
    project.mkdir(exist_ok=True)
    (project / "AGENTS.md").write_text("# Project rules\n\n" + "Keep functions small.\n" * 40)
    os.environ["PI_CODING_AGENT_DIR"] = str(agent_dir)
    os.environ["PI_OFFLINE"] = "1"
    return agent_dir, project


async def _measure(
    root: Path, agent: str, children: int, extensions: int, no_session: bool
) -> tuple[list[float], list[float]]:
    from pi_cli.ai.providers.faux import faux_assistant, register_faux_provider
    from pi_cli.permissions import trust
    from pi_cli.session.assembly import SessionOptions, create_agent_session
    from pi_cli.session.assembly.children import build_child_session
    from pi_cli.session.subagents.calls import ChildRequest

    _, project = _setup(root, extensions)
    trust.record_decision(project, True)
    faux = register_faux_provider(models=["m"])
    reached: list[float] = []

    def timed(model: Any, context: Any, stream_options: Any) -> Any:  # children inherit it
        reached.append(time.perf_counter())
        return faux.stream(model, context, stream_options)

    options = SessionOptions(
        cwd=project, mode="print", provider="fx", model="m", tools=["read", "bash", "subagent"],
        stream_fn=timed, session_dir=str(root / "sessions"), no_session=no_session,
    )  # fmt: skip
    parent = create_agent_session(options)
    assert parent.subagents is not None
    definition = parent.subagents.catalog.get(agent)
    assert definition is not None
    request = ChildRequest(definition, "map the code", project, None, agent)
    builds: list[float] = []
    firsts: list[float] = []
    for index in range(children + 5):
        started = time.perf_counter()
        child = await build_child_session(parent, request, 1)
        await child.dispose()
        built = time.perf_counter()
        faux.set_responses([faux_assistant("done")])
        second = time.perf_counter()
        child = await build_child_session(parent, request, 1)
        await child.prompt("map the code")
        await child.dispose()
        if index >= 5:  # the first few warm imports and caches
            builds.append((built - started) * 1000)
            firsts.append((reached[-1] - second) * 1000)
    await parent.dispose()
    faux.unregister()
    return builds, firsts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=200)
    args = parser.parse_args(argv)
    cases: list[tuple[str, str, int, bool]] = [
        ("scout, session file", "scout", 0, False),
        ("worker, session file", "worker", 0, False),
        ("worker, 3 extensions", "worker", 3, False),
        ("scout, --no-session", "scout", 0, True),
    ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{NAME}: child start (assembly + dispose, no model time), budget ≤ {BUDGET_MS:.0f} ms; load {load:.2f}")
    worst = 0.0
    for label, agent, extensions, no_session in cases:
        with tempfile.TemporaryDirectory() as tmp:
            builds, firsts = asyncio.run(_measure(Path(tmp), agent, args.children, extensions, no_session))
        for span, times in (("build", builds), ("to first request", firsts)):
            median = statistics.median(times)
            p90 = statistics.quantiles(times, n=10)[-1]
            worst = max(worst, median)
            print(f"  {label:<22} {span:<17} median {median:6.2f} ms   p90 {p90:6.2f} ms   ({len(times)})")
    verdict = "within" if worst <= BUDGET_MS else "OVER"
    print(f"  worst median {worst:.2f} ms: {verdict} budget")
    return 0 if worst <= BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
