"""``pi -p`` end to end on the Responses and Gemini formats: a tool call, its result, the answer.

The built-in ``openai`` and ``google`` providers are pointed at the fake server through models.json
(as a user would point them at a proxy). The second request must carry the first answer back in
the format's own shape: the reasoning item / thought signatures, the call, and the tool's output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .pi_harness import FakeLLMServer, PiEnv


def _env(tmp_path: Path, server: FakeLLMServer) -> PiEnv:
    env = PiEnv(tmp_path, server)
    models = json.loads((env.agent_dir / "models.json").read_text())
    models["providers"]["openai"] = {"baseUrl": server.openai_base_url, "apiKey": "sk-openai-test"}
    models["providers"]["google"] = {"baseUrl": server.google_base_url, "apiKey": "gemini-test-key"}
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    (env.cwd / "notes.txt").write_text("the port is 8080\n")
    return env


def _turns(**call_extra: Any) -> list[dict[str, Any]]:
    call = {"name": "read", "arguments": {"path": "notes.txt"}, "id": "call-1", **call_extra}
    return [{"thinking": "Read the notes.", "tool_calls": [call]}, {"text": "The port is 8080."}]


def test_openai_responses_tool_round_trip(tmp_path: Path, server: FakeLLMServer) -> None:
    env = _env(tmp_path, server)
    server.add_turns(_turns())
    result = env.run("--model", "openai/gpt-5.4", "--thinking", "medium", "-p", "which port?", model=False)
    assert result.returncode == 0, result.stderr
    assert "The port is 8080." in result.stdout
    replay = server.requests[1]["body"]["input"]
    kinds = [item.get("type") or item.get("role") for item in replay]
    assert kinds == ["developer", "user", "reasoning", "function_call", "function_call_output"]
    assert replay[2]["encrypted_content"] == "enc-1"
    assert replay[3]["call_id"] == "call-1" and replay[3]["id"] == "fc_fake_1_0"
    assert replay[4]["call_id"] == "call-1" and "the port is 8080" in replay[4]["output"]


def test_gemini_tool_round_trip(tmp_path: Path, server: FakeLLMServer) -> None:
    env = _env(tmp_path, server)
    server.add_turns(_turns(thought_signature="c2lnLWNhbGw="))
    result = env.run("--model", "google/gemini-3-pro-preview", "--thinking", "high", "-p", "which port?", model=False)
    assert result.returncode == 0, result.stderr
    assert "The port is 8080." in result.stdout
    second = server.requests[1]
    assert second["headers"]["x-goog-api-key"] == "gemini-test-key"
    contents = second["body"]["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[1]["parts"] == [
        {"thought": True, "text": "Read the notes.", "thoughtSignature": "c2lnLTE="},
        {
            "functionCall": {"name": "read", "args": {"path": "notes.txt"}, "id": "call-1"},
            "thoughtSignature": "c2lnLWNhbGw=",
        },
    ]
    response = contents[2]["parts"][0]["functionResponse"]
    assert response["name"] == "read" and response["id"] == "call-1"
    assert "the port is 8080" in response["response"]["output"]
    assert second["body"]["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "HIGH"}
