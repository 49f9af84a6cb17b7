"""The ``question`` example (pi's): a tool whose dialog is a ``ctx.ui.custom`` component — keys
pick an option or write an answer in the TUI; other modes get pi's "no UI" answer."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from extensions.test_examples import session_with, tool_results
from extensions.test_tui_ui import SIZE, make_app, wait_until
from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call
from pi_cli.extensions.rendering import ExtensionTheme, RenderContext, RenderOptions

ASK = {"question": "Which colour?", "options": [{"label": "Red"}, {"label": "Blue", "description": "the sky"}]}


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["down", "enter"], "User selected: 2. Blue"),
        (["down", "down", "enter", "h", "i", "enter"], "User wrote: hi"),
        (["down", "down", "enter", "x", "escape", "escape"], "User cancelled the selection"),
    ],
)
async def test_question_dialog_answers_with_keys(faux: Any, tmp_path: Path, keys: list[str], expected: str) -> None:
    from pi_cli.extensions.examples.components.question import register
    from pi_cli.modes.interactive.extension_ui.custom import ComponentSheet

    faux.set_responses([faux_assistant([faux_tool_call("question", ASK)]), faux_assistant([faux_text("ok")])])
    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        run = asyncio.ensure_future(app.session.prompt("ask me"))
        await wait_until(pilot, lambda: isinstance(app.screen, ComponentSheet))
        await pilot.pause()
        view = app.screen.view
        drawn = "\n".join(view.render_line(y).text for y in range(view.size.height))
        assert "Which colour?" in drawn and "> 1. Red" in drawn and "the sky" in drawn and "3. Type something." in drawn
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await asyncio.wait_for(run, 20)
        assert tool_results(app.session) == [(expected, False)]
        assert app.screen is app.screen_stack[0]


async def test_question_without_a_tui_says_so(faux: Any, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant([faux_tool_call("question", ASK)]), faux_assistant([faux_text("ok")])])
    session, runner, _recorder = session_with(faux, tmp_path, "question")
    await runner.start()
    await session.prompt("ask me")
    assert tool_results(session) == [("Error: UI not available (running in non-interactive mode)", False)]


def test_question_renderers() -> None:
    from pi_cli.extensions.examples.components.question import render_call, render_result

    theme = ExtensionTheme({})
    assert "Options: 1. Red, 2. Blue, 3. Type something." in render_call(ASK, theme, RenderContext())
    picked = {"content": [], "details": {"question": "q", "options": ["Red", "Blue"], "answer": "Blue"}}
    assert Console().render_str(render_result(picked, RenderOptions(), theme, RenderContext())).plain == "✓ 2. Blue"
    cancelled = {"content": [], "details": {"question": "q", "options": ["Red"], "answer": None}}
    assert render_result(cancelled, RenderOptions(), theme, RenderContext()) == "Cancelled"
