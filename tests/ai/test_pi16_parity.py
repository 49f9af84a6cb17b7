"""pi_cli against what pi 1.6.0 sent and returned (tests/fixtures/pi16/ai_tools.json, recorded by
tools/record_pi16.py; no Node needed here): the system prompt's role and tool ``strict`` per
provider and model, assistant-message fields (``rawStopReason``, ``durationMs``, usage
``reasoning``/``cacheWrite1h``, ``cost.totalFromProvider``), tool results (``structuredContent``,
bash's non-zero exit as an error result, edit's ``details.patch``) and aborted messages."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_cli.agent.tool_exec import execute_tool_calls
from pi_cli.agent.types import AgentContext
from pi_cli.ai.abort import AbortController
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.stream import stream
from pi_cli.tools import create_all_tools
from pi_cli.tools.edit import EditTool

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from fake_llm_server import FakeLLMServer  # noqa: E402

PI16 = json.loads((ROOT / "tests" / "fixtures" / "pi16" / "ai_tools.json").read_text())
VOLATILE = ("timestamp", "durationMs", "responseId")


def _models(base_url: str) -> dict[str, Any]:
    """The recorded models.json as pi_cli Model dicts, pointed at ``base_url``."""
    out: dict[str, Any] = {}
    for provider, spec in PI16["models_json"]["providers"].items():
        for entry in spec["models"]:
            url = spec["baseUrl"].replace("http://FAKE", base_url)
            out[f"{provider}/{entry['id']}"] = {
                "id": entry["id"], "name": entry["id"], "api": spec["api"], "provider": provider, "baseUrl": url,
                "reasoning": entry.get("reasoning", False), "input": ["text"],
                "cost": entry.get("cost", {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}),
                "contextWindow": 128_000, "maxTokens": 16_384,
            }  # fmt: skip
            if "compat" in entry:
                out[f"{provider}/{entry['id']}"]["compat"] = entry["compat"]
    return out


def _first_role(body: dict[str, Any]) -> str:
    if "system" in body:
        return "anthropic:system"
    if "systemInstruction" in body:
        return "google:systemInstruction"
    return str((body.get("messages") or body.get("input"))[0]["role"])


def _strict_sent(body: dict[str, Any]) -> bool:
    return any("strict" in tool or "strict" in (tool.get("function") or {}) for tool in body.get("tools") or [])


def _without(value: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k not in keys}


@pytest.fixture
async def server() -> Any:
    async with FakeLLMServer([]) as srv:
        yield srv


async def test_each_model_gets_pi16s_system_role_and_tool_strictness_and_message_fields(server: Any) -> None:
    models = _models(server.base_url)
    tool = {"name": "read", "description": "Read a file", "parameters": {"type": "object", "properties": {}}}
    context: Any = {"systemPrompt": "SYS", "messages": [{"role": "user", "content": "hi", "timestamp": 1}]}
    for name, recorded in PI16["requests"].items():
        server.add_turns([PI16["turns"][name]])
        s = stream(models[name], {**context, "tools": [tool]}, StreamOptions(api_key="sk-fake", max_tokens=1000))
        async for _ in s:
            pass
        ours = dict(await s.result())
        body = server.requests[-1]["body"]
        theirs = recorded["message"]
        assert _first_role(body) == _first_role(recorded["body"]), name
        assert _strict_sent(body) == _strict_sent(recorded["body"]) is False, name
        # The same fields in the same order, and the same values but for timing and ids.
        expected = _without(theirs, *VOLATILE, "thinkingLevel")
        assert list(_without(ours, *VOLATILE)) == list(expected), name
        assert _without(ours, *VOLATILE) == expected, name
        assert list(ours["usage"]) == list(theirs["usage"]), name
        assert list(ours["usage"]["cost"]) == list(theirs["usage"]["cost"]), name
        assert isinstance(ours["durationMs"], int) and ours["durationMs"] >= 0


async def test_tool_results_carry_pi16s_structured_content_patch_and_error_flag(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(PI16["file_text"])
    (tmp_path / "b.txt").write_text(PI16["file_text"])
    tools = create_all_tools(str(tmp_path))
    context = AgentContext("", [], [tools[name] for name in ("read", "bash", "edit")])
    calls: list[Any] = [{"type": "toolCall", **call} for call in PI16["tool_calls"]]
    reply: Any = {"role": "assistant", "content": calls, "stopReason": "toolUse"}
    events: list[dict[str, Any]] = []

    async def emit(event: dict[str, Any]) -> None:
        events.append(event)

    await execute_tool_calls(context, reply, calls, mode="parallel", before=None, after=None, signal=None, emit=emit)
    run = PI16["tool_run"]

    for event in (e for e in events if e["type"] == "tool_execution_end"):
        recorded = run["tool_execution_end"][event["toolCallId"]]
        ours, theirs = _without(event, "durationMs"), _without(recorded, "durationMs")
        for side in (ours, theirs):
            structured = side["result"].get("structuredContent")
            if isinstance(structured, dict):  # the wall time differs from run to run
                assert isinstance(structured.pop("wall_time_seconds"), float | int)
        assert json.dumps(ours) == json.dumps(theirs), event["toolCallId"]  # key order included
    for message in (e["message"] for e in events if e["type"] == "message_end"):
        recorded = run["tool_results"][message["toolCallId"]]
        assert json.dumps(_without(message, *VOLATILE)) == json.dumps(_without(recorded, *VOLATILE))
    assert (tmp_path / "b.txt").read_text() == run["b.txt"]


@pytest.mark.parametrize("case", PI16["edit_cases"], ids=[case["name"] for case in PI16["edit_cases"]])
async def test_edit_details_match_pi16s_byte_for_byte(tmp_path: Path, case: dict[str, Any]) -> None:
    (tmp_path / "f.txt").write_bytes(case["text"].encode())
    result = await EditTool(str(tmp_path)).execute("id", {"path": "f.txt", "edits": case["edits"]})
    assert json.dumps(result.details) == json.dumps(case["details"])


async def test_an_aborted_tool_batch_ends_with_pi16s_closing_message() -> None:
    from pi_cli.agent.loop import AgentLoopConfig, run_agent_loop

    recorded = PI16["bash_abort"]["assistant_ends"][-1]
    controller = AbortController()
    model: Any = {"id": "fake-model", "api": "openai-completions", "provider": "fake", "cost": {}}
    messages: list[Any] = []

    def stream_fn(model: Any, context: Any, options: Any) -> Any:
        from pi_cli.ai.event_stream import AssistantMessageEventStream
        from pi_cli.ai.transport.provider_common import new_output

        async def events() -> Any:
            output = new_output(model)
            output["content"] = [{"type": "toolCall", "id": "t1", "name": "slow", "arguments": {}}]
            output["stopReason"] = "toolUse"
            yield {"type": "start", "partial": output}
            yield {"type": "done", "reason": "toolUse", "message": output}

        return AssistantMessageEventStream(events())

    class Slow:
        name, label, description, parameters, execution_mode = "slow", "slow", "", {"type": "object"}, None

        async def execute(self, call_id: str, args: Any, signal: Any, on_update: Any) -> Any:
            controller.abort()
            await asyncio.sleep(0)
            raise RuntimeError("Command aborted")

    async def emit(event: dict[str, Any]) -> None:
        if event["type"] == "message_end" and event["message"]["role"] == "assistant":
            messages.append(event["message"])

    context = AgentContext("", [], [Slow()])  # type: ignore[list-item]
    prompt: Any = {"role": "user", "content": "go", "timestamp": 1}
    await run_agent_loop([prompt], context, AgentLoopConfig(model=model), emit, controller.signal, stream_fn)
    closing = messages[-1]
    assert list(_without(closing, *VOLATILE)) == list(_without(recorded, *VOLATILE))
    for key in ("stopReason", "errorMessage", "thinkingLevel", "content"):
        assert closing[key] == recorded[key], key
    assert closing["durationMs"] == 0  # no request is made: pi's took about nothing


async def test_a_stream_aborted_mid_answer_keeps_its_thinking_level(server: Any) -> None:
    from pi_cli.agent.agent import Agent

    recorded = PI16["stream_abort"]["assistant_ends"][-1]
    model = _models(server.base_url)["fake/fake-think"]
    server.add_turns([{"text": "a long answer that stalls", "chunk_size": 4, "stall_after": 3}])
    agent = Agent(model=model, thinking_level="high", get_api_key=lambda provider: "sk-fake")
    ends: list[dict[str, Any]] = []

    def listener(event: dict[str, Any], signal: Any) -> None:
        if event["type"] == "message_update" and not ends:
            agent.abort()
        if event["type"] == "message_end" and event["message"]["role"] == "assistant":
            ends.append(event["message"])

    agent.subscribe(listener)
    await agent.prompt("talk")
    ours = ends[-1]
    assert list(_without(ours, *VOLATILE)) == list(_without(recorded, *VOLATILE))
    for key in ("stopReason", "errorMessage", "thinkingLevel"):
        assert ours[key] == recorded[key], key
    assert isinstance(ours["durationMs"], int)
