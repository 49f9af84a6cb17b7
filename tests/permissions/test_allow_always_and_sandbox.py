""" "Allow always" covers every part of the command it was asked about (issue 33, item 2); print mode
suggests the same rules; with the sandbox on, ask mode lets sandboxed bash through and asks only to
run a blocked call outside it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_cli.permissions.gate import ALLOW_ONCE, KEEP_SANDBOXED, RUN_OUTSIDE, PermissionGate
from pi_cli.permissions.policy import RuleSet, decide
from pi_cli.permissions.rules import parse_rule
from pi_cli.permissions.suggest import suggest_rules


class FakeUI:
    def __init__(self, pick: str | None) -> None:
        self.pick = pick
        self.titles: list[str] = []
        self.options: list[list[str]] = []

    async def select(self, title: str, options: list[str]) -> str | None:
        self.titles.append(title)
        self.options.append(options)
        return next((o for o in options if self.pick and o.startswith(self.pick)), None)

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        return None


class Status:
    def __init__(self, confined: bool = True, auto: bool = True) -> None:
        self.confined, self.auto_allow_bash = confined, auto

    def runs_confined(self, tool: str) -> bool:
        return self.confined and tool == "bash"


@pytest.fixture
def gate(tmp_path: Path) -> PermissionGate:
    (tmp_path / "proj").mkdir()
    return PermissionGate(cwd=str(tmp_path / "proj"), mode="ask", agent_dir=str(tmp_path / "agent"))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_allow_always_for_a_compound_command_saves_a_rule_per_part(gate: PermissionGate, tmp_path: Path) -> None:
    command = {"command": "sed -n 1p a.txt && echo done"}
    ui = FakeUI("Allow always")
    assert run(gate.check("bash", command, ui)) is None
    assert ui.options[0][1] == "Allow always (bash(sed*), bash(echo done*))"
    saved = json.loads((tmp_path / "agent" / "settings.json").read_text())
    assert saved == {"permissions": {"allow": ["bash(sed*)", "bash(echo done*)"]}}
    assert gate.notices[-1].startswith("Saved permission rules bash(sed*), bash(echo done*) to ")
    assert run(gate.check("bash", command, FakeUI(None))) is None  # the next turn does not ask


@pytest.mark.parametrize(
    "command",
    [
        "sed -n 1p a.txt && echo done",
        "git status & touch PWNED",
        "ls > out.txt",
        "cat <(sort x) | head -n 3",
        "find . -name '*.tmp' -exec rm {} \\;",
        "echo $(date) >> log.txt; wc -l log.txt",
        "X=1 make test 2> err.log",
    ],
)
def test_the_suggestion_covers_the_whole_call(command: str, tmp_path: Path) -> None:
    patterns = suggest_rules("bash", {"command": command}, str(tmp_path))
    assert patterns
    rules = RuleSet()
    for pattern in patterns:
        rules.add("allow", parse_rule(pattern))
    assert decide("bash", {"command": command}, "ask", rules, str(tmp_path)).action == "allow"


def test_no_allow_always_when_no_rule_can_cover_the_call(gate: PermissionGate) -> None:
    ui = FakeUI(ALLOW_ONCE)
    for command in ("echo x > $TARGET", "echo 'unterminated"):
        assert run(gate.check("bash", {"command": command}, ui)) is None
        assert not any(o.startswith("Allow always") for o in ui.options[-1])
    refused = run(gate.check("bash", {"command": "echo x > $TARGET"}, None))
    assert "No allow rule can cover this call" in refused


def test_print_mode_refusal_lists_every_rule(gate: PermissionGate) -> None:
    refused = run(gate.check("bash", {"command": "sed -n 1p a.txt && echo done > out.txt"}, None))
    assert refused.startswith("Permission denied: bash needs approval")
    assert '"bash(sed*)", "bash(echo done*)", "write(' in refused and "--permissions auto" in refused


def test_sandboxed_bash_runs_unasked_in_ask_mode_but_rules_still_apply(gate: PermissionGate) -> None:
    gate.rules.add("deny", parse_rule("bash(rm *)"))
    gate.rules.add("ask", parse_rule("bash(git push*)"))
    boxed = PermissionGate(
        cwd=gate.cwd, mode="ask", rules=gate.rules, agent_dir=gate.agent_dir, sandbox=Status(confined=True)
    )
    assert boxed.decide("bash", {"command": "make && echo x > /etc/out"}).action == "allow"
    assert boxed.decide("bash", {"command": "rm -rf build"}).action == "deny"
    assert boxed.decide("bash", {"command": "git push"}).action == "ask"
    assert boxed.decide("write", {"path": "a.txt", "content": ""}).action == "ask"  # only bash runs confined
    for status in (Status(confined=False), Status(auto=False)):
        other = PermissionGate(cwd=gate.cwd, mode="ask", agent_dir=gate.agent_dir, sandbox=status)
        assert other.decide("bash", {"command": "make"}).action == "ask"


def test_running_outside_the_sandbox_is_always_asked(gate: PermissionGate) -> None:
    for mode, pick, expected in (("auto", RUN_OUTSIDE, True), ("ask", KEEP_SANDBOXED, False), ("auto", None, False)):
        gate.mode = mode  # type: ignore[assignment]
        gate.ui = FakeUI(pick)
        assert run(gate.approve_outside("bash", "touch /etc/x", "[Sandbox blocked writing /etc/x]")) is expected
        assert gate.ui.titles[-1].startswith("The sandbox blocked this bash call. Run it outside the sandbox?")
        assert "$ touch /etc/x" in gate.ui.titles[-1] and "[Sandbox blocked" in gate.ui.titles[-1]
    gate.ui = None
    assert run(gate.approve_outside("bash", "touch /etc/x", "note")) is False  # print, json
