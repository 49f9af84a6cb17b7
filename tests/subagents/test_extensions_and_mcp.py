"""A child is assembled as its parent: the parent's extensions apply to it (their handlers see the
child as their session; it gets only the extension tools its agent names), and the MCP tools its
agent names come from the parent's servers, which are never started twice."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.providers.faux import FauxProvider, faux_assistant, faux_tool_call

from .harness import Script, delegate, last_text, parent_session, write_agent

SERVER = Path(__file__).resolve().parents[1] / "mcp" / "mcp_test_server.py"

GUARD = """
import os

def seen(event, ctx):
    with open(os.environ["GUARD_LOG"], "a") as log:
        log.write(str(ctx.cwd) + "\\n")

def register(pi):
    def guard(event, ctx):
        if "forbidden" in str(event["input"].get("command", "")):
            return {"block": True, "reason": "the guard says no"}
        return None

    pi.on("tool_call", guard)
    pi.on("session_start", seen)
    pi.register_tool({"name": "ext_echo", "description": "echo", "parameters": {"type": "object",
                      "properties": {"text": {"type": "string"}}},
                      "execute": lambda call_id, args, signal, update: "ext said " + args["text"]})
"""


def tools_of(context: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in context.get("tools") or []]


async def test_the_parents_extensions_apply_to_children(
    project: Path, faux: FauxProvider, tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "guard.log"
    monkeypatch.setenv("GUARD_LOG", str(log))
    (agent_dir / "extensions").mkdir()
    (agent_dir / "extensions" / "guard.py").write_text(GUARD)
    agents = project / ".pi" / "agents"
    write_agent(agents, "echoer", "name: echoer\ndescription: echoes\ntools: bash, ext_echo", "You are echoer.")
    write_agent(agents, "plain", "name: plain\ndescription: default tools", "You are plain.")

    def echoer(context: dict[str, Any], count: int) -> Any:
        if count == 0:
            return faux_assistant(
                [
                    faux_tool_call("ext_echo", {"text": "hi"}, id="e1"),
                    faux_tool_call("bash", {"command": "echo forbidden"}, id="e2"),
                ]
            )
        return faux_assistant("echoed")

    script = Script(
        faux,
        {
            "parent": delegate({"tasks": [{"agent": "echoer", "task": "a"}, {"agent": "plain", "task": "b"}]}),
            "echoer": echoer,
            "plain": lambda context, count: faux_assistant("plain done"),
            "scout": lambda context, count: faux_assistant("-"),
        },
    )
    parent = parent_session(project, faux, tmp_path)
    await parent.prompt("go")
    first = script.requests("echoer")[0]
    assert tools_of(first) == ["bash", "ext_echo"]  # only what its agent names
    assert tools_of(script.requests("plain")[0]) == ["read", "bash", "edit", "write", "ext_echo"]
    results = [m for m in script.requests("echoer")[1]["messages"] if m["role"] == "toolResult"]
    texts = {m["toolCallId"]: m["content"][0]["text"] for m in results}
    assert texts["e1"] == "ext said hi"
    assert texts["e2"] == "the guard says no"  # the parent's extension handler blocked the child's call
    starts = log.read_text().splitlines()
    assert starts == [str(project)] * 3  # session_start: the parent's, then each child's


async def test_a_childs_mcp_tools_come_from_the_parents_servers(
    project: Path, faux: FauxProvider, tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = SERVER
    pids = tmp_path / "mcp.pids"
    monkeypatch.setenv("MCP_TEST_PIDS", str(pids))
    config = {"mcpServers": {"t": {"command": sys.executable, "args": [str(server)]}}}
    (agent_dir / "mcp.json").write_text(json.dumps(config))
    write_agent(project / ".pi" / "agents", "caller", "name: caller\ndescription: calls\ntools: mcp__t__echo",
                "You are caller.")  # fmt: skip

    def caller(context: dict[str, Any], count: int) -> Any:
        if count == 0:
            return faux_assistant([faux_tool_call("mcp__t__echo", {"text": "through the parent"}, id="m1")])
        return faux_assistant(f"got {last_text(context)}")

    script = Script(faux, {"parent": delegate({"agent": "caller", "task": "call echo"}), "caller": caller})
    parent = parent_session(project, faux, tmp_path, tools=["read", "subagent"])
    assert parent.mcp is not None
    try:
        await parent.prompt("go")
    finally:
        await parent.mcp.close()
    assert tools_of(script.requests("caller")[0]) == ["mcp__t__echo"]
    assert "through the parent" in last_text(script.requests("caller")[1])
    assert len(pids.read_text().split()) == 1  # one server process: the parent's
