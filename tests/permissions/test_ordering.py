"""Ordering with hooks installed before the gate (the extension runner's tool_call handlers):
they run first; the gate approves the arguments they left, and never asks about a call they blocked."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pi_cli.agent.types import BeforeToolCallContext
from pi_cli.permissions import trust
from pi_cli.permissions.install import install_gate


class RecordingUI:
    def __init__(self) -> None:
        self.titles: list[str] = []

    async def select(self, title: str, options: list[str]) -> str | None:
        self.titles.append(title)
        return options[0]

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        return None


def session_with(hook: Any, cwd: Path) -> Any:
    trust.forget_decisions()
    return SimpleNamespace(cwd=cwd, settings=None, agent=SimpleNamespace(before_tool_call=hook), startup_notices=[])


def context(command: str) -> BeforeToolCallContext:
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": command}}
    return BeforeToolCallContext(assistant_message={}, tool_call=call, args={"command": command}, context=None)  # type: ignore[arg-type]


def test_the_gate_approves_what_an_earlier_hook_rewrote(tmp_path: Path) -> None:
    order: list[str] = []

    def rewrite(ctx: BeforeToolCallContext, signal: Any) -> None:
        order.append("user hook")
        ctx.args["command"] = "git status --short"

    session = session_with(rewrite, tmp_path)
    gate = install_gate(session, "ask")
    ui = RecordingUI()
    gate.ui = ui
    verdict = asyncio.run(session.agent.before_tool_call(context("rm -rf /"), None))
    assert verdict is None and order == ["user hook"]
    assert ui.titles[0].startswith("Allow bash?\n$ git status --short")


def test_a_call_an_earlier_hook_blocked_is_never_asked_about(tmp_path: Path) -> None:
    async def block(ctx: BeforeToolCallContext, signal: Any) -> dict[str, Any]:
        return {"block": True, "reason": "blocked by my extension"}

    session = session_with(block, tmp_path)
    gate = install_gate(session, "ask")
    ui = RecordingUI()
    gate.ui = ui
    verdict = asyncio.run(session.agent.before_tool_call(context("ls"), None))
    assert verdict == {"block": True, "reason": "blocked by my extension"} and ui.titles == []


def test_the_gate_refuses_after_a_hook_that_lets_the_call_through(tmp_path: Path) -> None:
    session = session_with(lambda ctx, signal: None, tmp_path)
    install_gate(session, "read-only")
    verdict = asyncio.run(session.agent.before_tool_call(context("ls"), None))
    assert verdict == {
        "block": True,
        "reason": "Permission denied: bash is not allowed in read-only mode; only read, grep, find and ls may run.",
    }
    assert session.permissions.mode == "read-only"
