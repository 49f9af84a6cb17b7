"""Shared pieces of the end-to-end fault tests: a ``pi --mode rpc`` against the fake server."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from cli.pi_harness import PiEnv, RpcClient, server  # also puts tools/ on sys.path
from fake_llm_server import FakeLLMServer  # type: ignore[import-not-found]  # tools/ is not on mypy's path

from pi_cli.store.jsonl import parse_session_text

__all__ = ["FAST", "FakeLLMServer", "PiEnv", "RpcClient", "server"]

# Small timeouts so each fault resolves in well under a second or two.
FAST = {"retry": {"enabled": False, "baseDelayMs": 20, "provider": {"maxRetries": 0, "timeoutMs": 600}}}


def make_env(tmp_path: Path, server: FakeLLMServer, settings: dict[str, Any] | None = None) -> PiEnv:
    return PiEnv(tmp_path, server, settings if settings is not None else FAST)


def wait_idle(client: RpcClient, timeout: float = 10) -> None:
    """Poll ``get_state`` until the session is idle.

    ``agent_end`` reaches the client before the session has finished its own after-run work (the
    retry and compaction checks, a threshold compaction), and a ``prompt`` sent meanwhile is refused
    as busy, as in pi. A careful client waits like this.
    """
    deadline = time.monotonic() + timeout
    while client.request({"type": "get_state"})["data"]["isStreaming"]:
        assert time.monotonic() < deadline, "session still busy"
        time.sleep(0.02)


def run_prompt(client: RpcClient, message: str, timeout: float = 20) -> dict[str, Any]:
    """Send a prompt and return its ``agent_end`` event (the session is idle again afterwards)."""
    response = client.request({"type": "prompt", "message": message}, timeout)
    assert response["success"] is True, response
    end = client.event("agent_end", timeout)
    wait_idle(client)
    return end


def last_assistant(end: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = [m for m in end["messages"] if m.get("role") == "assistant"][-1]
    return found


def text_of(message: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in message.get("content", []) if b.get("type") == "text")


def assert_session_valid(env: PiEnv) -> list[dict[str, Any]]:
    """The session file loads with no warning; returns its entries (header first)."""
    files = env.session_files()
    assert len(files) == 1, files
    loaded = parse_session_text(files[0].read_bytes(), str(files[0]))
    assert loaded.warnings == [] and loaded.torn_tail_offset is None
    assert loaded.entries[0]["type"] == "session"
    for line in files[0].read_bytes().splitlines():
        json.loads(line)
    return loaded.entries


def session_messages(env: PiEnv) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [e["message"] for e in assert_session_valid(env) if e["type"] == "message"]
    return messages


def finish(client: RpcClient, timeout: float = 10) -> tuple[int, str]:
    """Close stdin, wait for exit, return (exit code, stderr)."""
    assert client.proc.stdin is not None and client.proc.stderr is not None
    if not client.proc.stdin.closed:
        client.proc.stdin.close()
    try:
        code = client.proc.wait(timeout)
        stderr = client.proc.stderr.read().decode(errors="replace")
    finally:
        client.close()
    return code, stderr
