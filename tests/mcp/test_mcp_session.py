"""MCP in real sessions: ``pi -p`` against the fake LLM server with a stdio MCP server configured.

The model calls ``tool_search``, then the loaded tool; the next request declares it. Resuming the
session (``pi -c``) declares the loaded tool again from the transcript. A project ``.pi/mcp.json``
is ignored without trust. With no mcp.json nothing MCP-related is declared.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.cli.pi_harness import PiEnv, pi, server

from .conftest import SERVER, stdio_entry, write_config

__all__ = ["pi", "server"]


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


def _tool_results(body: dict[str, Any]) -> list[str]:
    return [
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in body["messages"]
        if m["role"] == "tool"
    ]


def test_deferred_tool_loaded_by_tool_search_is_called_and_survives_resume(pi: PiEnv) -> None:
    write_config(pi.agent_dir / "mcp.json", {"t": stdio_entry()})
    pi.server.add_turns(
        [
            {"tool_calls": [{"name": "tool_search", "arguments": {"query": "echo text"}, "id": "c1"}]},
            {"tool_calls": [{"name": "mcp__t__echo", "arguments": {"text": "hello"}, "id": "c2"}]},
            {"text": "done"},
        ]
    )
    done = pi.run("-p", "use the echo tool")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    first, second, third = pi.bodies()
    assert "tool_search" in _tool_names(first) and "mcp__t__echo" not in _tool_names(first)
    assert "mcp__t__echo" in _tool_names(second)  # loaded for the next call
    assert any("echo: hello" in text for text in _tool_results(third))

    pi.server.add_turns([{"text": "again"}])
    resumed = pi.run("-c", "-p", "more")
    assert resumed.returncode == 0, resumed.stderr
    assert "mcp__t__echo" in _tool_names(pi.bodies()[-1])


def test_direct_tools_are_declared_and_errors_name_the_server(pi: PiEnv) -> None:
    write_config(pi.agent_dir / "mcp.json", {"d": stdio_entry(exposure="direct")})
    pi.server.add_turns(
        [
            {"tool_calls": [{"name": "mcp__d__fail", "arguments": {}, "id": "c1"}]},
            {"text": "ok"},
        ]
    )
    done = pi.run("-p", "go")
    assert done.returncode == 0, done.stderr
    first, second = pi.bodies()
    names = _tool_names(first)
    assert "mcp__d__echo" in names and "tool_search" not in names and "read" in names
    assert any(
        'MCP server \\"d\\" tool fail: bad thing happened' in t or 'MCP server "d" tool fail' in t
        for t in _tool_results(second)
    )


def test_project_servers_need_trust_and_no_config_means_no_mcp(pi: PiEnv) -> None:
    write_config(pi.cwd / ".pi" / "mcp.json", {"p": stdio_entry(exposure="direct")})
    pi.server.add_turns([{"text": "ok"}])
    done = pi.run("-p", "go")
    assert done.returncode == 0, done.stderr
    assert not any(n.startswith("mcp__") or n == "tool_search" for n in _tool_names(pi.bodies()[0]))


def test_no_mcp_flag_skips_the_servers(pi: PiEnv) -> None:
    write_config(pi.agent_dir / "mcp.json", {"d": stdio_entry(exposure="direct")})
    pi.server.add_turns([{"text": "ok"}])
    done = pi.run("--no-mcp", "-p", "go")
    assert done.returncode == 0, done.stderr
    assert not any(n.startswith("mcp__") for n in _tool_names(pi.bodies()[0]))


GUARD = """
def register(pi):
    def on_tool_call(event, ctx):
        if event["toolName"] == "mcp__d__add":
            return {"block": True, "reason": "no adding today"}
        info = next(t for t in pi.get_all_tools() if t["name"] == event["toolName"])
        if info.get("annotations", {}).get("readOnlyHint"):
            event["input"]["text"] += " (read-only)"

    def on_tool_result(event, ctx):
        if event["toolName"] == "mcp__d__echo":
            return {"content": [{"type": "text", "text": event["content"][0]["text"].upper()}]}

    pi.on("tool_call", on_tool_call)
    pi.on("tool_result", on_tool_result)
"""


def test_extension_handlers_and_the_approval_gate_apply_to_mcp_tools(pi: PiEnv) -> None:
    """MCP calls go through the same pipeline as built-in tools: tool_call, tool_result, the gate."""
    write_config(pi.agent_dir / "mcp.json", {"d": stdio_entry(exposure="direct")})
    ext = pi.root / "guard.py"
    ext.write_text(GUARD)
    calls = [
        {"name": "mcp__d__add", "arguments": {"a": 1, "b": 2}, "id": "c1"},
        {"name": "mcp__d__echo", "arguments": {"text": "quiet"}, "id": "c2"},
    ]
    pi.server.add_turns([{"tool_calls": calls}, {"text": "ok"}])
    done = pi.run("-e", str(ext), "-p", "go")
    assert done.returncode == 0, done.stderr
    results = _tool_results(pi.bodies()[1])
    assert any("no adding today" in text for text in results)
    assert any("ECHO: QUIET (READ-ONLY)" in text for text in results)  # annotations via get_all_tools

    pi.server.add_turns([{"tool_calls": [calls[1]]}, {"text": "ok"}])
    refused = pi.run("--permissions", "read-only", "-p", "go")
    assert refused.returncode == 0, refused.stderr
    assert any("not allowed in read-only mode" in text for text in _tool_results(pi.bodies()[-1]))


def test_tools_flag_selects_mcp_tools_as_pi(pi: PiEnv) -> None:
    """Once a --tools entry starts with mcp__ it filters MCP tools; unnamed direct tools are not declared."""
    write_config(pi.agent_dir / "mcp.json", {"d": stdio_entry(exposure="direct")})
    pi.server.add_turns([{"text": "ok"}, {"text": "ok"}])
    picked = pi.run("--tools", "read,mcp__d__e*", "-p", "go")
    assert picked.returncode == 0 and "Unknown tool" not in picked.stderr, picked.stderr
    assert _tool_names(pi.bodies()[-1]) == ["read", "mcp__d__echo"]
    plain = pi.run("--tools", "read,tool_search", "-p", "go")
    assert plain.returncode == 0, plain.stderr
    assert _tool_names(pi.bodies()[-1]) == ["read", "tool_search"]  # direct tools only through search


def test_resource_tools_answer_as_pi16_recorded(pi: PiEnv) -> None:
    """tests/fixtures/pi16/mcp_resources.json holds pi 1.6.0's results for the same calls on the same
    servers; pi_cli's ``tool_execution_end`` results must equal them."""
    fixture = json.loads((Path(__file__).parents[1] / "fixtures" / "pi16" / "mcp_resources.json").read_text())
    servers = {
        name: {"command": sys.executable, "args": [SERVER, *cfg["args"]], "exposure": cfg["exposure"]}
        for name, cfg in fixture["servers"].items()
    }
    write_config(pi.agent_dir / "mcp.json", servers)
    calls = [{"name": n, "arguments": a, "id": f"c{i}"} for i, (n, a) in enumerate(fixture["calls"])]
    pi.server.add_turns([{"tool_calls": calls}, {"text": "done"}])
    result = pi.run("--mode", "json", "go", timeout=60)
    assert result.returncode == 0, result.stderr
    ends = {
        e["toolCallId"]: e for e in map(json.loads, result.stdout.splitlines()) if e["type"] == "tool_execution_end"
    }
    got = [{"result": ends[f"c{i}"]["result"], "isError": ends[f"c{i}"]["isError"]} for i in range(len(calls))]
    assert got == fixture["results"]
    assert [n for n in _tool_names(pi.bodies()[0]) if "resource" in n] == fixture["resource_tools"]
