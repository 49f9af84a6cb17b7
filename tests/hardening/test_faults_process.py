"""Process faults: signals to ``pi``, daemons forked by bash, a tool that ignores signals, disk full.

SIGTERM / SIGHUP mid-run end ``pi --mode rpc`` and ``pi -p`` with pi's codes 143 / 129 after the
session is flushed (the file loads cleanly and holds the prompt and the interrupted answer). A
bash command that leaves a background child behind still returns; a command that ignores SIGTERM
is killed with its whole process group on abort, and the abort answers quickly. A full disk while
writing the session is reported once and the conversation continues in memory.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import signal
import time
from pathlib import Path

import pytest
from cli.pi_harness import RpcClient

from .faults import FakeLLMServer, assert_session_valid, finish, last_assistant, make_env, run_prompt, server, text_of

__all__ = ["server"]

SLOW = {"text": "slow words " * 40, "chunk_size": 5, "delay_chunk": 0.05}


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["TERM", "HUP"])
def test_rpc_signal_mid_stream_flushes_session_and_exits_with_pi_code(
    tmp_path: Path, server: FakeLLMServer, signum: int, code: int
) -> None:
    server.add_turns([SLOW])
    env = make_env(tmp_path, server)
    client = RpcClient(env)
    try:
        assert client.request({"type": "prompt", "message": "talk slowly"})["success"]
        client.event("message_update")
        client.event("message_update")
        client.proc.send_signal(signum)
        assert client.proc.wait(10) == code
    finally:
        client.close()
    entries = assert_session_valid(env)
    messages = [e["message"] for e in entries if e["type"] == "message"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["stopReason"] == "aborted" and text_of(messages[1]).startswith("slow")


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["TERM", "HUP"])
def test_print_mode_signal_mid_stream(tmp_path: Path, server: FakeLLMServer, signum: int, code: int) -> None:
    server.add_turns([SLOW])
    env = make_env(tmp_path, server)
    proc = env.popen("-p", "talk slowly")
    assert proc.stdin is not None
    proc.stdin.close()
    deadline = time.monotonic() + 10
    while not server.requests and time.monotonic() < deadline:  # the request is out: now mid-run
        time.sleep(0.02)
    time.sleep(0.3)
    proc.send_signal(signum)
    try:
        assert proc.wait(10) == code
    finally:
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    entries = assert_session_valid(env)
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    assert roles == ["user", "assistant"]


def _bash_turn(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}, "id": "call-1"}]}


def test_bash_command_that_leaves_a_daemon_still_returns(tmp_path: Path, server: FakeLLMServer) -> None:
    # The background sleep inherits the output pipe; the call must not wait for it to close.
    server.add_turns([_bash_turn("sleep 30 & echo started"), {"text": "done"}])
    env = make_env(tmp_path, server)
    client = RpcClient(env)
    try:
        started = time.monotonic()
        end = run_prompt(client, "start a daemon", timeout=20)
        elapsed = time.monotonic() - started
    finally:
        code, stderr = finish(client)
    assert code == 0, stderr
    results = [m for m in end["messages"] if m.get("role") == "toolResult"]
    assert results and "started" in text_of(results[0])
    assert text_of(last_assistant(end)) == "done"
    assert elapsed < 15  # far below the daemon's 30 s
    assert_session_valid(env)


def test_abort_kills_a_tool_that_ignores_signals(tmp_path: Path, server: FakeLLMServer) -> None:
    pid_file = tmp_path / "work" / "pid.txt"
    command = "trap '' TERM INT HUP; echo $$ > pid.txt; while true; do sleep 0.05; done"
    server.add_turns([_bash_turn(command), {"text": "after abort"}])
    env = make_env(tmp_path, server)
    client = RpcClient(env)
    try:
        assert client.request({"type": "prompt", "message": "hang"})["success"]
        client.event("tool_execution_start")
        deadline = time.monotonic() + 10
        while not (pid_file.exists() and pid_file.read_text().strip()):
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.02)
        pgid = os.getpgid(int(pid_file.read_text()))
        started = time.monotonic()
        response = client.request({"type": "abort"})
        abort_s = time.monotonic() - started
        assert response["success"] is True
        gone_deadline = time.monotonic() + 2
        while True:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                break
            assert time.monotonic() < gone_deadline, "the process group survived the abort"
            time.sleep(0.02)
        if not any(e.get("type") == "agent_end" for e in client.seen):
            client.event("agent_end")
    finally:
        code, stderr = finish(client)
    assert code == 0, stderr
    # Budget is 200 ms; the margin covers the RPC round trip on a loaded 2-core machine.
    assert abort_s < 1.0, abort_s
    assert_session_valid(env)


async def test_disk_full_while_writing_the_session(
    tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    AsyncServer = FakeLLMServer  # the same class, driven from this test's event loop

    from pi_cli.session.assembly import SessionOptions, create_agent_session
    from pi_cli.store import jsonl as store

    server = AsyncServer([{"text": "first answer"}, {"text": "second answer"}])
    await server.start()
    try:
        (agent_dir / "models.json").write_text(
            json.dumps(
                {
                    "providers": {
                        "fake": {
                            "baseUrl": server.openai_base_url,
                            "api": "openai-completions",
                            "apiKey": "sk-x",
                            "models": [{"id": "m"}],
                        }
                    }
                }
            )
        )

        def disk_full(self: object, entries: object) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(store.SessionWriter, "append", disk_full)
        session = create_agent_session(SessionOptions(cwd=tmp_path, mode="rpc", model="fake/m"))
        await asyncio.wait_for(session.prompt("hi"), 20)
        await asyncio.wait_for(session.prompt("again"), 20)
        messages = session.messages
        assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
        assert [text_of(m) for m in messages[1::2]] == ["first answer", "second answer"]
        assert all(m.get("stopReason") == "stop" for m in messages[1::2])
        err = capsys.readouterr().err
        assert err.count("No space left on device") == 1, err  # reported once, not per message
        assert "continuing in memory" in err
        await session.dispose()
    finally:
        await server.stop()
