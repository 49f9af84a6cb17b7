"""Faults on the OpenAI Responses and Gemini formats: the same behaviour as the first two providers.

Retries before the body, no retries after it, abort mid-stream (socket closed, partial kept),
broken bodies, idle timeouts, overflow classification of each API's own wording, keys redacted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from pi_cli.ai.abort import AbortController
from pi_cli.ai.overflow import is_context_overflow, is_retryable_error
from pi_cli.ai.stream import stream

from .format_models import google_model, responses_model
from .helpers import API_KEY, FakeLLMServer, options, run, user_context

ModelFn = Callable[..., dict[str, Any]]
# SSE events a format sends before its first text delta (Responses: created, in_progress, item, part).
PREAMBLE = {responses_model: 4, google_model: 0}
FORMATS = pytest.mark.parametrize("make_model", [responses_model, google_model], ids=["responses", "google"])

# Each API's own words for "the prompt did not fit", as their 400 bodies carry them.
OVERFLOW_BODIES = {
    "responses": {
        "error": {
            "message": "Your input exceeds the context window of this model. Please adjust your input and try again.",
            "type": "invalid_request_error",
            "param": "input",
            "code": "context_length_exceeded",
        }
    },
    "google": [
        {
            "error": {
                "code": 400,
                "message": "The input token count (1312554) exceeds the maximum number of tokens allowed (1048576).",
                "status": "INVALID_ARGUMENT",
            }
        }
    ],
}


@FORMATS
async def test_retry_before_the_body_then_success(server: FakeLLMServer, make_model: ModelFn) -> None:
    server.add_turns([{"status": 429, "headers": {"retry-after-ms": "20"}}, {"status": 503}, {"text": "made it"}])
    events, final = await run(make_model(server))
    assert final["content"][0]["text"] == "made it"
    assert [e["type"] for e in events].count("start") == 1
    assert len(server.requests) == 3


@FORMATS
async def test_exhausted_retries_give_one_retryable_line(server: FakeLLMServer, make_model: ModelFn) -> None:
    server.add_turns([{"status": 500, "body": {"error": {"message": "Internal error encountered."}}}] * 3)
    _, final = await run(make_model(server))
    message = final["errorMessage"]
    # pi 1.6.0's texts: the openai SDK's behind "<provider> API error (<status>)", @google/genai's JSON.
    expected = {
        responses_model: 'OpenAI API error (500): {"message":"Internal error encountered."}',  # provider "openai"
        google_model: '{"error":{"message":"Internal error encountered."}}',
    }[make_model]
    assert message == expected
    assert is_retryable_error(final) and len(server.requests) == 3


@FORMATS
async def test_overflow_wording_is_classified(server: FakeLLMServer, make_model: ModelFn, request: Any) -> None:
    name = request.node.callspec.id
    server.add_turns([{"status": 400, "body": OVERFLOW_BODIES[name]}])
    _, final = await run(make_model(server))
    assert final["stopReason"] == "error"
    assert is_context_overflow(final) and not is_retryable_error(final)
    assert len(server.requests) == 1
    assert "400" in final["errorMessage"]


async def test_overflow_reported_inside_a_responses_stream(server: FakeLLMServer) -> None:
    failed = {"code": "context_length_exceeded", "message": "Your input exceeds the context window of this model."}
    server.add_turns([{"failed": failed}])
    _, final = await run(responses_model(server))
    assert is_context_overflow(final) and not is_retryable_error(final)


@FORMATS
async def test_bad_key_is_not_retried_and_never_echoed(server: FakeLLMServer, make_model: ModelFn) -> None:
    body = {"error": {"code": 401, "message": f"API key not valid: {API_KEY}. Please pass a valid API key."}}
    server.add_turns([{"status": 401, "body": body}])
    _, final = await run(make_model(server))
    assert "API key not valid" in final["errorMessage"]
    assert API_KEY not in final["errorMessage"] and "SECRET" not in final["errorMessage"]
    assert len(server.requests) == 1 and not is_retryable_error(final)


@FORMATS
async def test_broken_body_keeps_the_partial_answer(server: FakeLLMServer, make_model: ModelFn) -> None:
    server.add_turns(
        [
            {"text": "first part of a long answer", "chunk_size": 6, "drop_after": PREAMBLE[make_model] + 2},
            {"text": "unused"},
        ]
    )
    _, final = await run(make_model(server))
    assert final["stopReason"] == "error"
    assert final["content"][0]["text"] == "first part o"  # what arrived before the break
    assert is_retryable_error(final)
    assert len(server.requests) == 1


@FORMATS
async def test_idle_timeout_keeps_the_partial_answer(server: FakeLLMServer, make_model: ModelFn) -> None:
    server.add_turns([{"text": "slow answer here", "chunk_size": 5, "stall_after": PREAMBLE[make_model] + 2}])
    _, final = await run(make_model(server), opts=options(timeout_s=1.0))
    assert final["stopReason"] == "error" and "timed out" in final["errorMessage"]
    assert final["content"][0]["text"] == "slow answe"


@FORMATS
async def test_abort_mid_stream_closes_the_socket(server: FakeLLMServer, make_model: ModelFn) -> None:
    server.add_turns(
        [{"text": "partial answer that never ends", "chunk_size": 8, "stall_after": PREAMBLE[make_model] + 2}]
    )
    controller = AbortController()
    s = stream(make_model(server), user_context(), options(signal=controller.signal))  # type: ignore[arg-type]
    kinds: list[str] = []
    aborted_at = 0.0
    async for event in s:
        kinds.append(event["type"])
        if event["type"] == "text_delta" and event["delta"] == "answer t" and not aborted_at:

            async def abort_soon() -> None:
                await asyncio.sleep(0.1)
                controller.abort()

            aborted_at = time.monotonic()
            asyncio.get_running_loop().create_task(abort_soon())
    final = await s.result()
    assert time.monotonic() - aborted_at < 2.0
    assert final["stopReason"] == "aborted" and final["errorMessage"] == "Request was aborted"
    assert final["content"][0]["text"] == "partial answer t"
    assert kinds[-1] == "error" and "done" not in kinds
    for _ in range(100):
        if server.requests[0]["client_closed"]:
            break
        await asyncio.sleep(0.01)
    assert server.requests[0]["client_closed"]


@FORMATS
async def test_abort_during_backoff(server: FakeLLMServer, make_model: ModelFn) -> None:
    server.add_turns([{"status": 503, "headers": {"retry-after": "20"}}, {"text": "never"}])
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.2, controller.abort)
    began = time.monotonic()
    _, final = await run(make_model(server), opts=options(signal=controller.signal, max_retry_delay_ms=60_000))
    assert final["stopReason"] == "aborted" and time.monotonic() - began < 5
    assert len(server.requests) == 1


@FORMATS
async def test_html_page_instead_of_a_stream(server: FakeLLMServer, make_model: ModelFn) -> None:
    server.add_turns([{"raw": "<html><body>Sign in</body></html>", "content_type": "text/html"}])
    _, final = await run(make_model(server))
    assert final["errorMessage"].startswith("Expected an event stream, got text/html")


async def test_break_after_the_finishing_gemini_chunk_keeps_the_answer(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "whole", "drop_after": 2}])  # text chunk + finishing chunk, then a broken body
    _, final = await run(google_model(server))
    assert final["stopReason"] == "stop" and final["content"][0]["text"] == "whole"
