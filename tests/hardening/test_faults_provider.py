"""Provider faults end to end: ``pi --mode rpc`` against tools/fake_llm_server.py.

Each case: the fault ends in a clear one-line message on the assistant message (partial text
kept where some arrived), the agent answers a second prompt, and the session file is valid JSONL
holding both turns. Timeouts come from ``retry.provider.timeoutMs`` so every case takes about a
second.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from cli.pi_harness import PiEnv, RpcClient

from .faults import (
    FAST,
    FakeLLMServer,
    finish,
    last_assistant,
    make_env,
    run_prompt,
    server,
    session_messages,
    text_of,
)

__all__ = ["server"]  # the fixture, re-exported for pytest


def _two_prompts(env: PiEnv) -> tuple[dict[str, Any], dict[str, Any]]:
    client = RpcClient(env)
    try:
        first = last_assistant(run_prompt(client, "first"))
        second = last_assistant(run_prompt(client, "again"))
    finally:
        code, stderr = finish(client)
    assert code == 0, stderr
    assert "Traceback" not in stderr, stderr
    assert second["stopReason"] == "stop" and text_of(second) == "second answer", second
    return first, second


def _check_session(env: PiEnv, first: dict[str, Any]) -> None:
    messages = session_messages(env)
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[1].get("errorMessage") == first.get("errorMessage")
    assert text_of(messages[1]) == text_of(first)


_PARTIAL = {"text": "partial words here", "chunk_size": 4}
_INVALID_UTF8 = [
    'data: {"choices":[{"index":0,"delta":{"content":"ok \udcff\udcfe!"}}]}\n\n',
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
]


@pytest.mark.parametrize(
    ("fault", "error", "partial"),
    [
        pytest.param(
            {**_PARTIAL, "stall_after": 3}, "Request timed out. (provider: fake)", True, id="stall-mid-stream"
        ),
        pytest.param({**_PARTIAL, "drop_after": 3}, "Connection error. (provider: fake", True, id="connection-drop"),
        pytest.param(
            {"raw": "<html><body>Proxy login</body></html>", "content_type": "text/html"},
            "Expected an event stream, got text/html: 200 <html>",
            False,
            id="html-200",
        ),
        pytest.param(
            {"status": 503, "body": "<html>busy</html>", "content_type": "text/html"},
            "503 <html>busy</html>",
            False,
            id="html-503",
        ),
    ],
)
def test_fault_ends_clearly_and_agent_recovers(
    tmp_path: Path, server: FakeLLMServer, fault: dict[str, Any], error: str, partial: bool
) -> None:
    server.add_turns([fault, {"text": "second answer"}])
    env = make_env(tmp_path, server)
    first, _ = _two_prompts(env)
    assert first["stopReason"] == "error"
    assert first["errorMessage"].startswith(error), first["errorMessage"]
    assert "\n" not in first["errorMessage"]
    if partial:
        assert text_of(first).startswith("partial"), first  # what arrived before the fault is kept
    _check_session(env, first)


def test_invalid_utf8_becomes_replacement_characters(tmp_path: Path, server: FakeLLMServer) -> None:
    server.add_turns([{"raw": _INVALID_UTF8}, {"text": "second answer"}])
    env = make_env(tmp_path, server)
    first, _ = _two_prompts(env)
    assert first["stopReason"] == "stop" and text_of(first) == "ok \ufffd\ufffd!"
    _check_session(env, first)


def test_one_megabyte_sse_line(tmp_path: Path, server: FakeLLMServer) -> None:
    big = "y" * 1_000_000
    server.add_turns([{"text": big, "chunk_size": len(big)}, {"text": "second answer"}])
    # 250k output tokens would (rightly) trigger threshold compaction, which spends a scripted turn.
    env = make_env(tmp_path, server, {**FAST, "compaction": {"enabled": False}})
    first, _ = _two_prompts(env)
    assert first["stopReason"] == "stop" and text_of(first) == big
    _check_session(env, first)


def test_stall_before_first_byte_times_out_then_retries(tmp_path: Path, server: FakeLLMServer) -> None:
    settings = json.loads(json.dumps(FAST))
    settings["retry"]["provider"]["maxRetries"] = 1
    server.add_turns([{"text": "never sent", "delay_first": 5}, {"text": "after retry"}, {"text": "second answer"}])
    env = make_env(tmp_path, server, settings)
    first, _ = _two_prompts(env)
    assert first["stopReason"] == "stop" and text_of(first) == "after retry"
    assert len(server.requests) == 3  # the stalled request, its retry, the second prompt
    _check_session(env, first)


def test_429_retry_after_is_honoured(tmp_path: Path, server: FakeLLMServer) -> None:
    settings = json.loads(json.dumps(FAST))
    settings["retry"]["provider"]["maxRetries"] = 2
    server.add_turns(
        [
            {"status": 429, "headers": {"retry-after": "1"}, "body": {"error": {"message": "Rate limit reached"}}},
            {"text": "after the wait"},
            {"text": "second answer"},
        ]
    )
    env = make_env(tmp_path, server, settings)
    client = RpcClient(env)
    try:
        started = time.monotonic()
        first = last_assistant(run_prompt(client, "first"))
        waited = time.monotonic() - started
        second = last_assistant(run_prompt(client, "again"))
    finally:
        code, stderr = finish(client)
    assert code == 0, stderr
    assert text_of(first) == "after the wait" and text_of(second) == "second answer"
    assert waited >= 0.9  # the server asked for one second (lower bound only)
    assert len(server.requests) == 3


def test_429_exhausted_is_a_clear_error(tmp_path: Path, server: FakeLLMServer) -> None:
    limited = {"status": 429, "headers": {"retry-after": "0"}, "body": {"error": {"message": "Rate limit reached"}}}
    server.add_turns([limited, {"text": "second answer"}])
    env = make_env(tmp_path, server)
    first, _ = _two_prompts(env)
    assert first["errorMessage"] == '429: {"message":"Rate limit reached"}'  # pi 1.6.0's form
    _check_session(env, first)


def test_401_no_retry_and_names_the_env_variable(tmp_path: Path, server: FakeLLMServer) -> None:
    settings = json.loads(json.dumps(FAST))
    settings["retry"]["enabled"] = True  # agent-level retry on: a 401 must still not be retried
    settings["retry"]["provider"]["maxRetries"] = 2
    server.add_turns(
        [{"status": 401, "body": {"error": {"message": "Incorrect API key provided"}}}, {"text": "second answer"}]
    )
    env = make_env(tmp_path, server, settings)
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["groq"] = {"baseUrl": server.openai_base_url}  # built-in provider, fake endpoint
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    env.env["GROQ_API_KEY"] = "gsk-hardening-test-key-0001"
    client = RpcClient(env)
    try:
        assert client.request({"type": "set_model", "provider": "groq", "modelId": "llama-3.3-70b-versatile"})[
            "success"
        ]
        first = last_assistant(run_prompt(client, "first"))
        assert len(server.requests) == 1  # no retry at any layer
        second = last_assistant(run_prompt(client, "again"))
    finally:
        code, stderr = finish(client)
    assert code == 0, stderr
    assert first["errorMessage"].startswith('401: {"message":"Incorrect API key provided"}')
    assert "GROQ_API_KEY" in first["errorMessage"]
    assert "gsk-hardening-test-key-0001" not in first["errorMessage"]
    assert text_of(second) == "second answer"
    _check_session(env, first)
