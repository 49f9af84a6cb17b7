"""kill -9 of a real ``pi --mode rpc`` (against the fake LLM server) mid-tool and mid-stream:
the session file loads with every completed message, and ``pi -c`` carries on from it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from pi_cli.store.manager import SessionManager

ROOT = Path(__file__).resolve().parents[2]
PI = Path(sys.executable).with_name("pi")
sys.path.insert(0, str(ROOT / "tools"))
from fake_llm_server import FakeLLMServer  # noqa: E402

pytestmark = pytest.mark.skipif(not PI.exists(), reason="pi entry point not installed")


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer([]) as srv:
        yield srv


def start_pi(agent_dir: Path, cwd: Path, *extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1"}
    proc = subprocess.Popen(
        [str(PI), "--mode", "rpc", "--model", "fake/fake-model", *extra],
        cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    # A hung pi must fail the test, not hang it: the watchdog closes its stdout by killing it.
    watchdog = threading.Timer(60, proc.kill)
    watchdog.daemon = True
    watchdog.start()
    return proc


def send(proc: subprocess.Popen[bytes], command: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(command) + "\n").encode())
    proc.stdin.flush()


def wait_for(stdout: IO[bytes] | None, predicate: Any, limit: int = 5000) -> dict[str, Any]:
    assert stdout is not None
    for _ in range(limit):
        raw = stdout.readline()
        assert raw, "pi exited early"
        event = json.loads(raw)
        if predicate(event):
            return event
    raise AssertionError("event not seen")


def texts(path: Path) -> list[tuple[str, str]]:
    out = []
    for m in SessionManager.open(path).build_context().messages:
        content = m.get("content")
        if isinstance(content, list):
            first = content[0] if content else {}
            out.append((m["role"], first.get("text") or first.get("name") or ""))
    return out


def test_kill9_mid_tool_and_mid_stream(tmp_path: Path, server: FakeLLMServer) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": {
        "baseUrl": server.openai_base_url, "api": "openai-completions", "apiKey": "sk-fake",
        "models": [{"id": "fake-model"}]}}}))  # fmt: skip
    cwd = tmp_path / "proj"
    cwd.mkdir()
    server.add_turns([
        {"text": "first answer"},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 2"}, "id": "call_sleep"}]},
    ])  # fmt: skip

    proc = start_pi(agent_dir, cwd)
    send(proc, {"type": "prompt", "message": "first"})
    wait_for(proc.stdout, lambda e: e.get("type") == "agent_end")
    send(proc, {"type": "prompt", "message": "run tool"})
    wait_for(proc.stdout, lambda e: e.get("type") == "tool_execution_start")
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)

    files = list((agent_dir / "sessions").rglob("*.jsonl"))
    assert len(files) == 1
    assert texts(files[0]) == [("user", "first"), ("assistant", "first answer"), ("user", "run tool"),
                               ("assistant", "bash")]  # fmt: skip

    # Resume with -c and get killed while the answer streams.
    server.add_turns([{"text": "slow " * 400, "chunk_size": 5, "delay_chunk": 0.01}])
    proc = start_pi(agent_dir, cwd, "-c")
    send(proc, {"type": "prompt", "message": "stream please"})
    wait_for(proc.stdout, lambda e: e.get("type") == "message_update")
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert list((agent_dir / "sessions").rglob("*.jsonl")) == files
    loaded = texts(files[0])
    # Every completed message survives; the half-streamed answer is simply absent.
    assert loaded[:4] == [("user", "first"), ("assistant", "first answer"), ("user", "run tool"),
                          ("assistant", "bash")]  # fmt: skip
    assert loaded[-1] == ("user", "stream please")
    assert SessionManager.open(files[0]).warnings == []
    # The resumed run sent the whole history to the model.
    last = server.requests[-1]["body"]["messages"]
    assert [m["role"] for m in last][:3] == ["system", "user", "assistant"]
