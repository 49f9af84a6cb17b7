"""The front-end-neutral text of a call, the usage roll-up (whole messages and a huge session's
stubs), and what ACP shows of a subagent call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_cli.modes.acp.tool_calls import tool_kind, tool_title
from pi_cli.modes.acp.updates import UpdateTranslator
from pi_cli.session.subagents.display import card_lines, child_line, progress_text, result_text, tool_summary
from pi_cli.store.slim.lazy_context import tally_stubs
from pi_cli.store.slim.message_index import CHILD_USAGE, message_facts
from pi_cli.store.stats import tally_messages

CHILD: dict[str, Any] = {
    "label": "scout",
    "agent": "scout",
    "task": "map the parser",
    "status": "running",
    "currentTool": {"name": "grep", "summary": "def parse in src"},
    "lastLine": "Looking at the entry point",
    "usage": {"input": 1234, "output": 56, "cacheRead": 0, "cacheWrite": 0, "cost": 0.01, "turns": 1},
    "startedAt": 1_000_000,
    "elapsedMs": 0,
}


def test_child_line_names_the_running_tool_tokens_elapsed_and_last_line() -> None:
    line = child_line(CHILD, now_ms=1_012_500)
    assert line == "▸ scout  grep def parse in src  ↑1.2k ↓56  12s  — Looking at the entry point"
    done = child_line({**CHILD, "status": "done", "elapsedMs": 65_000})
    assert done.startswith("✓ scout  done  ↑1.2k ↓56  1m05s") and "—" not in done
    failed = child_line({**CHILD, "status": "error", "error": "no key"})
    assert "✗ scout  failed: no key" in failed


def test_card_lines() -> None:
    card = card_lines({**CHILD, "model": "fx/big"}, now_ms=1_012_500)
    assert card == [
        "▸ scout · fx/big · ↑1.2k ↓56 · 12s",
        "map the parser",
        "grep def parse in src",
        "Looking at the entry point",
    ]
    assert card_lines({**CHILD, "status": "done", "elapsedMs": 3000})[2:] == ["done"]


def test_progress_and_result_text() -> None:
    details = {"mode": "parallel", "results": [CHILD, {**CHILD, "label": "worker", "status": "done"}]}
    text = progress_text(details, now_ms=1_001_000)
    assert text.splitlines()[0] == "Subagents: 1/2 finished" and len(text.splitlines()) == 3
    result = result_text(
        [{**CHILD, "status": "done"}, {**CHILD, "label": "worker", "status": "aborted"}], ["ANSWER", "half"]
    )
    assert result == (
        "## scout (done)\nTask: map the parser\n\nANSWER\n\n"
        "## worker (aborted)\nTask: map the parser\n\n(aborted; what it had so far)\nhalf"
    )


def test_tool_summary() -> None:
    assert tool_summary("bash", {"command": "make test\nmore"}) == "make test"
    assert tool_summary("read", {"path": "a.py"}) == "a.py"
    assert tool_summary("subagent", {"tasks": [{"agent": "a"}, {"agent": "b"}]}) == "a, b"


def subagent_result(inputs: list[int], cost: float) -> dict[str, Any]:
    results = [{"usage": {"input": n, "output": 1, "cacheRead": 2, "cacheWrite": 0, "cost": cost}} for n in inputs]
    return {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "subagent",
        "content": [{"type": "text", "text": "x"}],
        "details": {"mode": "parallel", "results": results},
        "isError": False,
        "timestamp": 1,
    }


def test_children_usage_rolls_up_in_whole_messages_and_in_stubs() -> None:
    assistant = {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "c1", "name": "subagent", "arguments": {}}],
        "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}},
    }
    other = {"role": "toolResult", "toolName": "bash", "details": {"results": [{"usage": {"input": 999}}]}}
    messages = [assistant, subagent_result([100, 200], 0.25), other]
    _counts, calls, tok, cost = tally_messages(messages)
    assert tok["input"] == 310 and tok["cacheRead"] == 4 and cost == 1.0 and calls == 1
    text = json.dumps(subagent_result([100, 200], 0.25)).encode()
    stub = message_facts(text, 0)
    assert stub is not None and stub[CHILD_USAGE][0]["input"] == 300
    assert "details" not in stub and "toolName" not in stub
    bash_stub = message_facts(json.dumps(other).encode(), 0)
    assert bash_stub is not None and CHILD_USAGE not in bash_stub
    assert tally_stubs([stub, bash_stub])[2]["input"] == 300


async def test_acp_shows_a_subagent_call_as_a_card_with_a_line_per_child(tmp_path: Path) -> None:
    args = {"tasks": [{"agent": "scout", "task": "a"}, {"agent": "worker", "task": "b"}]}
    assert tool_title("subagent", args) == "Subagents: scout, worker"
    assert (
        tool_title("subagent", {"agent": "scout", "task": "map the parser\nmore"}) == "Subagent scout: map the parser"
    )
    assert tool_kind("subagent") == "think"
    sent: list[dict[str, Any]] = []

    async def send(update: dict[str, Any]) -> None:
        sent.append(update)

    translator = UpdateTranslator(send, tmp_path, lambda: None)
    details = {"mode": "parallel", "results": [CHILD]}
    partial = {"content": [{"type": "text", "text": progress_text(details, now_ms=1_003_000)}], "details": details}
    await translator.on_event(
        {"type": "tool_execution_update", "toolCallId": "c1", "toolName": "subagent", "args": args,
         "partialResult": partial}
    )  # fmt: skip
    (update,) = sent
    assert update["sessionUpdate"] == "tool_call_update"
    text = update["content"][0]["content"]["text"]
    assert "▸ scout  grep def parse in src" in text


async def test_acp_permission_card_of_a_childs_call_names_the_child() -> None:
    from acp.schema import AllowedOutcome, RequestPermissionResponse

    from pi_cli.agent.tool_exec import AgentScope, current_agent, current_tool_call
    from pi_cli.modes.acp.permissions import AcpApprovals

    asked: list[Any] = []

    class Conn:
        async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
            asked.append(tool_call)
            return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="0"))

    dialogs = AcpApprovals(lambda: Conn(), "s1")
    scope = current_agent.set(AgentScope("reviewer", "/tmp"))
    call = current_tool_call.set({"toolCallId": "child-1", "toolName": "bash", "input": {"command": "make"}})
    try:
        chosen = await dialogs.select("[reviewer] Allow bash?\n  make", ["Allow once", "Deny"])
    finally:
        current_tool_call.reset(call)
        current_agent.reset(scope)
    assert chosen == "Allow once"
    assert asked[0].title == "[reviewer] make"
