"""Provider HTTP errors read as pi 1.6.0 writes them, for each API (recorded fixture, no Node).

tests/fixtures/pi16/http_errors.json holds pi's ``errorMessage`` per model and error case, recorded
by tools/record_pi16_http_errors.py against tools/fake_llm_server.py; here pi_cli's providers meet
the same fake responses. pi_cli adds a key hint after a 401 (README: "Where pi_cli differs").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.options import StreamOptions

from .format_models import google_model, responses_model
from .helpers import API_KEY, FakeLLMServer, anthropic_model, openai_model, run

RECORDED = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "pi16" / "http_errors.json").read_text())
# pi's recording names models by their models.json provider; the error text carries that name.
MAKERS = {
    "fake/fake-model": (openai_model, "fake"),
    "fake-resp/resp-plain": (responses_model, "fake-resp"),
    "fake-ant/claude-fake": (anthropic_model, "fake-ant"),
    "fake-goog/gemini-fake": (google_model, "fake-goog"),
}


@pytest.mark.parametrize("key", sorted(RECORDED["results"]))
async def test_error_text_matches_pi(server: FakeLLMServer, key: str) -> None:
    model_name, case = key.split(" ")
    make, provider = MAKERS[model_name]
    server.add_turns([RECORDED["cases"][case]])
    # Default options: no provider-level retries, as pi's retry.provider.maxRetries = 0.
    _, final = await run(make(server, provider=provider), opts=StreamOptions(api_key=API_KEY, timeout_s=10.0))
    expected: Any = RECORDED["results"][key]
    message = final["errorMessage"]
    if case == "401":
        assert message.startswith(expected["errorMessage"] + ". Check the API key")
    else:
        assert message == expected["errorMessage"]
    assert len(server.requests) == expected["requests"]
