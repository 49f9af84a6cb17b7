"""The approval gate: every prompt answer, refused results the model reads, abort while asking."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.abort import AbortController
from pi_cli.permissions.gate import ALLOW_ONCE, DENY, DENY_WITH_MESSAGE, PermissionGate, gate_for_session
from pi_cli.permissions.trust_store import TrustStore


class FakeUI:
    """Answers ``select`` with the option starting with ``pick`` and ``input`` with ``message``."""

    def __init__(self, pick: str | None, message: str | None = None) -> None:
        self.pick, self.message = pick, message
        self.titles: list[str] = []
        self.options: list[list[str]] = []

    async def select(self, title: str, options: list[str]) -> str | None:
        self.titles.append(title)
        self.options.append(options)
        return next((o for o in options if self.pick and o.startswith(self.pick)), None)

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        self.titles.append(title)
        return self.message


@pytest.fixture
def gate(tmp_path: Path) -> PermissionGate:
    (tmp_path / "proj").mkdir()
    return PermissionGate(cwd=str(tmp_path / "proj"), mode="ask", agent_dir=str(tmp_path / "agent"))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_allow_once_runs_and_asks_again(gate: PermissionGate) -> None:
    ui = FakeUI(ALLOW_ONCE)
    assert run(gate.check("bash", {"command": "git status"}, ui)) is None
    assert run(gate.check("bash", {"command": "git status"}, ui)) is None
    assert len(ui.titles) == 2
    assert ui.titles[0].startswith("Allow bash?\n$ git status")
    assert ui.options[0] == [ALLOW_ONCE, "Allow always (bash(git status*))", DENY, DENY_WITH_MESSAGE]


def test_allow_always_saves_the_pattern_and_stops_asking(gate: PermissionGate, tmp_path: Path) -> None:
    ui = FakeUI("Allow always")
    assert run(gate.check("bash", {"command": "git status -s"}, ui)) is None
    saved = json.loads((tmp_path / "agent" / "settings.json").read_text())
    assert saved == {"permissions": {"allow": ["bash(git status*)"]}}
    assert run(gate.check("bash", {"command": "git status"}, FakeUI(None))) is None
    assert len(ui.titles) == 1
    # Untrusted project: file rules are saved absolute to the user settings.
    run(gate.check("edit", {"path": "a.py", "edits": []}, ui))
    saved = json.loads((tmp_path / "agent" / "settings.json").read_text())
    assert saved["permissions"]["allow"][-1] == f"edit({gate.cwd}/a.py)"


def test_allow_always_in_a_trusted_project_saves_to_the_project(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    gate = PermissionGate(cwd=str(cwd), mode="ask", project_trusted=True, agent_dir=str(tmp_path / "agent"))
    run(gate.check("edit", {"path": "src/a.py", "edits": []}, FakeUI("Allow always")))
    assert json.loads((cwd / ".pi" / "settings.json").read_text()) == {"permissions": {"allow": ["edit(src/a.py)"]}}
    assert TrustStore(tmp_path / "agent").get(cwd) is True  # the new .pi/settings.json stays trusted


def test_deny_and_deny_with_message_results(gate: PermissionGate) -> None:
    denied = run(gate.check("write", {"path": "x", "content": "y"}, FakeUI(DENY)))
    assert denied.startswith("Permission denied: the user declined this write call.")
    said = run(gate.check("bash", {"command": "rm x"}, FakeUI(DENY_WITH_MESSAGE, "use git rm instead")))
    assert said == "Permission denied: the user declined this bash call and said: use git rm instead"
    cancelled = run(gate.check("bash", {"command": "rm x"}, FakeUI(None)))
    assert cancelled.startswith("Permission denied: the user declined")


def test_no_ui_refuses_with_a_reason_and_a_way_out(gate: PermissionGate) -> None:
    text = run(gate.check("bash", {"command": "npm test"}, None))
    assert "bash needs approval" in text and '"bash(npm test*)"' in text and "--permissions auto" in text
    assert run(gate.check("read", {"path": "a"}, None)) is None


def test_read_only_and_deny_rule_results(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"permissions": {"mode": "ask", "deny": ["bash(rm -rf *)"]}}))
    gate = gate_for_session(tmp_path, mode=None, settings_mode="read-only", project_trusted=False, agent_dir=agent)
    assert gate.mode == "read-only"
    text = run(gate.check("edit", {"path": "a", "edits": []}, FakeUI(ALLOW_ONCE)))
    assert text == "Permission denied: edit is not allowed in read-only mode; only read, grep, find and ls may run."
    gate.mode = "auto"
    text = run(gate.check("bash", {"command": "rm -rf /"}, FakeUI(ALLOW_ONCE)))
    assert text == "Permission denied: bash is denied by the permission rule bash(rm -rf *)."
    assert gate_for_session(tmp_path, mode="ask", settings_mode="read-only", project_trusted=False).mode == "ask"


def test_cycle_mode(gate: PermissionGate) -> None:
    assert [gate.cycle_mode() for _ in range(3)] == ["read-only", "auto", "ask"]


def test_abort_while_the_prompt_waits_closes_it() -> None:
    class Hanging(FakeUI):
        cancelled = False

        async def select(self, title: str, options: list[str]) -> str | None:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                Hanging.cancelled = True
                raise
            return None

    async def scenario() -> str | None:
        gate = PermissionGate(cwd="/tmp", mode="ask")
        controller = AbortController()
        task = asyncio.ensure_future(gate.check("bash", {"command": "ls"}, Hanging(None), controller.signal))
        await asyncio.sleep(0)
        controller.abort()
        return await asyncio.wait_for(task, 2)

    assert run(scenario()) == "Operation aborted"
    assert Hanging.cancelled
