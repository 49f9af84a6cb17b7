"""Model and fixture helpers for the OpenAI Responses and Gemini wire tests."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .helpers import FakeLLMServer

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "wire"


def responses_model(srv: FakeLLMServer, **extra: Any) -> dict[str, Any]:
    model: dict[str, Any] = {
        "id": "gpt-5.4",
        "name": "GPT-5.4",
        "api": "openai-responses",
        "provider": "openai",
        "baseUrl": srv.openai_base_url,
        "reasoning": True,
        "thinkingLevelMap": {"off": None, "xhigh": "xhigh"},
        "input": ["text", "image"],
        "cost": {"input": 2.5, "output": 15.0, "cacheRead": 0.25, "cacheWrite": 0.0},
        "contextWindow": 272000,
        "maxTokens": 128000,
    }
    model.update(extra)
    return model


def google_model(srv: FakeLLMServer, **extra: Any) -> dict[str, Any]:
    model: dict[str, Any] = {
        "id": "gemini-2.5-pro",
        "name": "Gemini 2.5 Pro",
        "api": "google-generative-ai",
        "provider": "google",
        "baseUrl": srv.google_base_url,
        "reasoning": True,
        "input": ["text", "image"],
        "cost": {"input": 1.25, "output": 10.0, "cacheRead": 0.125, "cacheWrite": 0.0},
        "contextWindow": 1048576,
        "maxTokens": 65536,
    }
    model.update(extra)
    return model


def recorded(name: str) -> list[str]:
    """A recorded stream from tests/fixtures/wire, one write per SSE event (blank-line framed)."""
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [piece for piece in re.split(r"(?<=\r\n\r\n)|(?<=\n\n)", text) if piece]
