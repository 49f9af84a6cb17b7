"""The order of the agent's ``tool_call`` chain as the assembly declares it (SessionParts.hooks):
extensions' ``tool_call`` handlers run first; the approval gate approves the arguments they left,
and never asks about a call they blocked; the call being decided is ``current_tool_call`` for
every interceptor (an ACP dialog names it)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_cli.agent.hooks import chain_before
from pi_cli.agent.tool_exec import current_tool_call
from pi_cli.agent.types import AgentContext, BeforeToolCallContext
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.permissions import trust
from pi_cli.permissions.gate import gate_for_session
from pi_cli.session.assembly import SessionParts


class RecordingUI:
    def __init__(self) -> None:
        self.titles: list[str] = []
        self.calls: list[Any] = []

    async def select(self, title: str, options: list[str]) -> str | None:
        self.titles.append(title)
        self.calls.append(current_tool_call.get())
        return options[0]

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        return None


def parts_with(handler: Any, cwd: Path, mode: str) -> tuple[SessionParts, RecordingUI]:
    trust.forget_decisions()
    runner = ExtensionRunner(str(cwd))
    ExtensionAPI(runner, "ext.py").on("tool_call", handler)
    gate = gate_for_session(cwd, mode=mode, settings_mode=None, project_trusted=False)
    gate.ui = RecordingUI()
    return SessionParts(extensions=runner, permissions=gate), gate.ui


def run_chain(parts: SessionParts, command: str) -> Any:
    """The chain as the agent runs it: ``current_tool_call`` set around it (as tool_exec does)."""
    chain = chain_before(parts.hooks().tool_call)
    assert chain is not None
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": command}}
    args = {"command": command}
    context = BeforeToolCallContext(assistant_message={}, tool_call=call, args=args, context=AgentContext("", []))  # type: ignore[arg-type]

    async def go() -> Any:
        token = current_tool_call.set({"toolCallId": "c1", "toolName": "bash", "input": args})
        try:
            return await chain(context, None)
        finally:
            current_tool_call.reset(token)

    return asyncio.run(go())


def test_the_chain_is_extensions_then_the_gate() -> None:
    parts = SessionParts(extensions=ExtensionRunner("."), permissions=gate_for_session(".", mode="auto",
                         settings_mode=None, project_trusted=False))  # fmt: skip
    hooks = parts.hooks()
    assert [getattr(h, "__self__", None) for h in hooks.tool_call] == [parts.extensions, parts.permissions]
    assert [h.__self__ for h in hooks.tool_result] == [parts.extensions]  # type: ignore[attr-defined]
    assert SessionParts().hooks().tool_call == []


def test_the_gate_approves_what_an_extension_rewrote(tmp_path: Path) -> None:
    def rewrite(event: dict[str, Any], ctx: Any) -> None:
        event["input"]["command"] = "git status --short"

    parts, ui = parts_with(rewrite, tmp_path, "ask")
    assert run_chain(parts, "rm -rf /") is None
    assert ui.titles[0].startswith("Allow bash?\n$ git status --short")
    assert ui.calls == [{"toolCallId": "c1", "toolName": "bash", "input": {"command": "git status --short"}}]


def test_a_call_an_extension_blocked_is_never_asked_about(tmp_path: Path) -> None:
    parts, ui = parts_with(lambda event, ctx: {"block": True, "reason": "blocked by my extension"}, tmp_path, "ask")
    assert run_chain(parts, "ls") == {"block": True, "reason": "blocked by my extension"}
    assert ui.titles == []


def test_the_gate_refuses_after_an_extension_that_lets_the_call_through(tmp_path: Path) -> None:
    parts, _ui = parts_with(lambda event, ctx: None, tmp_path, "read-only")
    assert run_chain(parts, "ls") == {
        "block": True,
        "reason": "Permission denied: bash is not allowed in read-only mode; only read, grep, find and ls may run.",
    }
