"""A Claude Pro/Max login's token on the wire: Bearer auth, Claude Code's identity and tool names."""

from __future__ import annotations

from .helpers import FakeLLMServer, anthropic_model, options, run, user_context

READ_TOOL = {"name": "read", "description": "Read a file", "parameters": {"type": "object", "properties": {}}}


async def test_oauth_token_requests_present_claude_code_and_names_map_back(server: FakeLLMServer) -> None:
    server.add_turns([{"tool_calls": [{"name": "Read", "arguments": {"path": "a.txt"}, "id": "toolu_1"}]}])
    context = user_context(tools=[READ_TOOL])
    context["messages"] = [
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "t0", "name": "read", "arguments": {}}],
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "t0", "toolName": "read", "content": [{"type": "text", "text": "x"}],
         "isError": False, "timestamp": 3},
    ]  # fmt: skip
    _events, final = await run(anthropic_model(server), context, options(api_key="sk-ant-oat01-secret"))
    request = server.requests[-1]
    headers, body = request["headers"], request["body"]
    assert headers["authorization"] == "Bearer sk-ant-oat01-secret" and "x-api-key" not in headers
    assert headers["anthropic-beta"].startswith("claude-code-20250219,oauth-2025-04-20")
    assert [b["text"] for b in body["system"]] == ["You are Claude Code, Anthropic's official CLI for Claude.",
                                                    "You are terse."]  # fmt: skip
    assert [t["name"] for t in body["tools"]] == ["Read"]
    assert body["messages"][1]["content"][0]["name"] == "Read"
    assert final["content"][0]["name"] == "read"


async def test_api_keys_keep_the_plain_request(server: FakeLLMServer) -> None:
    server.add_turns([{"text": "hi"}])
    await run(anthropic_model(server), user_context(tools=[READ_TOOL]))
    request = server.requests[-1]
    assert "authorization" not in request["headers"] and request["headers"]["x-api-key"]
    assert [b["text"] for b in request["body"]["system"]] == ["You are terse."]
    assert [t["name"] for t in request["body"]["tools"]] == ["read"]


async def test_copilot_token_picks_the_api_host_and_bearer_auth(server: FakeLLMServer) -> None:
    from pi_cli.ai.requests.copilot import base_url

    model = {"provider": "github-copilot", "baseUrl": "https://api.individual.githubcopilot.com"}
    token = "tid=1;exp=9;proxy-ep=proxy.business.githubcopilot.com;sku=x"
    assert base_url(model, token) == "https://api.business.githubcopilot.com"
    assert base_url(model, "tid=1;exp=9") == "https://api.individual.githubcopilot.com"
    server.add_turns([{"text": "hi"}])
    await run(anthropic_model(server, provider="github-copilot"), user_context(), options(api_key="tid=1;exp=9"))
    headers = server.requests[-1]["headers"]
    assert headers["authorization"] == "Bearer tid=1;exp=9" and "x-api-key" not in headers
    assert headers["x-initiator"] == "user" and headers["openai-intent"] == "conversation-edits"
