"""openai-completions HTTP errors read as pi 1.6.0 writes them (measured against pi 1.6.0 driven by
tools/fake_llm_server.py: these are its ``errorMessage``s and ``auto_retry_start.errorMessage``s)."""

from __future__ import annotations

import pytest

from pi_cli.ai.transport.http_errors import format_http_error


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (500, '{"error":{"message":"fake error 500"}}', '500: {"message":"fake error 500"}'),
        (429, "plain text body", "429 plain text body"),
        (
            503,
            '{"error": {"message": "Overloaded", "type": "overloaded_error"}}',
            '503: {"message":"Overloaded","type":"overloaded_error"}',
        ),
        (502, "", "502 status code (no body)"),
        (400, '{"error": "boom"}', '400 "boom"'),
    ],
)
def test_openai_completions_errors_in_pi_form(status: int, body: str, expected: str) -> None:
    assert format_http_error(status, body, "fake", style="openai-sdk") == expected


def test_401_keeps_the_key_hint_after_pis_text() -> None:
    text = format_http_error(401, '{"error":{"message":"bad key"}}', "groq", style="openai-sdk")
    assert text.startswith('401: {"message":"bad key"}. Check the API key: set GROQ_API_KEY')
