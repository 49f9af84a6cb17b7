"""OpenAI Codex (``openai-codex-responses``, a ChatGPT login's models) against the fake server."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

from pi_cli.ai.models import get_model

from .format_models import recorded
from .helpers import FakeLLMServer, options, run, user_context


def _token(claims: dict[str, Any]) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part({'alg': 'RS256'})}.{part(claims)}.c2lnbmF0dXJl"


TOKEN = _token({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-7f3e"}, "exp": 9999999999})


def codex_model(srv: FakeLLMServer) -> dict[str, Any]:
    model = get_model("openai-codex", "gpt-5.4")
    assert model is not None and model["api"] == "openai-codex-responses"
    return {**model, "baseUrl": srv.base_url + "/backend-api"}


async def test_request_shape_and_a_recorded_answer(server: FakeLLMServer) -> None:
    server.add_turns([{"raw": recorded("openai_responses_reasoning_tool.sse")}])
    tools = [{"name": "read", "description": "Read a file", "parameters": {"type": "object"}}]
    _, final = await run(
        codex_model(server), user_context(tools=tools), options(api_key=TOKEN, reasoning="minimal", session_id="s-9")
    )
    assert final["stopReason"] == "toolUse" and final["content"][2]["name"] == "read"
    request = server.requests[0]
    assert request["path"] == "/backend-api/codex/responses"
    headers = request["headers"]
    assert headers["chatgpt-account-id"] == "acct-7f3e"
    assert headers["originator"] == "pi" and headers["openai-beta"] == "responses=experimental"
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["session_id"] == "s-9"
    body = request["body"]
    assert body["instructions"] == "You are terse."
    assert body["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "hello"}]}]
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}  # gpt-5.4 maps minimal → low
    assert body["tools"][0]["strict"] is None and body["parallel_tool_calls"] is True
    assert body["prompt_cache_key"] == "s-9"


async def test_response_done_is_the_terminal_event(server: FakeLLMServer) -> None:
    raw = [
        'data: {"type":"response.output_item.added","output_index":0,'
        '"item":{"id":"msg_1","type":"message","content":[]}}\n\n',
        'data: {"type":"response.output_text.delta","output_index":0,"delta":"hi"}\n\n',
        'data: {"type":"response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message"}}\n\n',
        'data: {"type":"response.done","response":{"status":"weird","usage":{"input_tokens":9,"output_tokens":2}}}\n\n',
    ]
    server.add_turns([{"raw": raw}])
    _, final = await run(codex_model(server), opts=options(api_key=TOKEN))
    assert final["stopReason"] == "stop" and final["content"][0]["text"] == "hi"
    assert final["usage"]["input"] == 9


async def test_codex_error_wording_and_usage_limit(server: FakeLLMServer) -> None:
    resets = int(time.time()) + 1800
    limit = {"error": {"type": "usage_limit_reached", "message": "limit", "plan_type": "PLUS", "resets_at": resets}}
    server.add_turns(
        [
            {"text": "x", "error_event": {"code": "server_is_overloaded", "message": "Our servers are busy"}},
            {"status": 429, "body": limit, "headers": {"x-should-retry": "false"}},
        ]
    )
    _, errored = await run(codex_model(server), opts=options(api_key=TOKEN))
    assert errored["errorMessage"] == "Codex error: Our servers are busy (provider: openai-codex)"
    _, limited = await run(codex_model(server), opts=options(api_key=TOKEN))
    assert limited["errorMessage"].startswith("429 You have hit your ChatGPT usage limit (plus plan). Try again in ~")


async def test_token_without_account_is_one_clear_line(server: FakeLLMServer) -> None:
    _, final = await run(codex_model(server), opts=options(api_key="not-a-jwt"))
    assert final["stopReason"] == "error"
    assert final["errorMessage"].startswith("The OpenAI Codex token carries no ChatGPT account id")
    assert server.requests == []
