"""The approval gate in the TUI: every dialog answer, Ctrl-C while asking, the mode key, /trust."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from conftest import gate_parts, make_session
from test_session_screens import SIZE, screen_of, wait_until

from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call
from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.screens.approval import ApprovalScreen, MessageScreen
from pi_cli.modes.interactive.screens.picker import PickerScreen
from pi_cli.permissions import trust


def gated_app(faux: Any, workdir: Path, command: str, mode: str = "ask") -> Any:
    from pi_cli.tools import create_all_tools

    faux.set_responses(
        [faux_assistant([faux_tool_call("bash", {"command": command})]), faux_assistant([faux_text("done")])]
    )
    trust.forget_decisions()
    session = make_session(faux, workdir, [create_all_tools(workdir)["bash"]], parts=gate_parts(workdir, mode))
    return make_app(session, keymap={})


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())


def real(path: Path) -> str:
    return os.path.realpath(path)


def tool_result(app: Any) -> str:
    message = next(m for m in reversed(app.session.messages) if m["role"] == "toolResult")
    return "".join(part.get("text", "") for part in message["content"])


async def ask_and_answer(pilot: Any, app: Any, *keys: str) -> ApprovalScreen:
    await pilot.press(*"go", "enter")
    screen = await screen_of(pilot, app, ApprovalScreen)
    await pilot.press(*keys)
    return screen


async def settled(pilot: Any, app: Any) -> None:
    await wait_until(pilot, lambda: not app.running)


async def test_allow_once_shows_the_command_and_runs_it(faux: Any, workdir: Path) -> None:
    app = gated_app(faux, workdir, "touch made")
    async with app.run_test(size=SIZE) as pilot:
        screen = await ask_and_answer(pilot, app)
        assert screen.question.startswith("Allow bash?\n$ touch made")
        assert screen.options[1] == "Allow always (bash(touch made*))"
        await pilot.press("1")
        await settled(pilot, app)
    assert (workdir / "made").exists()


async def test_allow_always_saves_the_rule(faux: Any, workdir: Path, tmp_path: Path) -> None:
    resolved = real(workdir)
    app = gated_app(faux, workdir, "touch made")
    async with app.run_test(size=SIZE) as pilot:
        await ask_and_answer(pilot, app, "down", "enter")
        await settled(pilot, app)
    assert (workdir / "made").exists()
    # A trusted folder (nothing protected in it) keeps the rule in its own .pi/settings.json, and
    # its trust is saved, since that file now needs it.
    saved = read_json(workdir / ".pi" / "settings.json")
    assert saved["permissions"]["allow"] == ["bash(touch made*)"]
    assert read_json(tmp_path / "agent" / "trust.json") == {resolved: True}


async def test_deny_and_escape_refuse_with_a_result(faux: Any, workdir: Path) -> None:
    for key in ("3", "escape"):
        app = gated_app(faux, workdir, "touch made")
        async with app.run_test(size=SIZE) as pilot:
            await ask_and_answer(pilot, app, key)
            await settled(pilot, app)
            assert tool_result(app).startswith("Permission denied: the user declined this bash call.")
    assert not (workdir / "made").exists()


async def test_deny_with_a_message_reaches_the_model(faux: Any, workdir: Path) -> None:
    app = gated_app(faux, workdir, "touch made")
    async with app.run_test(size=SIZE) as pilot:
        await ask_and_answer(pilot, app, "4")
        await screen_of(pilot, app, MessageScreen)
        await pilot.press(*"use git", "enter")
        await settled(pilot, app)
        assert tool_result(app) == "Permission denied: the user declined this bash call and said: use git"
    assert not (workdir / "made").exists()


async def test_ctrl_c_in_the_dialog_aborts_the_run(faux: Any, workdir: Path) -> None:
    app = gated_app(faux, workdir, "touch made")
    async with app.run_test(size=SIZE) as pilot:
        await ask_and_answer(pilot, app, "ctrl+c")
        await settled(pilot, app)
        assert not isinstance(app.screen, ApprovalScreen)
        assert tool_result(app) == "Operation aborted"
        assert len(faux.requests) == 1  # the run stopped: the model was not called again
    assert not (workdir / "made").exists()


async def test_mode_key_cycles_and_the_footer_shows_it(faux: Any, workdir: Path) -> None:
    app = gated_app(faux, workdir, "touch made", mode="auto")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("alt+m")
        assert app.session.permissions.mode == "ask"
        assert "⏵ ask" in app.footer_bar.facts.usage
        await pilot.press("alt+m")
        assert app.session.permissions.mode == "read-only"
        await pilot.press(*"go", "enter")
        await settled(pilot, app)
        assert tool_result(app).startswith("Permission denied: bash is not allowed in read-only mode")
        app.editor.load_text("/permissions auto")
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.permissions.mode == "auto"


async def test_trust_command_saves_a_decision(faux: Any, workdir: Path, tmp_path: Path) -> None:
    resolved = real(workdir)
    app = gated_app(faux, workdir, "true")
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("/trust")
        await pilot.press("enter")
        picker = await screen_of(pilot, app, PickerScreen)
        assert "Saved decision: none" in picker.title_text
        await pilot.press("enter")  # "Trust"
        await wait_until(pilot, lambda: (tmp_path / "agent" / "trust.json").exists())
    assert read_json(tmp_path / "agent" / "trust.json") == {resolved: True}


async def test_typing_in_the_dialog_queues_steering_and_keeps_asking(faux: Any, workdir: Path) -> None:
    app = gated_app(faux, workdir, "touch made")
    async with app.run_test(size=SIZE) as pilot:
        screen = await ask_and_answer(pilot, app, *"use 2 files", "enter")
        await pilot.pause()
        assert app.screen is screen  # still asking
        assert list(app.session.steering_messages) == ["use 2 files"]
        await pilot.press("1")
        await settled(pilot, app)
    assert (workdir / "made").exists()


async def test_settings_rows_for_approval_mode_and_default_trust(faux: Any, workdir: Path, tmp_path: Path) -> None:
    app = gated_app(faux, workdir, "true", mode="auto")
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("/settings")
        await pilot.press("enter")
        picker = await screen_of(pilot, app, PickerScreen)
        keys = [item.key for item in picker.items]
        assert keys[-2:] == ["permissions", "trust-default"]
        await pilot.press(*"approval", "enter")
        await wait_until(pilot, lambda: app.session.permissions.mode == "ask")
        picker = await screen_of(pilot, app, PickerScreen)
        await pilot.press(*"project trust", "enter")
        await wait_until(pilot, lambda: (tmp_path / "agent" / "settings.json").exists())
    assert read_json(tmp_path / "agent" / "settings.json")["defaultProjectTrust"] == "always"
