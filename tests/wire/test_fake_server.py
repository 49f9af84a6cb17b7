"""The fake server's own modes: in a thread, as a subprocess with a request log, empty queue, stall."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import httpx

from pi_cli.ai.transport.http_client import _header_delay

from .helpers import TOOLS_DIR, FakeLLMServer, openai_model, options, run


def test_thread_mode_serves_sync_clients() -> None:
    with FakeLLMServer([{"text": "from a thread", "chunk_size": 100}]) as server:
        response = httpx.post(server.openai_base_url + "/chat/completions", json={"model": "m", "messages": []})
        assert response.status_code == 200
        assert '"content":"from a thread"' in response.text and "data: [DONE]" in response.text
        assert server.requests[0]["body"] == {"model": "m", "messages": []}
        empty = httpx.post(server.openai_base_url + "/chat/completions", json={})
        assert empty.status_code == 500 and "no scripted turn left" in empty.text


def test_script_mode_prints_url_and_logs_requests(tmp_path: Path) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps({"turns": [{"text": "scripted"}]}))
    log = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(TOOLS_DIR / "fake_llm_server.py"), "--script", str(script), "--log", str(log)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base = proc.stdout.readline().strip()
        assert base.startswith("http://127.0.0.1:")
        response = httpx.post(base + "/v1/messages", json={"model": "claude", "messages": []}, timeout=10)
        assert "event: message_start" in response.text and '"text":"scripted"' in response.text
    finally:
        proc.terminate()
        proc.wait(10)
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert logged[0]["path"] == "/v1/messages" and logged[0]["body"]["model"] == "claude"


def test_bad_script_is_one_line_error(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text('{"turns": 3}')
    done = subprocess.run(
        [sys.executable, str(TOOLS_DIR / "fake_llm_server.py"), "--script", str(script)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and "bad.json" in done.stderr


async def test_stall_after_finish_reason_times_out_into_done(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "all sent", "done": False, "stall": True}])  # no [DONE], body held open
    began = time.monotonic()
    # The idle timeout must outlast a slow first byte on a loaded 2-core machine, yet end the stall.
    _, final = await run(openai_model(server), opts=options(timeout_s=1.5))
    # finish_reason arrived before the stall, so the timed-out tail does not spoil the answer
    assert final["stopReason"] == "stop" and final["content"][0]["text"] == "all sent"
    assert time.monotonic() - began < 5


def test_retry_after_forms() -> None:
    assert _header_delay(httpx.Headers({"retry-after": "2"})) == 2.0
    assert _header_delay(httpx.Headers({"retry-after": "2", "retry-after-ms": "150"})) == 0.15
    future = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    delay = _header_delay(httpx.Headers({"retry-after": future}))
    assert delay is not None and 25 < delay <= 31
    assert _header_delay(httpx.Headers({"retry-after": "soon"})) is None


def test_rate_paces_writes_against_a_clock() -> None:
    # 21 writes (role chunk, 10 text chunks, finish, usage...) at 200/s cannot finish in under ~0.05 s;
    # the content still arrives whole.
    with FakeLLMServer([{"text": "abcd" * 10, "chunk_size": 4, "rate": 200}]) as server:
        started = time.perf_counter()
        response = httpx.post(server.openai_base_url + "/chat/completions", json={"model": "m", "messages": []})
        elapsed = time.perf_counter() - started
    pieces = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: {")]
    text = "".join(p["choices"][0]["delta"].get("content") or "" for p in pieces if p.get("choices"))
    assert text == "abcd" * 10
    assert elapsed >= 12 / 200
