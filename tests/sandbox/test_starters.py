"""Every process starter takes the sandbox at construction: the bash tool (and its offer to run a
blocked call outside), the user's ``!cmd``, extension ``exec`` and MCP stdio servers."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.abort import AbortSignal
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.runner import ExtensionRunner
from pi_cli.mcp.config import load_mcp_config
from pi_cli.mcp.log import McpLog
from pi_cli.mcp.manager import McpManager
from pi_cli.sandbox.controller import Sandbox
from pi_cli.sandbox.policy import SandboxPolicy
from pi_cli.session.bash_runs import BashRunner
from pi_cli.tools.shell.bash import BashTool, BashToolError

from .conftest import Places, needs_landlock

pytestmark = needs_landlock
MCP_SERVER = str(Path(__file__).parent.parent / "mcp" / "mcp_test_server.py")


@pytest.fixture
def sandbox(places: Places) -> Iterator[Sandbox]:
    box = Sandbox(SandboxPolicy(mode="workspace"), str(places.project), temp_dir=str(places.temp))
    yield box
    box.close()


class Approver:
    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str, str]] = []

    async def approve_outside(self, tool: str, command: str, note: str, signal: AbortSignal | None) -> bool:
        self.asked.append((tool, command, note))
        return self.answer


async def test_a_blocked_call_offers_to_run_outside_and_reruns_when_allowed(places: Places, sandbox: Sandbox) -> None:
    target = places.outside / "approved.txt"
    approver = Approver(True)
    tool = BashTool(str(places.project), sandbox=sandbox, approver=approver)
    result = await tool.execute("c1", {"command": f"echo yes > {target} && echo wrote"})
    text = result.content[0]["text"]  # type: ignore[typeddict-item]
    assert target.read_text() == "yes\n"
    assert "wrote" in text and "Ran outside the sandbox" in text
    assert len(approver.asked) == 1 and str(target) in approver.asked[0][2]


async def test_a_declined_or_unaskable_offer_keeps_the_note(places: Places, sandbox: Sandbox) -> None:
    target = places.outside / "no.txt"
    for approver in (Approver(False), None):
        tool = BashTool(str(places.project), sandbox=sandbox, approver=approver)
        result = await tool.execute("c1", {"command": f"echo no > {target}"})
        assert result.is_error  # a non-zero exit is an error result (pi 1.6)
        message = str(result.content[0]["text"])  # type: ignore[typeddict-item]
        assert "Command exited with code 1" in message and f"blocked writing {target}" in message
        assert "sandbox.writable" in message and not target.exists()


async def test_user_bang_commands_run_confined_with_the_note(places: Places, sandbox: Sandbox) -> None:
    runner = BashRunner(places.project, sandbox=sandbox)
    chunks: list[str] = []
    result, message = await runner.run(f"echo x > {places.outside}/bang.txt", chunks.append)
    assert not (places.outside / "bang.txt").exists()
    assert result["exitCode"] == 1 and "[Sandbox" in result["output"] and "[Sandbox" in "".join(chunks)
    assert message["output"] == result["output"]
    plain, _ = await BashRunner(places.project).run(f"echo x > {places.outside}/bang.txt")
    assert plain["exitCode"] == 0 and (places.outside / "bang.txt").exists()


async def test_extension_exec_runs_confined(places: Places, sandbox: Sandbox) -> None:
    runner = ExtensionRunner(str(places.project), sandbox=sandbox)
    api = ExtensionAPI(runner, "ext.py")
    out = await api.exec("sh", ["-c", f"echo x > {places.outside}/ext.txt; echo inside > here.txt; echo done"])
    assert "Permission denied" in out["stderr"] and "done" in out["stdout"]
    assert not (places.outside / "ext.txt").exists() and (places.project / "here.txt").exists()
    free = await ExtensionAPI(ExtensionRunner(str(places.project)), "ext.py").exec("sh", ["-c", "echo $0"])
    assert free["code"] == 0


def _mcp_manager(places: Places, entry: dict[str, Any], sandbox: Sandbox) -> McpManager:
    agent = places.home / ".pi" / "agent"
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"srv": entry}}))
    config = load_mcp_config(agent, places.project, trusted=False)
    assert config.errors == []
    return McpManager(config, places.project, McpLog(places.temp / "mcp.log"), sandbox=sandbox)


@pytest.mark.parametrize("opt_out", [False, True])
async def test_mcp_stdio_servers_start_inside_unless_the_user_opts_out(
    places: Places, sandbox: Sandbox, opt_out: bool
) -> None:
    pids = places.outside / "pids"
    entry: dict[str, Any] = {"command": sys.executable, "args": [MCP_SERVER], "env": {"MCP_TEST_PIDS": str(pids)}}
    if opt_out:
        entry["sandbox"] = False
    manager = _mcp_manager(places, entry, sandbox)
    manager.start()
    try:
        await manager.wait_ready(timeout=20)
    finally:
        await manager.close()
    # The server appends its pid to $MCP_TEST_PIDS first thing: only possible outside the sandbox.
    assert pids.exists() is opt_out
    assert (manager.servers["srv"].status == "failed") is not opt_out


def test_only_the_users_mcp_json_may_take_a_server_out(places: Places) -> None:
    project_file = places.project / ".pi" / "mcp.json"
    project_file.parent.mkdir(parents=True)
    entry = {"command": "x", "sandbox": False}
    project_file.write_text(json.dumps({"mcpServers": {"p": entry}}))
    config = load_mcp_config(places.home / ".pi" / "agent", places.project, trusted=True)
    assert "p" not in config.servers
    assert any("sandbox: only the user" in e for e in config.errors)


def test_state_reports_the_sandbox_and_a_mode_switch_applies(places: Places, sandbox: Sandbox) -> None:
    state = sandbox.state()
    assert state["mode"] == "workspace" and state["network"] == "off"
    assert str(places.project) in state["writable"] and str(places.temp) in state["writable"]
    assert any(p.endswith("/.ssh") for p in state["denyRead"]) and state["landlockAbi"] >= 4
    first = sandbox.confinement()
    sandbox.set_mode("read-only")
    assert sandbox.state()["writable"] == [] and sandbox.confinement() is not first
    sandbox.set_mode("off")
    assert sandbox.confinement() is None and not sandbox.runs_confined("bash")


async def test_timeout_and_abort_kill_a_confined_command(places: Places, sandbox: Sandbox) -> None:
    import asyncio

    from pi_cli.ai.abort import AbortController

    tool = BashTool(str(places.project), sandbox=sandbox)
    with pytest.raises(BashToolError, match=r"Command timed out after 0\.5 seconds"):
        await tool.execute("t", {"command": "sleep 30 & sleep 30", "timeout": 0.5})
    controller = AbortController()
    task = asyncio.ensure_future(tool.execute("a", {"command": "echo started; sleep 30"}, controller.signal))
    await asyncio.sleep(0.3)
    controller.abort()
    with pytest.raises(BashToolError, match="Command aborted"):
        await asyncio.wait_for(task, 5)
