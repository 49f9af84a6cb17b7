"""Record pi 1.6.0's MCP resource tool results into tests/fixtures/pi16/mcp_resources.json.

``python tools/record_pi16_mcp_resources.py``: pi 1.6.0 (found as tools/stream_stages.py finds it)
runs ``--mode json`` against tools/fake_llm_server.py with two stdio servers from
tests/mcp/mcp_test_server.py (``res`` with ``--resources``, ``plain`` without, both ``direct``); the
model calls :data:`CALLS` in one turn. The fixture keeps each call's ``tool_execution_end`` result
and ``isError``, and the resource tools pi declared; tests/mcp/test_mcp_session.py replays it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_print import make_env  # noqa: E402
from fake_llm_server import FakeLLMServer  # noqa: E402
from stream_stages import reference_pi  # noqa: E402

SERVER = ROOT / "tests" / "mcp" / "mcp_test_server.py"
OUT = ROOT / "tests" / "fixtures" / "pi16" / "mcp_resources.json"
SERVERS = {"res": {"args": ["--resources"], "exposure": "direct"}, "plain": {"args": [], "exposure": "direct"}}
CALLS = [
    ["list_mcp_resources", {}],
    ["list_mcp_resources", {"server": "res"}],
    ["list_mcp_resource_templates", {}],
    ["read_mcp_resource", {"server": "res", "uri": "file:///notes.txt"}],
    ["read_mcp_resource", {"server": "res", "uri": "file:///dir"}],
    ["read_mcp_resource", {"server": "res", "uri": "file:///none"}],
    ["read_mcp_resource", {"server": "plain", "uri": "x"}],
    ["list_mcp_resources", {"cursor": "2"}],
]


def main() -> int:
    pi = reference_pi()
    if pi is None:
        print("pi 1.6.0 not found", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer([], loop=False) as server:
        env = make_env(Path(tmp), server)
        servers = {
            name: {"command": sys.executable, "args": [str(SERVER), *cfg["args"]], "exposure": cfg["exposure"]}
            for name, cfg in SERVERS.items()
        }
        (Path(tmp) / "agent" / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
        calls = [{"name": name, "arguments": args, "id": f"c{i}"} for i, (name, args) in enumerate(CALLS)]
        server.add_turns([{"tool_calls": calls}, {"text": "done"}])
        command = [*pi, "--model", "fake/fake-model", "--no-session", "--mode", "json", "go"]
        run = subprocess.run(command, env=env, cwd=tmp, capture_output=True, text=True, timeout=90)
        ends = {}
        for line in run.stdout.splitlines():
            event = json.loads(line)
            if event["type"] == "tool_execution_end":
                ends[event["toolCallId"]] = {"result": event["result"], "isError": event["isError"]}
        tools = [t["function"]["name"] for t in server.requests[0]["body"]["tools"]]
    out = {
        "_about": "pi 1.6.0 (npm @earendil-works/pi-coding-agent 1.6.0) in --mode json, servers 'res' "
        "(tests/mcp/mcp_test_server.py --resources) and 'plain', both exposure direct; the model calls `calls` "
        "in one turn. `results`: each call's tool_execution_end result and isError, by call id; "
        "`resource_tools`: the resource tools pi declared. Written by tools/record_pi16_mcp_resources.py.",
        "servers": SERVERS,
        "calls": CALLS,
        "resource_tools": [t for t in tools if "resource" in t],
        "results": [ends[f"c{i}"] for i in range(len(CALLS))],
    }
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
