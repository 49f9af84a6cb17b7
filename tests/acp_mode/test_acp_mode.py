"""``pi --mode acp`` driven as a real subprocess through the ACP SDK's client side."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from cli.pi_harness import PI, PiEnv

from .acp_client import acp_agent, text_block

pytestmark = pytest.mark.timeout(90)


async def test_initialize_advertises_load_images_and_context(pi: PiEnv) -> None:
    async with acp_agent(pi) as (conn, _client, _proc):
        reply = await conn.initialize(protocol_version=1)
    assert reply.protocol_version == 1
    caps = reply.agent_capabilities
    assert caps is not None and caps.load_session is True
    assert caps.prompt_capabilities is not None
    assert caps.prompt_capabilities.image is True and caps.prompt_capabilities.embedded_context is True
    assert reply.agent_info is not None and reply.agent_info.name == "pi_cli"


async def test_prompt_with_write_tool_streams_text_tool_card_and_diff(pi: PiEnv) -> None:
    (pi.cwd / "a.txt").write_text("old line\n")
    pi.server.add_turns(
        [
            {
                "text": "Let me edit.",
                "tool_calls": [{"name": "write", "arguments": {"path": "a.txt", "content": "new\n"}}],
            },
            {"text": "Done editing."},
        ]
    )
    async with acp_agent(pi) as (conn, client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        assert session.config_options is not None
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("rewrite a.txt")])
    assert reply.stop_reason == "end_turn"
    assert client.text() == "Let me edit.Done editing."
    starts = client.of("tool_call")
    assert len(starts) == 1 and starts[0]["status"] == "pending"
    assert starts[0]["kind"] == "edit" and starts[0]["title"] == "Write a.txt"
    assert starts[0]["locations"] == [{"path": str(pi.cwd / "a.txt")}]
    updates = [u for u in client.of("tool_call_update") if u["toolCallId"] == starts[0]["toolCallId"]]
    assert [u.get("status") for u in updates] == ["in_progress", "completed"]
    diff = updates[-1]["content"][0]
    assert diff == {"type": "diff", "path": str(pi.cwd / "a.txt"), "oldText": "old line\n", "newText": "new\n"}
    usage = client.of("usage_update")
    assert usage and usage[-1]["size"] > 0 and usage[-1]["used"] > 0
    assert any(u.get("sessionUpdate") == "available_commands_update" for u in client.updates)


async def test_a_new_files_diff_carries_old_text_null_on_the_wire(pi: PiEnv) -> None:
    """pi-acp sends ``"oldText": null`` for a file the call created; toad draws no diff without the key."""
    pi.server.add_turns(
        [{"tool_calls": [{"name": "write", "arguments": {"path": "fresh.txt", "content": "hello\n"}}]}, {"text": "ok"}]
    )
    async with acp_agent(pi) as (conn, client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("make fresh.txt")])
    cards = [u for u in client.wire_updates() if u["sessionUpdate"] in ("tool_call", "tool_call_update")]
    diffs = [c for u in cards for c in u.get("content") or [] if c.get("type") == "diff"]
    assert diffs == [{"type": "diff", "path": str(pi.cwd / "fresh.txt"), "oldText": None, "newText": "hello\n"}]


async def test_bash_output_reaches_the_card_and_failures_are_marked(pi: PiEnv) -> None:
    pi.server.add_turns(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo from-bash; exit 3"}}]},
            {"text": "It failed."},
        ]
    )
    async with acp_agent(pi) as (conn, client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    assert reply.stop_reason == "end_turn"
    start = client.of("tool_call")[0]
    assert start["kind"] == "execute" and start["title"] == "echo from-bash; exit 3"
    final = client.of("tool_call_update")[-1]
    assert final["status"] == "failed"
    assert "from-bash" in final["content"][0]["content"]["text"]


async def test_cancel_during_a_stream_answers_cancelled_and_the_agent_keeps_serving(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "partial words here and more", "chunk_size": 4, "stall_after": 3}, {"text": "next"}])
    async with acp_agent(pi) as (conn, client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        running = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("go")]))
        await client.wait_for(lambda u: u.get("sessionUpdate") == "agent_message_chunk")
        await conn.cancel(session_id=session.session_id)
        reply = await asyncio.wait_for(running, 10)
        assert reply.stop_reason == "cancelled"
        again = await conn.prompt(session_id=session.session_id, prompt=[text_block("again")])
    assert again.stop_reason == "end_turn"
    assert client.text().endswith("next")


async def test_cancel_during_bash_kills_it_promptly(pi: PiEnv) -> None:
    pi.server.add_turns([{"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30"}}]}])
    async with acp_agent(pi) as (conn, client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        running = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("sleep")]))
        await client.wait_for(lambda u: u.get("status") == "in_progress")
        started = time.monotonic()
        await conn.cancel(session_id=session.session_id)
        reply = await asyncio.wait_for(running, 10)
        assert time.monotonic() - started < 5
    assert reply.stop_reason == "cancelled"
    assert client.of("tool_call_update")[-1]["status"] == "failed"


async def test_prompt_while_running_is_steering_and_both_answer_when_settled(pi: PiEnv) -> None:
    pi.server.add_turns(
        [
            {"text": "first part of a slow answer", "chunk_size": 3, "delay_chunk": 0.05},
            {"text": "after the steer"},
        ]
    )
    async with acp_agent(pi) as (conn, client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        first = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("one")]))
        await client.wait_for(lambda u: u.get("sessionUpdate") == "agent_message_chunk")
        second = await conn.prompt(session_id=session.session_id, prompt=[text_block("steer this way")])
        assert (await first).stop_reason == "end_turn"
    assert second.stop_reason == "end_turn"
    bodies = pi.bodies()
    assert len(bodies) == 2
    assert "steer this way" in json.dumps(bodies[1]["messages"][-1])


async def test_pi_steer_extension_method_queues_a_steering_message(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "slow answer text here", "chunk_size": 3, "delay_chunk": 0.05}, {"text": "ok"}])
    async with acp_agent(pi) as (conn, client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        running = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("one")]))
        await client.wait_for(lambda u: u.get("sessionUpdate") == "agent_message_chunk")
        assert await conn.ext_method("pi/steer", {"sessionId": session.session_id, "text": "extra"}) == {}
        assert (await running).stop_reason == "end_turn"
        with pytest.raises(RequestError):
            await conn.ext_method("pi/nothing", {})
    assert "extra" in json.dumps(pi.bodies()[1]["messages"][-1])


async def test_load_replays_history_and_list_finds_the_session(pi: PiEnv) -> None:
    pi.server.add_turns(
        [{"text": "I read it.", "tool_calls": [{"name": "read", "arguments": {"path": "x.txt"}}]}, {"text": "Bye."}]
    )
    (pi.cwd / "x.txt").write_text("content of x\n")
    async with acp_agent(pi) as (conn, _client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("read x.txt please")])
    async with acp_agent(pi) as (conn, client, _proc):
        listed = await conn.list_sessions(cwd=str(pi.cwd))
        assert [s.session_id for s in listed.sessions] == [session.session_id]
        # The last page says so with ``nextCursor: null``, as pi-acp (the key is not left out).
        page = next(m["result"] for m in client.wire if isinstance(m.get("result"), dict) and "sessions" in m["result"])
        assert "nextCursor" in page and page["nextCursor"] is None
        assert listed.sessions[0].title == "read x.txt please"
        loaded = await conn.load_session(cwd=str(pi.cwd), session_id=session.session_id, mcp_servers=[])
        assert loaded is not None and loaded.config_options is not None
        assert client.text("user_message_chunk") == "read x.txt please"
        assert client.text() == "I read it.Bye."
        call = client.of("tool_call")[0]
        assert call["status"] == "completed" and call["kind"] == "read"
        assert "content of x" in call["content"][0]["content"]["text"]
        pi.server.add_turns([{"text": "continued"}])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("more")])
    assert reply.stop_reason == "end_turn"
    assert "read x.txt please" in json.dumps(pi.bodies()[-1]["messages"])


async def test_config_options_and_modes_change_model_and_thinking(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "ok"}])
    async with acp_agent(pi) as (conn, client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        reply = await conn.set_config_option(config_id="model", session_id=session.session_id, value="fake/fake-think")
        assert reply is not None
        options = {o.root.id if hasattr(o, "root") else o.id: o for o in reply.config_options}
        thinking = options["thinking"]
        thinking = getattr(thinking, "root", thinking)
        assert "high" in [o.value for o in thinking.options]
        # As pi-acp: the new options are announced before the answer (the level stayed off: no mode update).
        kinds = [u["sessionUpdate"] for u in client.updates if u["sessionUpdate"].endswith(("mode_update", "_update"))]
        assert kinds[-1] == "config_option_update" and "current_mode_update" not in kinds
        models = [o for o in client.of("config_option_update")[-1]["configOptions"] if o["id"] == "model"]
        assert models[0]["currentValue"] == "fake/fake-think"
        await conn.set_session_mode(session_id=session.session_id, mode_id="high")
        assert client.of("current_mode_update")[-1]["currentModeId"] == "high"
        assert client.updates[-1]["sessionUpdate"] == "config_option_update"
        await conn.set_config_option(config_id="thinking", session_id=session.session_id, value="low")
        assert client.of("current_mode_update")[-1]["currentModeId"] == "low"
        thinking_now = [o for o in client.of("config_option_update")[-1]["configOptions"] if o["id"] == "thinking"]
        assert thinking_now[0]["currentValue"] == "low"
        await conn.set_session_mode(session_id=session.session_id, mode_id="high")
        await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        with pytest.raises(RequestError, match="unknown model"):
            await conn.set_config_option(config_id="model", session_id=session.session_id, value="nope/none")
    assert pi.bodies()[-1]["model"] == "fake-think"


async def test_provider_error_is_a_json_rpc_error_naming_it(pi: PiEnv) -> None:
    pi.server.add_turns([{"status": 400, "body": {"error": {"message": "bad request: model refused"}}}])
    async with acp_agent(pi) as (conn, _client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        with pytest.raises(RequestError) as info:
            await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        assert "model refused" in str(info.value)
        with pytest.raises(RequestError, match="Unknown session: no-such-session"):
            await conn.prompt(session_id="no-such-session", prompt=[text_block("hi")])


async def test_bad_json_and_unknown_methods_get_errors_and_the_process_keeps_running(pi: PiEnv) -> None:
    proc = await asyncio.create_subprocess_exec(
        *PI, "--mode", "acp", "--model", "fake/fake-model",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd=pi.cwd, env=pi.env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None

    async def reply(line: bytes) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(line)
        await proc.stdin.drain()
        return json.loads(await asyncio.wait_for(proc.stdout.readline(), 30))

    parse = await reply(b"{not json\n")
    assert parse["error"]["code"] == -32700 and parse["id"] is None
    invalid = await reply(b"[1, 2]\n")
    assert invalid["error"]["code"] == -32600
    unknown = await reply(b'{"jsonrpc":"2.0","id":7,"method":"session/fly","params":{}}\n')
    assert unknown["id"] == 7 and unknown["error"]["code"] == -32601
    init = await reply(b'{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":1}}\n')
    assert init["id"] == 8 and init["result"]["protocolVersion"] == 1
    proc.stdin.close()
    assert await asyncio.wait_for(proc.wait(), 15) == 0


@pytest.mark.parametrize(("choice", "runs"), [("0", True), ("1", True), ("2", False), (None, False)])
async def test_ask_mode_requests_permission_on_the_tool_call(pi: PiEnv, choice: str | None, runs: bool) -> None:
    pi.server.add_turns(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": "touch made"}, "id": "c1"}]}, {"text": "ok"}]
    )
    async with acp_agent(pi, "--permissions", "ask") as (conn, client, _proc):
        client.permission_choice = choice
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert reply.stop_reason == "end_turn"
    [request] = client.permission_requests
    assert [(o["optionId"], o["kind"]) for o in request["options"]] == [
        ("0", "allow_once"), ("1", "allow_always"), ("2", "reject_once"),
    ]  # fmt: skip
    assert request["options"][1]["name"] == "Allow always (bash(touch made*))"
    assert request["toolCall"]["rawInput"] == {"command": "touch made"} and request["toolCall"]["kind"] == "execute"
    starts = client.of("tool_call")
    assert request["toolCall"]["toolCallId"] == starts[0]["toolCallId"]
    assert (pi.cwd / "made").exists() is runs


MCP_TEST_SERVER = str(Path(__file__).resolve().parents[1] / "mcp" / "mcp_test_server.py")


async def test_the_clients_mcp_servers_join_the_session(pi: PiEnv) -> None:
    server = MCP_TEST_SERVER
    call = {"name": "mcp__editor__echo", "arguments": {"text": "from the editor's server"}}
    pi.server.add_turns([{"tool_calls": [call]}, {"text": "echoed"}])
    async with acp_agent(pi) as (conn, client, _proc):
        spec = {"name": "editor", "command": sys.executable, "args": [server], "env": []}
        sse = {"type": "sse", "name": "old", "url": "http://127.0.0.1:9/sse", "headers": []}
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[spec, sse])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("use it")])
    assert reply.stop_reason == "end_turn"
    tools = [t["function"]["name"] for t in pi.bodies()[0]["tools"]]
    assert "mcp__editor__echo" in tools
    final = client.of("tool_call_update")[-1]
    assert final["status"] == "completed" and "from the editor's server" in final["content"][0]["content"]["text"]


@pytest.mark.parametrize(("choice", "ran"), [("0", True), ("1", False)])
async def test_an_extensions_confirm_becomes_a_permission_request(pi: PiEnv, choice: str, ran: bool) -> None:
    target = pi.cwd / "build"
    target.mkdir()
    pi.server.add_turns([{"tool_calls": [{"name": "bash", "arguments": {"command": "rm -rf build"}}]}, {"text": "ok"}])
    async with acp_agent(pi, "-e", "example:dangerous_bash") as (conn, client, _proc):
        client.permission_choice = choice  # "0" = Yes, "1" = No
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("clean up")])
    request = client.permission_requests[0]
    assert [(o["name"], o["kind"]) for o in request["options"]] == [("Yes", "allow_once"), ("No", "reject_once")]
    assert request["toolCall"]["title"] == "rm -rf build" and request["toolCall"]["kind"] == "execute"
    assert target.exists() is not ran


async def test_read_write_and_edit_go_through_the_editors_buffers(pi: PiEnv) -> None:
    (pi.cwd / "a.py").write_text("on disk\n")
    (pi.cwd / "b.py").write_text("x = 1\n")
    calls = [
        {"name": "read", "arguments": {"path": "a.py"}, "id": "r"},
        {"name": "edit", "arguments": {"path": "b.py", "edits": [{"oldText": "x = 2", "newText": "x = 3"}]}, "id": "e"},
        {"name": "write", "arguments": {"path": "c.py", "content": "new file\n"}, "id": "w"},
    ]
    pi.server.add_turns([{"tool_calls": calls}, {"text": "done"}])
    async with acp_agent(pi, fs=True) as (conn, client, _proc):
        client.buffers[str(pi.cwd / "a.py")] = "unsaved text in the editor\n"
        client.buffers[str(pi.cwd / "b.py")] = "x = 2\n"  # the buffer differs from the disk
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    results = {m["tool_call_id"]: m["text"] for m in _tool_results(pi)}
    assert "unsaved text in the editor" in results["r"]
    assert (str(pi.cwd / "b.py"), "x = 3\n") in client.writes and (pi.cwd / "b.py").read_text() == "x = 1\n"
    assert (str(pi.cwd / "c.py"), "new file\n") in client.writes and not (pi.cwd / "c.py").exists()


def _tool_results(pi: PiEnv) -> list[dict[str, Any]]:
    """The tool messages of the last request body (OpenAI shape), text joined."""
    out = []
    for message in pi.bodies()[-1]["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
            out.append({"tool_call_id": message["tool_call_id"], "text": text})
    return out


async def test_extension_command_while_running_runs_at_once(pi: PiEnv) -> None:
    """As pi: ``/name`` of an extension command sent during a run is executed, not steered."""
    ext = pi.root / "mark_ext.py"
    log = pi.root / "marks.txt"
    ext.write_text(
        "def register(pi):\n"
        "    def mark(args, ctx):\n"
        f"        open({str(log)!r}, 'a').write(args + ' ' + str(ctx.is_idle()))\n"
        "    pi.register_command('mark', mark)\n"
    )
    pi.server.add_turns([{"text": "first part of a slow answer", "chunk_size": 3, "delay_chunk": 0.05}])
    async with acp_agent(pi, "-e", str(ext)) as (conn, client, _proc):
        session = await conn.new_session(cwd=str(pi.cwd), mcp_servers=[])
        first = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("one")]))
        await client.wait_for(lambda u: u.get("sessionUpdate") == "agent_message_chunk")
        second = await conn.prompt(session_id=session.session_id, prompt=[text_block("/mark busy")])
        assert second.stop_reason == "end_turn" and log.read_text() == "busy False"
        assert (await first).stop_reason == "end_turn"
    assert len(pi.bodies()) == 1 and "/mark" not in json.dumps(pi.bodies())


@pytest.mark.parametrize("version", [0, 1, 7])
async def test_the_fast_initialize_answer_is_the_sdks(version: int) -> None:
    """``initialize`` is answered before the SDK is imported (~0.4 s saved; pi-acp answers in
    ~130 ms): that answer must be exactly what the SDK would serialise from the agent's."""
    from pi_cli.modes.acp.agent import PiAcpAgent
    from pi_cli.modes.acp.fast_init import fast_answer

    reply = await PiAcpAgent(lambda *_: None).initialize(protocol_version=version)
    sdk = reply.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True)
    request = {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": version}}
    assert fast_answer(request) == {"jsonrpc": "2.0", "id": 3, "result": sdk}
    # Anything unusual is left to the SDK (its validation answers it).
    assert fast_answer({**request, "params": {"protocolVersion": "1"}}) is None
    assert fast_answer({**request, "params": {"protocolVersion": 1, "clientCapabilities": []}}) is None
    assert fast_answer({"jsonrpc": "2.0", "method": "initialize", "params": {"protocolVersion": 1}}) is None


def test_the_acp_server_answers_initialize_without_importing_the_sdk() -> None:
    """The module run before the first answer must not pull the SDK in (that import is the cost)."""
    code = "import sys, pi_cli.cli, pi_cli.modes.acp.server; print(any(m.split('.')[0] == 'acp' for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
