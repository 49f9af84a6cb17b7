"""Aborting the parent during a child's long bash ends the child's processes and returns what the
children had; a child's approval dialog (ask mode) names the child; the gate judges a child in
another folder from there."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

from pi_cli.agent.tool_exec import AgentScope, current_agent
from pi_cli.ai.providers.faux import FauxProvider, faux_assistant, faux_tool_call
from pi_cli.permissions.gate import ALLOW_ONCE, DENY, PermissionGate
from pi_cli.permissions.policy import RuleSet
from pi_cli.permissions.rules import parse_rule

from .harness import Script, answer, delegate, last_text, parent_session

GUARD_S = 20.0  # bounds on waiting for something to happen; never asserted as a duration


async def until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + GUARD_S
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        await asyncio.sleep(0.02)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_abort_during_a_childs_long_bash_ends_it_and_returns_what_they_had(
    project: Path, faux: FauxProvider, tmp_path: Path
) -> None:
    pid_file = tmp_path / "sleep.pid"
    command = f"sleep 60 & echo $! > {pid_file}; wait"

    def worker(context: dict[str, Any], count: int) -> Any:
        return faux_assistant([faux_tool_call("bash", {"command": command}, id="long")])

    tasks = {"tasks": [{"agent": "worker", "task": "run the long job"}, {"agent": "scout", "task": "quick look"}]}
    Script(faux, {"parent": delegate(tasks), "worker": worker, "scout": answer("SCOUT-HAD-THIS")})
    parent = parent_session(project, faux, tmp_path)
    events: list[dict[str, Any]] = []
    parent.subscribe(events.append)
    run = asyncio.ensure_future(parent.prompt("go"))

    def bash_shown() -> bool:
        for event in events:
            if event["type"] == "tool_execution_update":
                child = event["partialResult"]["details"]["results"][0]
                if (child.get("currentTool") or {}).get("name") == "bash":
                    return True
        return False

    await until(lambda: pid_file.exists() and pid_file.read_text().strip(), "the child's bash to start")
    await until(bash_shown, "progress naming the running bash")
    pid = int(pid_file.read_text())
    assert alive(pid)
    await parent.abort()
    await asyncio.wait_for(run, GUARD_S)

    await until(lambda: not alive(pid), "the child's sleep to end")  # killed with its process group
    result = [m for m in parent.messages if m.get("role") == "toolResult"][-1]
    worker_run, scout_run = result["details"]["results"]
    assert worker_run["status"] == "aborted"
    assert scout_run["status"] == "done"
    text = result["content"][0]["text"]
    assert "## worker (aborted)" in text and "SCOUT-HAD-THIS" in text
    update = next(e for e in events if e["type"] == "tool_execution_update")
    assert isinstance(update["partialResult"]["details"]["results"][0]["elapsedMs"], int)


class RecordingUI:
    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.titles: list[str] = []

    async def select(self, title: str, options: list[str]) -> str | None:
        self.titles.append(title)
        return self.answer

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        return None


async def test_a_childs_approval_in_ask_mode_names_the_child(project: Path, faux: FauxProvider, tmp_path: Path) -> None:
    def reviewer(context: dict[str, Any], count: int) -> Any:
        if count == 0:
            return faux_assistant([faux_tool_call("bash", {"command": "echo approved-$((40+2))"}, id="b1")])
        return faux_assistant(f"saw: {last_text(context)}")

    script = Script(faux, {"parent": delegate({"agent": "reviewer", "task": "run it"}), "reviewer": reviewer})
    parent = parent_session(project, faux, tmp_path, permissions="ask")
    assert parent.permissions is not None
    ui = RecordingUI(ALLOW_ONCE)
    parent.permissions.ui = ui
    await parent.prompt("go")
    assert len(ui.titles) == 1, ui.titles  # the subagent call itself asks nothing; the child's bash does
    assert ui.titles[0].splitlines()[0] == "[reviewer] Allow bash?"
    assert "approved-42" in last_text(script.requests("reviewer")[1])


async def test_a_denied_child_call_reaches_the_child_as_a_refusal(
    project: Path, faux: FauxProvider, tmp_path: Path
) -> None:
    def reviewer(context: dict[str, Any], count: int) -> Any:
        if count == 0:
            return faux_assistant([faux_tool_call("bash", {"command": "touch nope"}, id="b1")])
        return faux_assistant("ok")

    script = Script(faux, {"parent": delegate({"agent": "reviewer", "task": "try"}), "reviewer": reviewer})
    parent = parent_session(project, faux, tmp_path, permissions="ask")
    assert parent.permissions is not None
    parent.permissions.ui = RecordingUI(DENY)
    await parent.prompt("go")
    assert "Permission denied" in last_text(script.requests("reviewer")[1])
    assert not (project / "nope").exists()


async def test_the_gate_judges_a_child_in_another_folder_from_there(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "sub").mkdir(parents=True)
    rules = RuleSet(deny=[parse_rule("write(secret/**)")])
    gate = PermissionGate(cwd=str(project), mode="auto", rules=rules)
    token = current_agent.set(AgentScope("worker", str(project / "sub")))
    try:
        refused = await gate.check("write", {"path": "../secret/key", "content": "x"}, None)
        allowed = await gate.check("write", {"path": "notes.txt", "content": "x"}, None)
    finally:
        current_agent.reset(token)
    assert refused is not None and "denied" in refused
    assert allowed is None
    # the same relative path from the session's own folder is outside the rule
    assert await gate.check("write", {"path": "../secret/key", "content": "x"}, None) is None
