"""SessionRecorder wired to a real Agent (faux provider): every finished message is on disk."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_cli.agent.agent import Agent
from pi_cli.agent.types import AgentToolResult
from pi_cli.ai.providers.faux import FauxProvider, faux_assistant, faux_tool_call, register_faux_provider
from pi_cli.store.entry_messages import convert_to_llm
from pi_cli.store.manager import SessionManager
from pi_cli.store.recorder import SessionRecorder


class EchoTool:
    name = "echo"
    label = "echo"
    description = "Echo the text back."
    execution_mode = None

    def __init__(self) -> None:
        self.parameters: dict[str, Any] = {
            "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
        }  # fmt: skip

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(self, tool_call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        return AgentToolResult(content=[{"type": "text", "text": args["text"]}])


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = register_faux_provider()
    yield provider
    provider.unregister()


async def test_agent_run_is_recorded_and_resumes(tmp_path: Path, faux: FauxProvider) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    model = faux.model()
    sm.append_model_change(model["provider"], model["id"])
    sm.append_thinking_level_change("off")
    agent = Agent(model=model, tools=[EchoTool()], convert_to_llm=convert_to_llm)
    recorder = SessionRecorder(sm)
    recorder.attach(agent)
    faux.set_responses([faux_assistant([faux_tool_call("echo", {"text": "hi"}, id="t1")]), faux_assistant("done")])
    await agent.prompt("say hi")
    assert sm.session_file is not None
    rows = [json.loads(r) for r in sm.session_file.read_text().splitlines()]
    roles = [r["message"]["role"] for r in rows if r["type"] == "message"]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    assert rows[-1]["message"]["content"][0]["text"] == "done"
    # Resume: the context equals what the agent holds.
    resumed = SessionManager.open(sm.session_file)
    assert resumed.build_context().messages == agent.state.messages
    # A second run in a resumed agent sees the whole history.
    agent2 = Agent(model=model, messages=resumed.build_context().messages, convert_to_llm=convert_to_llm)
    SessionRecorder(resumed).attach(agent2)
    faux.set_responses([faux_assistant("again")])
    await agent2.prompt("more")
    sent: Any = faux.requests[-1].context["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "toolResult", "assistant", "user"]
    assert len(SessionManager.open(sm.session_file).build_context().messages) == 6


def test_custom_messages_become_custom_message_entries(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    recorder = SessionRecorder(sm)
    recorder.on_event({"type": "message_end", "message": {"role": "custom", "customType": "n", "content": "c",
                                                           "display": True, "timestamp": 1}})  # fmt: skip
    recorder.on_event({"type": "message_start", "message": {"role": "user", "content": "x", "timestamp": 1}})
    recorder.on_event({"type": "message_end", "message": {"role": "bashExecution", "command": "ls"}})
    entries = sm.get_entries()
    assert [e["type"] for e in entries] == ["custom_message"]
    assert entries[0]["customType"] == "n"
