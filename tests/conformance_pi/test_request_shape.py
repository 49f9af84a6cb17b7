"""What reaches the model, as pi 0.73.1 sends it.

* pi's agent calls streamSimple, so every request asks for ``min(model.maxTokens, 32000)`` output
  tokens (``max_completion_tokens: 16384`` for a models.json model with defaults).
* Replayed assistant tool calls carry their arguments as ``JSON.stringify`` text (no spaces).
"""

from __future__ import annotations

from typing import Any

from pi_cli.agent.agent import Agent
from pi_cli.ai.providers.faux import faux_assistant, faux_text, register_faux_provider
from pi_cli.ai.requests.openai_compat import resolve_compat
from pi_cli.ai.requests.openai_completions import convert_messages


async def _max_tokens_for(model_max: int, explicit: int | None = None) -> int | None:
    faux = register_faux_provider(models=[{"id": "m", "maxTokens": model_max}])  # type: ignore[list-item]
    try:
        faux.set_responses([faux_assistant([faux_text("ok")])])
        agent = Agent(model=faux.model())
        if explicit is not None:
            agent.stream_options.max_tokens = explicit
        await agent.prompt("hi")
        value: int | None = faux.requests[0].options.max_tokens
        return value
    finally:
        faux.unregister()


async def test_agent_requests_min_of_model_max_tokens_and_32000() -> None:
    assert await _max_tokens_for(16384) == 16384
    assert await _max_tokens_for(128000) == 32000
    assert await _max_tokens_for(128000, explicit=500) == 500


def test_replayed_tool_call_arguments_are_compact_json() -> None:
    model: Any = {"id": "m", "provider": "fake", "api": "openai-completions", "baseUrl": "http://x/v1",
                  "input": ["text"], "reasoning": False}  # fmt: skip
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "echo é", "n": [1, 2]}}
    assistant = {"role": "assistant", "content": [call], "stopReason": "toolUse", "api": "openai-completions",
                 "provider": "fake", "model": "m"}  # fmt: skip
    context: Any = {"systemPrompt": "S", "messages": [{"role": "user", "content": "go"}, assistant]}
    messages = convert_messages(model, context, resolve_compat(model))
    replayed = [m for m in messages if m["role"] == "assistant"]
    arguments = replayed[0]["tool_calls"][0]["function"]["arguments"]
    assert arguments == '{"command":"echo é","n":[1,2]}'
