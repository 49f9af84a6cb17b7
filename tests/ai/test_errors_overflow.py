"""Error formatting, secret redaction, overflow and retry classification."""

from __future__ import annotations

from typing import Any

import pytest

from pi_cli.ai.overflow import is_context_overflow, is_retryable_error
from pi_cli.ai.transport.http_errors import format_http_error, format_stream_error, redact


def _failed(message: str) -> dict[str, Any]:
    return {"stopReason": "error", "errorMessage": message, "usage": {"input": 0, "output": 0, "cacheRead": 0}}


def test_openai_style_uses_error_message_and_openrouter_raw() -> None:
    body = '{"error": {"message": "Provider returned error", "metadata": {"raw": "upstream said no"}}}'
    assert format_http_error(502, body, "openrouter") == (
        "502 Provider returned error (provider: openrouter)\nupstream said no"
    )


def test_anthropic_style_keeps_the_body_and_empty_bodies() -> None:
    body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    assert format_http_error(529, body, "anthropic", style="anthropic").startswith(f"529 {body}")
    assert format_http_error(413, "", "cerebras").startswith("413 status code (no body)")
    assert format_http_error(500, "<html>oops</html>", "x").startswith("500 <html>oops</html>")


def test_long_bodies_are_cut() -> None:
    assert len(format_http_error(500, "x" * 50_000, "p")) < 1100


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Bearer sk-abcdefghijklmnopqrstuv",
        '{"x-api-key": "sk-ant-api03-abcdefghijklmnop"}',
        "GET https://host/v1/models?key=AIzaSyA-very-secret&alt=sse",
        "api_key=abcd1234efgh",
        "leaked sk-proj-ABCDEFGHIJKLMNOPQRST in text",
        "API key not valid: AIzaSyABCDEFGHIJKLMNOPQRSTUVWXYZ0123456 (provider: google)",
        "token eyJhbGciOiJSUzI1NiJ9.eyJhY2NvdW50IjoiYWNjdCJ9.abcdefghijklmnopqrstuv expired",
    ],
)
def test_redaction_patterns(text: str) -> None:
    cleaned = redact(text)
    assert "***" in cleaned
    for secret in ("abcdefghijklmnopqrstuv", "api03", "very-secret", "abcd1234", "ABCDEFGHIJKLMNOP"):
        assert secret not in cleaned


def test_redaction_of_known_secret() -> None:
    assert redact("token hunter2x used", ["hunter2x"]) == "token *** used"


def test_stream_error_object() -> None:
    message = format_stream_error({"message": "Upstream error", "code": 502, "metadata": {"raw": "r"}}, "or")
    assert message.startswith("502 Upstream error\nr")


@pytest.mark.parametrize(
    "message",
    [
        "400 prompt is too long: 213462 tokens > 200000 maximum",
        '413 {"type":"error","error":{"type":"request_too_large"}}',
        "400 This model's maximum context length is 128000 tokens. However, you requested 130000",
        "400 Your input exceeds the context window of this model",
        "400 Please reduce the length of the messages or completion.",
        "413 status code (no body)",
        "400 (no body)",
        "500 prompt too long; exceeded max context length by 100 tokens",
        "context_length_exceeded",
        "context_length_exceeded: Your input exceeds the context window of this model. (provider: openai)",
        "400 The input token count (1312554) exceeds the maximum number of tokens allowed (1048576).",
    ],
)
def test_overflow_messages(message: str) -> None:
    assert is_context_overflow(_failed(message))
    assert not is_retryable_error(_failed(message))


@pytest.mark.parametrize(
    "message",
    [
        "429 Too many tokens, rate limit exceeded",
        "Throttling error: Too many tokens, please wait",
        "401 invalid api key",
    ],
)
def test_not_overflow(message: str) -> None:
    assert not is_context_overflow(_failed(message))


def test_silent_and_truncation_overflow() -> None:
    silent = {"stopReason": "stop", "usage": {"input": 150_000, "cacheRead": 60_000, "output": 10}}
    assert is_context_overflow(silent, 200_000) and not is_context_overflow(silent, 300_000)
    truncated = {"stopReason": "length", "usage": {"input": 199_000, "cacheRead": 0, "output": 0}}
    assert is_context_overflow(truncated, 200_000)
    assert not is_context_overflow({**truncated, "usage": {**truncated["usage"], "output": 5}}, 200_000)


@pytest.mark.parametrize(
    ("message", "retry"),
    [
        ('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', True),
        ("429 Rate limit reached for requests", True),
        ("503 Service Unavailable (provider: x)", True),
        ("Connection error. (provider: x: peer closed connection)", True),
        ("Request timed out. (provider: x)", True),
        ("Stream ended without finish_reason (provider: x)", True),
        ("Anthropic stream ended before message_stop (provider: anthropic)", True),
        ("401 Incorrect API key provided", False),
        ("404 model not found", False),
        ("Provider finish_reason: content_filter", False),
    ],
)
def test_retryable_classifier(message: str, retry: bool) -> None:
    assert is_retryable_error(_failed(message)) is retry
    assert not is_retryable_error({"stopReason": "aborted", "errorMessage": message})
