"""The MCP client and manager against real servers started by the tests (stdio and streamable HTTP)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from pi_cli.mcp.config import load_mcp_config
from pi_cli.mcp.errors import McpError
from pi_cli.mcp.log import McpLog
from pi_cli.mcp.manager import McpManager
from pi_cli.mcp.results import McpToolError

from .conftest import stdio_entry, write_config


def _manager(agent_dir: Path, project: Path, servers: dict[str, Any], changes: list[int] | None = None) -> McpManager:
    write_config(agent_dir / "mcp.json", servers)
    config = load_mcp_config(agent_dir, project, trusted=False)
    assert config.errors == []
    on_change = (lambda: changes.append(1)) if changes is not None else None
    return McpManager(config, project, McpLog(agent_dir / "mcp.log"), on_change)


async def _call(manager: McpManager, name: str, args: dict[str, Any] | None = None) -> Any:
    tool = next(t for t, _ in manager.all_tools() if t.name == name)
    return await tool.execute("call-1", args or {}, None, None)


async def test_stdio_listing_direct_calls_and_log(agent_dir: Path, project: Path) -> None:
    changes: list[int] = []
    manager = _manager(agent_dir, project, {"t-s": stdio_entry(exposure="direct")}, changes)
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        state = manager.servers["t-s"]
        assert state.status == "connected", state.error
        # seven tools over four pages, named mcp__<server>__<tool> with the server name sanitised
        assert sorted(state.tools) == sorted(
            f"mcp__t_s__{n}" for n in ("echo", "add", "picture", "fail", "crash", "hang", "grow")
        )
        assert changes and {t.name for t in manager.active_tools()} == set(state.tools)  # no tool_search
        assert state.tools["mcp__t_s__echo"].annotations == {"readOnlyHint": True}
        echo = await _call(manager, "mcp__t_s__echo", {"text": "hi"})
        assert echo.content == [{"type": "text", "text": "echo: hi"}]
        added = await _call(manager, "mcp__t_s__add", {"a": 2, "b": 3})
        assert '"sum": 5' in added.content[0]["text"] and added.details["structuredContent"] == {"sum": 5}
        picture = await _call(manager, "mcp__t_s__picture")
        assert picture.content == [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]
        with pytest.raises(McpToolError, match='MCP server "t-s" tool fail: bad thing happened'):
            await _call(manager, "mcp__t_s__fail")
        # list_changed: the new tool appears and the session is told
        before = len(changes)
        await _call(manager, "mcp__t_s__grow")
        for _ in range(100):
            if "mcp__t_s__grown" in state.tools:
                break
            await asyncio.sleep(0.02)
        assert "mcp__t_s__grown" in state.tools and len(changes) > before
    finally:
        await manager.close()
    log = (agent_dir / "mcp.log").read_text()
    assert "[t-s] stderr: test server starting" in log
    assert "[t-s] info echo: echoing hi" in log


async def test_http_server_listing_and_calls(agent_dir: Path, project: Path, http_server: str) -> None:
    manager = _manager(agent_dir, project, {"web": {"url": http_server, "headers": {"X-Test": "1"}}})
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        state = manager.servers["web"]
        assert state.status == "connected", state.error
        assert len(state.tools) == 7
        # deferred by default: only tool_search is declared until something is loaded
        assert [t.name for t in manager.active_tools()] == ["tool_search"]
        echo = await _call(manager, "mcp__web__echo", {"text": "over http"})  # an SSE answer
        assert echo.content[0]["text"] == "echo: over http"
        with pytest.raises(McpToolError, match='MCP server "web"'):
            await _call(manager, "mcp__web__fail")
    finally:
        await manager.close()


async def test_deferred_tools_are_loaded_by_tool_search(agent_dir: Path, project: Path) -> None:
    manager = _manager(agent_dir, project, {"t": stdio_entry()})
    manager.start()
    try:
        search = next(t for t in manager.active_tools() if t.name == "tool_search")  # declared before connecting
        assert search.description.endswith("MCP servers with tools to load:\n- t")
        result = await search.execute("c1", {"query": "echo text back"}, None, None)
        assert result.details["loaded"][0] == "mcp__t__echo"
        assert result.content[0]["text"].startswith("Loaded ")
        assert "mcp__t__echo: Echo the given text back" in result.content[0]["text"]
        assert result.added_tool_names == result.details["loaded"]
        active = [t.name for t in manager.active_tools()]
        assert "mcp__t__echo" in active and "tool_search" in active and "mcp__t__crash" not in active
        echo = await _call(manager, "mcp__t__echo", {"text": "x"})
        assert echo.content[0]["text"] == "echo: x"
        nothing = await search.execute("c2", {"query": "zebra quantum"}, None, None)
        assert nothing.content[0]["text"] == "No matching tools found." and nothing.details == {"loaded": []}
    finally:
        await manager.close()


async def test_crash_mid_call_names_the_server_and_the_next_call_reconnects(agent_dir: Path, project: Path) -> None:
    manager = _manager(agent_dir, project, {"boom": stdio_entry(exposure="direct")})
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        with pytest.raises(McpError, match=r'MCP server "boom" exited with code 3: crashing on purpose'):
            await _call(manager, "mcp__boom__crash")
        assert manager.servers["boom"].status == "disconnected"
        echo = await _call(manager, "mcp__boom__echo", {"text": "back"})
        assert echo.content[0]["text"] == "echo: back" and manager.servers["boom"].status == "connected"
    finally:
        await manager.close()


async def test_timeouts_and_dead_servers_do_not_block_others(agent_dir: Path, project: Path) -> None:
    servers = {
        "mute": stdio_entry("--no-init-answer", timeout=0.5),
        "dead": {"command": str(agent_dir / "no-such-binary")},
        # long enough for a Python server to start on a busy machine, short enough to wait out
        "ok": stdio_entry(timeout=1.5, exposure="direct"),
    }
    manager = _manager(agent_dir, project, servers)
    started = time.monotonic()
    manager.start()
    assert time.monotonic() - started < 0.1  # connecting happens in the background
    try:
        await manager.wait_ready(["ok"], timeout=10)
        assert manager.servers["ok"].status == "connected"
        await manager.wait_ready(timeout=10)
        assert manager.servers["mute"].error == 'MCP server "mute": initialize timed out after 0.5 s'
        assert manager.servers["dead"].status == "failed" and "cannot start" in (manager.servers["dead"].error or "")
        with pytest.raises(McpError, match=r'MCP server "ok": tools/call timed out after 1.5 s'):
            await _call(manager, "mcp__ok__hang")
        echo = await _call(manager, "mcp__ok__echo", {"text": "still fine"})
        assert echo.content[0]["text"] == "echo: still fine"
    finally:
        await manager.close()


async def test_garbage_on_stdout_is_logged_and_skipped(agent_dir: Path, project: Path) -> None:
    manager = _manager(agent_dir, project, {"noisy": stdio_entry("--garbage", exposure="direct")})
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        assert manager.servers["noisy"].status == "connected"
        echo = await _call(manager, "mcp__noisy__echo", {"text": "ok"})
        assert echo.content[0]["text"] == "echo: ok"
    finally:
        await manager.close()
    assert "not JSON-RPC on stdout: this is not json" in (agent_dir / "mcp.log").read_text()


async def test_stop_ends_the_whole_process_group(
    agent_dir: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = agent_dir / "pids"
    monkeypatch.setenv("MCP_TEST_PIDS", str(pids))
    # a wrapper shell that keeps a child server running, as npx/uvx do
    entry = stdio_entry(exposure="direct")
    wrapper = {"command": "/bin/sh", "args": ["-c", f'"{entry["command"]}" "{entry["args"][0]}"; echo done']}
    manager = _manager(agent_dir, project, {"wrapped": wrapper})
    manager.start()
    await manager.wait_ready(timeout=10)
    assert manager.servers["wrapped"].status == "connected"
    pid = int(pids.read_text().split()[0])
    await manager.close()
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.02)
    else:
        pytest.fail("the server survived close()")


async def test_missing_env_variable_fails_that_server_only(agent_dir: Path, project: Path) -> None:
    manager = _manager(agent_dir, project, {"needy": stdio_entry(env={"TOKEN": "${PI_TEST_UNSET_VAR}"})})
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        assert manager.servers["needy"].error == (
            'MCP server "needy" env "TOKEN": environment variable PI_TEST_UNSET_VAR is not set'
        )
    finally:
        await manager.close()


async def test_mcp_actions_reconnect_disable_enable_and_exposure(agent_dir: Path, project: Path) -> None:
    """What /mcp does: each change reaches the server list and is saved to the defining file."""
    import json

    from pi_cli.mcp import status

    manager = _manager(agent_dir, project, {"s": stdio_entry(), "gone": {"command": str(agent_dir / "nope")}})
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        text = await status.run_action(manager, "")
        assert text.splitlines()[0].startswith("gone: failed")  # needs attention: listed first
        assert "s: connected, 7 tools, deferred, user" in text
        assert "disabled" in await status.run_action(manager, "disable s")
        assert manager.servers["s"].status == "disabled" and manager.active_tools() == []
        assert json.loads((agent_dir / "mcp.json").read_text())["mcpServers"]["s"]["enabled"] is False
        assert "connected" in await status.run_action(manager, "enable s")
        assert "enabled" not in json.loads((agent_dir / "mcp.json").read_text())["mcpServers"]["s"]
        await status.run_action(manager, "exposure s direct")
        assert json.loads((agent_dir / "mcp.json").read_text())["mcpServers"]["s"]["exposure"] == "direct"
        assert "mcp__s__echo" in [t.name for t in manager.active_tools()]
        assert "connected" in await status.run_action(manager, "reconnect s")
        with pytest.raises(ValueError, match="no MCP server named"):
            await status.run_action(manager, "reconnect nobody")
        with pytest.raises(ValueError, match="Usage"):
            await status.run_action(manager, "exposure s loud")
    finally:
        await manager.close()


@pytest.mark.parametrize("http_server", [["--flaky", "--forgetful"]], indirect=True)
async def test_http_retries_a_transient_status_and_reconnects_a_forgotten_session(
    agent_dir: Path, project: Path, http_server: str
) -> None:
    manager = _manager(agent_dir, project, {"web": {"url": http_server, "exposure": "direct"}})
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        assert manager.servers["web"].status == "connected", manager.servers["web"].error  # 503 retried
        assert (await _call(manager, "mcp__web__echo", {"text": "1"})).content[0]["text"] == "echo: 1"
        with pytest.raises(McpError, match="HTTP 404: the server ended the session"):
            await _call(manager, "mcp__web__echo", {"text": "2"})
        assert manager.servers["web"].status == "disconnected"
        assert (await _call(manager, "mcp__web__echo", {"text": "3"})).content[0]["text"] == "echo: 3"
    finally:
        await manager.close()


async def test_runtime_thread_bridge_calls_and_aborts(agent_dir: Path, project: Path) -> None:
    """In sessions the servers live on the runtime's own loop: calls cross over, aborts cancel there."""
    from pi_cli.ai.abort import AbortController
    from pi_cli.mcp.runtime import McpRuntime

    write_config(agent_dir / "mcp.json", {"r": stdio_entry(exposure="direct")})
    runtime = McpRuntime.load(project, agent_dir, trusted=False)
    runtime.start()
    try:
        await runtime.run(runtime.manager.wait_ready(timeout=10))
        tools = {t.name: t for t in runtime.tools()}
        updates: list[Any] = []
        echo = await tools["mcp__r__echo"].execute("c1", {"text": "across", "steps": 2}, None, updates.append)
        assert echo.content[0]["text"] == "echo: across"
        # progress comes back to this loop from the runtime's thread, before the result
        assert [u.content[0]["text"] for u in updates] == ["Progress 1/2", "Progress 2/2"]
        controller = AbortController()
        asyncio.get_running_loop().call_later(0.2, controller.abort)
        started = time.monotonic()
        with pytest.raises(McpError, match="Operation aborted"):
            await tools["mcp__r__hang"].execute("c2", {}, controller.signal, None)
        assert time.monotonic() - started < 5
        again = await tools["mcp__r__echo"].execute("c3", {"text": "still"}, None, None)
        assert again.content[0]["text"] == "echo: still"
    finally:
        await runtime.close()
    assert runtime.manager.servers["r"].client is None


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_progress_notifications_become_tool_updates(
    agent_dir: Path, project: Path, http_server: str, transport: str
) -> None:
    """pi shows a server's progress as tool updates: "Progress 1/4" … "Progress 4/4", before the result."""
    entry = stdio_entry(exposure="direct") if transport == "stdio" else {"url": http_server, "exposure": "direct"}
    manager = _manager(agent_dir, project, {"p": entry})
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        tool = next(t for t, _ in manager.all_tools() if t.name == "mcp__p__echo")
        updates: list[Any] = []
        result = await tool.execute("c1", {"text": "slow", "steps": 4}, None, updates.append)
        await asyncio.sleep(0)  # updates hop through the loop
        assert [u.content for u in updates] == [[{"type": "text", "text": f"Progress {i}/4"}] for i in range(1, 5)]
        assert all(u.details == {"server": "p", "tool": "echo"} for u in updates)  # pi's update details
        assert result.content[0]["text"] == "echo: slow"
    finally:
        await manager.close()


def test_progress_text_forms() -> None:
    from pi_cli.mcp.results import progress_text

    assert progress_text({"progress": 2, "total": 4}) == "Progress 2/4"
    assert progress_text({"progress": 0.5}) == "Progress 0.5"
    # pi 1.6.0: the server's message replaces the count; JavaScript's numbers (2.0 is "2").
    assert progress_text({"progress": 1, "total": 3, "message": "indexing"}) == "indexing"
    assert progress_text({"progress": 2.0, "total": 4.0}) == "Progress 2/4"


def _file_uri(path: Path) -> str:
    return path.resolve().as_uri()


async def test_the_session_folder_is_offered_as_the_clients_root(agent_dir: Path, project: Path) -> None:
    """pi answers ``roots/list`` with the session's working directory (and says it can in initialize)."""
    manager = _manager(agent_dir, project, {"r": stdio_entry(exposure="direct")})
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        asked = await _call(manager, "mcp__r__echo", {"text": "x", "roots": True})
        assert json.loads(asked.content[0]["text"]) == {"roots": [{"uri": _file_uri(project)}]}
    finally:
        await manager.close()


async def test_several_servers_tools_keep_the_config_order(agent_dir: Path, project: Path) -> None:
    # pi 1.6.0 orders them by connection completion (it varies between runs); pi_cli keeps mcp.json's
    # order, whichever server answers first (README: "Where pi_cli differs from pi 1.6").
    servers = {name: stdio_entry(exposure="direct") for name in ("zeta", "alpha", "mid")}
    servers["zeta"]["args"].append("--resources")
    manager = _manager(agent_dir, project, servers)
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        names = [t.name for t, _ in manager.all_tools()]
        owners = [n.split("__")[1] if n.startswith("mcp__") else n for n in names]
        assert list(dict.fromkeys(owners)) == [
            "zeta", "alpha", "mid", "list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"
        ]  # fmt: skip
        assert names[:3] == ["mcp__zeta__echo", "mcp__zeta__add", "mcp__zeta__picture"]  # tools/list order
    finally:
        await manager.close()
