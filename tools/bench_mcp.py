"""MCP figures: import cost of our client, of the official packages (if given), and call latency.

    python tools/bench_mcp.py [--runs 7] [--other-python PATH]

* ``import pi_cli.mcp.manager`` in a fresh interpreter (what a session with servers pays), after
  ``httpx`` and ``pydantic`` are loaded (a session has them already), median of ``--runs``;
* with ``--other-python`` (a venv that has ``mcp-types`` and/or ``mcp`` installed): the same for
  ``import mcp_types`` and for the SDK client (``mcp.client.session`` + ``mcp.client.stdio``);
* connect + list + one call against tests/mcp/mcp_test_server.py over stdio, median wall time;
* ``pi -p hi`` against the fake LLM server with no mcp.json, one deferred and one direct server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "mcp" / "mcp_test_server.py"
_PROBE = "import time, {pre}\nt = time.perf_counter()\nimport {mod}\nprint((time.perf_counter() - t) * 1000)"


def import_ms(python: str, module: str, pre: str, runs: int) -> float | None:
    times = []
    for _ in range(runs):
        out = subprocess.run([python, "-c", _PROBE.format(pre=pre, mod=module)], capture_output=True, text=True)
        if out.returncode != 0:
            return None
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


async def connect_and_call() -> float:
    from pi_cli.mcp.config import load_mcp_config
    from pi_cli.mcp.log import McpLog
    from pi_cli.mcp.manager import McpManager

    with tempfile.TemporaryDirectory() as tmp:
        agent = Path(tmp)
        entry = {"command": sys.executable, "args": [str(SERVER)], "exposure": "direct"}
        (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"bench": entry}}))
        started = time.perf_counter()
        manager = McpManager(load_mcp_config(agent, agent, False), agent, McpLog(None))
        manager.start()
        await manager.wait_ready()
        tool = next(t for t, _ in manager.all_tools() if t.tool == "echo")
        await tool.execute("b", {"text": "x"})
        elapsed = (time.perf_counter() - started) * 1000
        await manager.close()
        return elapsed


def print_mode_ms(runs: int) -> dict[str, float]:
    """Median wall time of ``pi -p hi`` (fake LLM) without MCP, with a deferred and a direct server."""
    import os

    sys.path.insert(0, str(ROOT / "tools"))
    from fake_llm_server import FakeLLMServer

    server = FakeLLMServer([])
    server.start_in_thread()
    out: dict[str, float] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            agent, work = Path(tmp) / "agent", Path(tmp) / "work"
            agent.mkdir()
            work.mkdir()
            provider = {"baseUrl": server.openai_base_url, "api": "openai-completions", "apiKey": "sk"}
            models = {"providers": {"fake": {**provider, "models": [{"id": "m"}]}}}
            (agent / "models.json").write_text(json.dumps(models))
            env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent), "PI_OFFLINE": "1"}
            argv = [sys.executable, "-m", "pi_cli", "--model", "fake/m", "--no-session", "-p", "hi"]
            for label, exposure in (
                ("no mcp.json", None),
                ("one deferred server", "deferred"),
                ("one direct server", "direct"),
            ):
                if exposure is not None:
                    entry = {"command": sys.executable, "args": [str(SERVER)], "exposure": exposure}
                    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"t": entry}}))
                times = []
                for _ in range(runs):
                    server.add_turns([{"text": "ok"}])
                    started = time.perf_counter()
                    subprocess.run(argv, cwd=work, env=env, capture_output=True, check=True)
                    times.append((time.perf_counter() - started) * 1000)
                out[label] = statistics.median(times)
    finally:
        server.stop_thread()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--other-python", help="a python whose environment has mcp-types and/or mcp")
    opts = parser.parse_args()
    ours = import_ms(sys.executable, "pi_cli.mcp.manager", "httpx, pydantic", opts.runs)
    print(f"import pi_cli.mcp.manager (after httpx+pydantic): {ours:.1f} ms median of {opts.runs}")
    if opts.other_python:
        for module, label in (("mcp_types", "mcp-types"), ("mcp.client.session, mcp.client.stdio", "mcp SDK client")):
            value = import_ms(opts.other_python, module, "pydantic", opts.runs)
            print(f"import {label} (after pydantic): " + (f"{value:.1f} ms" if value is not None else "not installed"))
    calls = [asyncio.run(connect_and_call()) for _ in range(opts.runs)]
    print(f"stdio connect + list + one call: {statistics.median(calls):.1f} ms median of {opts.runs}")
    for label, value in print_mode_ms(opts.runs).items():
        print(f"pi -p hi, {label}: {value:.0f} ms median of {opts.runs}")


if __name__ == "__main__":
    main()
