"""The approval gate in inline mode: the question in scrollback, each answer, steering and Ctrl-C
while it waits, the mode key and /permissions, /trust."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call
from pi_cli.modes.inline.app import InlineApp
from pi_cli.permissions import trust
from pi_cli.permissions.gate import gate_for_session
from pi_cli.session.assembly import SessionParts

from .test_inline_app import CTRL_C, CTRL_D, ENTER, _agent_dir, drive, faux, make_session, wait_for

__all__ = ["_agent_dir", "faux"]  # fixtures (the agent dir one is autouse)

ALT_M = "\x1bm"


def gated(faux: Any, cwd: Path, command: str = "touch made", mode: str = "ask") -> Any:
    faux.set_responses(
        [faux_assistant([faux_tool_call("bash", {"command": command})]), faux_assistant([faux_text("done")])]
    )
    trust.forget_decisions()
    gate = gate_for_session(cwd, mode=mode, settings_mode=None, project_trusted=trust.is_project_trusted(cwd))
    return make_session(faux, cwd, ["bash"], SessionParts(permissions=gate))


def tool_result(session: Any) -> str:
    message = next(m for m in reversed(session.messages) if m["role"] == "toolResult")
    return "".join(part.get("text", "") for part in message["content"])


async def answer_with(faux: Any, tmp_path: Path, *lines: str) -> tuple[Any, str]:
    session = gated(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        approvals = app.controller.approvals
        pipe.send_text("go" + ENTER)
        await wait_for(lambda: approvals.waiting)
        pipe.send_text(lines[0] + ENTER)
        for line in lines[1:]:  # the message line: wait until the question became a text prompt
            await wait_for(lambda: approvals.waiting and approvals._options is None)
            pipe.send_text(line + ENTER)
        await wait_for(lambda: not app.controller.running)
        pipe.send_text(CTRL_D)

    _, out = await drive(session, script)
    return session, out


async def test_question_shows_the_command_and_allow_once_runs_it(faux: Any, tmp_path: Path) -> None:
    _session, out = await answer_with(faux, tmp_path, "1")
    assert "Allow bash?" in out and "$ touch made" in out
    assert "1. Allow once" in out and "2. Allow always (bash(touch made*))" in out
    assert (tmp_path / "made").exists()


async def test_allow_always_saves_the_rule(faux: Any, tmp_path: Path) -> None:
    await answer_with(faux, tmp_path, "2")
    assert (tmp_path / "made").exists()
    saved = json.loads((tmp_path / ".pi" / "settings.json").read_text())
    assert saved["permissions"]["allow"] == ["bash(touch made*)"]


async def test_deny_and_deny_with_a_message(faux: Any, tmp_path: Path) -> None:
    session, _ = await answer_with(faux, tmp_path, "3")
    assert tool_result(session).startswith("Permission denied: the user declined this bash call.")
    session, _ = await answer_with(faux, tmp_path, "4", "use git rm")
    assert tool_result(session) == "Permission denied: the user declined this bash call and said: use git rm"
    assert not (tmp_path / "made").exists()


async def test_other_text_steers_and_ctrl_c_aborts_while_asking(faux: Any, tmp_path: Path) -> None:
    session = gated(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("go" + ENTER)
        await wait_for(lambda: app.controller.approvals.waiting)
        pipe.send_text("try ls instead" + ENTER)
        await wait_for(lambda: session.pending_message_count == 1)
        assert app.controller.approvals.waiting  # not an answer: still asking
        pipe.send_text(CTRL_C)
        await wait_for(lambda: not app.controller.running)
        assert app.buffer.text == "try ls instead"  # the abort gave the unsent steering back
        pipe.send_text(CTRL_C)  # clear the editor, then quit
        await wait_for(lambda: app.buffer.text == "")
        pipe.send_text(CTRL_D)

    _, out = await drive(session, script)
    assert tool_result(session) == "Operation aborted"
    assert "Question withdrawn" in out
    assert not (tmp_path / "made").exists()


async def test_mode_key_and_commands(faux: Any, tmp_path: Path) -> None:
    session = gated(faux, tmp_path, mode="auto")

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text(ALT_M)
        await wait_for(lambda: session.permissions.mode == "ask")
        pipe.send_text("/permissions read-only" + ENTER)
        await wait_for(lambda: session.permissions.mode == "read-only")
        pipe.send_text("/trust yes" + ENTER)
        await wait_for(lambda: (tmp_path / "agent" / "trust.json").exists())
        pipe.send_text("/hotkeys" + ENTER)
        await wait_for(lambda: "alt+m" in out.getvalue())
        pipe.send_text(CTRL_D)

    _, out = await drive(session, script)
    assert "Permissions: ask" in out and "Permissions: read-only" in out
    assert "Saved trust decision: trusted" in out
