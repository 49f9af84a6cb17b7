"""HTTP errors, pre-body retries, timeouts and aborts (spec §7 cases 38-48), both providers."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

from pi_cli.ai.abort import AbortController
from pi_cli.ai.overflow import is_context_overflow, is_retryable_error
from pi_cli.ai.stream import stream

from .helpers import API_KEY, FakeLLMServer, anthropic_model, openai_model, options, run, types_of, user_context


async def test_429_retry_after_then_success(server: FakeLLMServer) -> None:
    server.add_turns([{"status": 429, "headers": {"retry-after": "0.3"}}, {"text": "made it"}])
    began = time.monotonic()
    events, final = await run(openai_model(server))
    assert time.monotonic() - began >= 0.25  # waited what the server asked (not the 5 ms test backoff)
    assert final["content"][0]["text"] == "made it"
    assert types_of(events).count("start") == 1
    assert len(server.requests) == 2


async def test_retry_after_ms_wins_over_retry_after(server: FakeLLMServer) -> None:
    server.add_turns([{"status": 503, "headers": {"retry-after": "30", "retry-after-ms": "50"}}, {"text": "ok"}])
    began = time.monotonic()
    _, final = await run(openai_model(server))
    assert final["stopReason"] == "stop"
    assert time.monotonic() - began < 10


async def test_server_delay_above_cap_fails_at_once(server: FakeLLMServer) -> None:
    server.add_turns(
        [{"status": 429, "headers": {"retry-after": "120"}, "body": {"error": {"message": "Rate limit reached"}}}]
    )
    began = time.monotonic()
    _, final = await run(openai_model(server), opts=options(max_retry_delay_ms=60_000))
    assert time.monotonic() - began < 5
    assert final["errorMessage"].startswith(
        'Server requested 120s retry delay (max: 60s). 429: {"message":"Rate limit reached"}'
    )
    assert len(server.requests) == 1


async def test_no_http_level_retry_by_default(server: FakeLLMServer) -> None:
    # pi 1.6.0: retry.provider.maxRetries defaults to 0, so a 500 goes straight to the session's
    # auto-retry; one request, one error, nothing else consumed.
    from pi_cli.ai.options import StreamOptions

    server.add_turns([{"status": 500}, {"text": "never"}])
    _, final = await run(openai_model(server), opts=StreamOptions(api_key=API_KEY, timeout_s=10.0))
    assert final["stopReason"] == "error"
    assert len(server.requests) == 1


async def test_5xx_backoff_then_success_and_exhaustion(server: FakeLLMServer) -> None:
    server.add_turns([{"status": 500}, {"status": 502}, {"text": "third time"}])
    _, final = await run(openai_model(server))
    assert final["content"][0]["text"] == "third time"
    server.add_turns([{"status": 503, "body": {"error": {"message": "Service Unavailable"}}}] * 3)
    _, failed = await run(openai_model(server))
    assert failed["stopReason"] == "error"
    assert failed["errorMessage"].startswith('503: {"message":"Service Unavailable"}')
    assert len(server.requests) == 6  # 3 + (1 try + 2 retries)
    assert is_retryable_error(failed)


async def test_x_should_retry_header_overrides(server: FakeLLMServer) -> None:
    server.add_turns([{"status": 503, "headers": {"x-should-retry": "false"}}])
    _, final = await run(openai_model(server))
    assert final["stopReason"] == "error" and len(server.requests) == 1
    server.add_turns([{"status": 400, "headers": {"x-should-retry": "true"}}, {"text": "retried"}])
    _, final = await run(openai_model(server))
    assert final["content"][0]["text"] == "retried"


async def test_prompt_too_long_is_overflow_without_retry(server: FakeLLMServer) -> None:
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "prompt is too long: 213462 tokens > 200000 maximum"},
    }
    server.add_turns([{"status": 400, "body": body}])
    _, final = await run(anthropic_model(server))
    assert final["errorMessage"].startswith("400 {")  # Anthropic style: the whole body
    assert "invalid_request_error" in final["errorMessage"]
    assert len(server.requests) == 1
    assert is_context_overflow(final) and not is_retryable_error(final)


async def test_413_empty_body_and_rate_limit_wording(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {"status": 413, "body": ""},
            {"status": 429, "body": "Too many tokens, rate limit", "content_type": "text/plain"},
        ]
    )
    _, first = await run(openai_model(server))
    assert first["errorMessage"].startswith("413 status code (no body)")
    assert is_context_overflow(first)
    _, second = await run(openai_model(server), opts=options(max_retries=0))
    assert second["errorMessage"].startswith("429 Too many tokens, rate limit")
    assert not is_context_overflow(second) and is_retryable_error(second)


async def test_401_no_retry_and_key_redacted(server: FakeLLMServer) -> None:
    body = {"error": {"message": f"Incorrect API key provided: {API_KEY}. Header was Authorization: Bearer {API_KEY}"}}
    server.add_turns([{"status": 401, "body": body}, {"status": 404, "body": {"error": {"message": "no such model"}}}])
    _, final = await run(openai_model(server))
    assert final["errorMessage"].startswith('401: {"message":"Incorrect API key provided')
    assert API_KEY not in final["errorMessage"] and "SECRET" not in final["errorMessage"]
    assert len(server.requests) == 1
    _, missing = await run(openai_model(server))
    assert missing["errorMessage"] == '404: {"message":"no such model"}'
    assert not is_retryable_error(final) and not is_retryable_error(missing)


async def test_connection_refused_retries_then_connection_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model: dict[str, Any] = {
        "id": "m",
        "name": "m",
        "api": "openai-completions",
        "provider": "local-test",
        "baseUrl": f"http://127.0.0.1:{port}/v1",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
    }
    events, final = await run(model)
    assert final["stopReason"] == "error"
    assert final["errorMessage"].startswith("Connection error.")
    assert is_retryable_error(final)
    assert types_of(events) == ["error"]  # never connected: no start (pi-ai starts once accepted)


async def test_idle_timeout_keeps_partial(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "slow answer", "chunk_size": 5, "stall_after": 2}])
    _, final = await run(openai_model(server), opts=options(timeout_s=1.5))
    assert final["stopReason"] == "error"
    assert "timed out" in final["errorMessage"]
    assert final["content"][0]["text"] == "slow "


async def _abort_when(model: dict[str, Any], predicate: Any) -> tuple[list[str], dict[str, Any], float]:
    """Abort 0.1 s after the first event ``predicate`` accepts (``None``: 0.1 s after the call)."""
    controller = AbortController()
    s = stream(model, user_context(), options(signal=controller.signal))  # type: ignore[arg-type]
    kinds: list[str] = []
    aborted_at = 0.0

    async def abort_soon() -> None:
        nonlocal aborted_at
        await asyncio.sleep(0.1)
        aborted_at = time.monotonic()
        controller.abort()

    task = asyncio.create_task(abort_soon()) if predicate is None else None
    async for event in s:
        kinds.append(event["type"])
        if task is None and predicate(event):
            task = asyncio.create_task(abort_soon())
    final = dict(await s.result())
    if task is not None:
        await task
    return kinds, final, time.monotonic() - aborted_at


async def test_abort_mid_text_closes_socket(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "partial answer that never ends", "chunk_size": 8, "stall_after": 3}])
    kinds, final, latency = await _abort_when(openai_model(server), lambda e: e["type"] == "text_delta")
    assert final["stopReason"] == "aborted" and final["errorMessage"] == "Request was aborted"
    assert final["content"][0]["text"] == "partial answer t"
    assert "done" not in kinds and kinds[-1] == "error"
    assert latency < 2.0
    for _ in range(100):
        if server.requests[0]["client_closed"]:
            break
        await asyncio.sleep(0.01)
    assert server.requests[0]["client_closed"]


async def test_abort_mid_tool_arguments_anthropic(server: FakeLLMServer) -> None:
    server.add_turns(
        [
            {
                "tool_calls": [{"name": "write", "arguments": {"path": "x.py", "content": "y" * 50}}],
                "chunk_size": 6,
                "stall_after": 5,
            }
        ]
    )
    kinds, final, _ = await _abort_when(anthropic_model(server), lambda e: e["type"] == "toolcall_delta")
    assert final["stopReason"] == "aborted"
    assert final["content"][0]["type"] == "toolCall"
    assert final["content"][0]["arguments"] == {"path": "x.py"}
    assert "toolcall_end" not in kinds


async def test_abort_before_headers(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "late", "delay_first": 5}])
    began = time.monotonic()
    kinds, final, _ = await _abort_when(openai_model(server), None)
    assert final["stopReason"] == "aborted" and kinds == ["error"]  # no headers yet: never started
    assert time.monotonic() - began < 3


async def test_abort_during_backoff(server: FakeLLMServer) -> None:
    server.add_turns([{"status": 429, "headers": {"retry-after": "5"}}, {"text": "never"}])
    began = time.monotonic()
    _, final, _ = await _abort_when(anthropic_model(server), None)
    assert final["stopReason"] == "aborted"
    assert time.monotonic() - began < 3
    assert len(server.requests) == 1


async def test_already_aborted_signal(server: FakeLLMServer) -> None:
    controller = AbortController()
    controller.abort()
    server.add_turns([{"text": "never"}])
    events, final = await run(openai_model(server), opts=options(signal=controller.signal))
    assert final["stopReason"] == "aborted" and types_of(events) == ["error"]
    assert server.requests == []


async def test_lone_surrogate_stripped_from_request(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "ok"}, {"text": "ok"}])
    context = user_context("bad \ud83d half, good 😀 emoji")
    _, final = await run(openai_model(server), context)
    assert final["stopReason"] == "stop"
    sent = server.requests[0]["body"]["messages"][1]["content"]
    assert sent == "bad  half, good 😀 emoji"
    _, final = await run(anthropic_model(server), context)
    assert final["stopReason"] == "stop"
    assert json.dumps(server.requests[1]["body"]).find("\\ud83d\\ude00") >= 0  # emoji intact (as a pair)


async def test_abort_from_inside_the_consumer_stops_at_once(server: FakeLLMServer) -> None:
    for model in (openai_model(server), anthropic_model(server)):
        server.add_turns([{"text": "abcdefghijklmnop", "chunk_size": 2, "stall_after": 6}])
        controller = AbortController()
        s = stream(model, user_context(), options(signal=controller.signal))  # type: ignore[arg-type]
        deltas_after_abort = 0
        began = time.monotonic()
        async for event in s:
            if event["type"] == "text_delta":
                if controller.signal.aborted:
                    deltas_after_abort += 1
                controller.abort()  # synchronously, while holding the event
        final = await s.result()
        assert final["stopReason"] == "aborted"
        assert deltas_after_abort == 0
        assert final["content"][0]["text"] == "ab"
        assert time.monotonic() - began < 3  # no wait for the stalled socket


async def test_task_cancellation_is_not_swallowed(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "slow", "stall_after": 2}])
    seen: list[str] = []

    async def consume() -> None:
        async for event in stream(openai_model(server), user_context(), options()):  # type: ignore[arg-type]
            seen.append(event["type"])

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.3)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("cancellation was swallowed")
    assert "text_delta" in seen and "done" not in seen


async def test_bad_base_url_is_one_line_error_without_retries() -> None:
    for base in ("ftp://example.invalid/v1", "not a url at all"):
        model: dict[str, Any] = {
            "id": "m",
            "name": "m",
            "api": "openai-completions",
            "provider": "custom",
            "baseUrl": base,
            "reasoning": False,
            "input": ["text"],
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 1000,
            "maxTokens": 100,
        }
        began = time.monotonic()
        _, final = await run(model, opts=options(retry_base_delay_ms=2000))
        assert final["stopReason"] == "error" and "\n" not in final["errorMessage"]
        assert "custom" in final["errorMessage"]
        assert time.monotonic() - began < 1.5  # no backoff on a URL that can never work


async def test_gather_ms_takes_a_trickling_body_in_a_few_reads(server: FakeLLMServer) -> None:
    from pi_cli.ai.transport.http_client import AbortScope, open_stream, sse_batches

    turn = {"text": "abcd" * 20, "chunk_size": 4, "delay_chunk": 0.01}  # 20 text events over ~0.2 s
    server.add_turns([turn, turn])
    url = server.openai_base_url + "/chat/completions"
    for gather_s in (0.0, 1.0):
        response = await open_stream(url, {}, b"{}", options(), AbortScope(None), "openai")
        try:
            batches = [batch async for batch in sse_batches(response, AbortScope(None), None, gather_s)]
        finally:
            await response.aclose()
        datas = [json.loads(e.data) for batch in batches for e in batch if e.data != "[DONE]"]
        text = "".join(d["choices"][0]["delta"].get("content") or "" for d in datas if d["choices"])
        assert text == "abcd" * 20
        if gather_s:  # the first read, then everything that arrived while it was held
            assert len([b for b in batches if b]) <= 3


async def test_httpx_own_transport_still_streams_when_asked_for(server: FakeLLMServer, monkeypatch: Any) -> None:
    # PI_HTTP_BACKEND (or a proxy) routes provider streams through httpx's transport instead of pi_cli's
    monkeypatch.setenv("PI_HTTP_BACKEND", "httpcore")
    server.add_turns([{"text": "through httpx", "chunk_size": 3}, {"text": "slow", "stall_after": 2}])
    _, final = await run(openai_model(server))
    assert final["stopReason"] == "stop" and final["content"][0]["text"] == "through httpx"
    _, final = await run(openai_model(server), opts=options(timeout_s=0.5))
    assert final["stopReason"] == "error" and "timed out" in final["errorMessage"]
