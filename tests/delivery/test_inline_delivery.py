"""Issue 32 in inline mode: the same rounds as the TUI's, keys sent as the bytes a terminal sends
(Enter = CR, Alt+Enter = ESC CR) through prompt_toolkit's pipe input."""

from __future__ import annotations

import asyncio
import io
import os
from typing import Any

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from delivery.scenario import Round, ScriptedModel, drive_rounds, plan, wait_until
from pi_cli.modes.inline.app import InlineApp

ROUNDS = int(os.environ.get("PI_DELIVERY_ROUNDS", "200"))
KEYS = {"enter": "\r", "alt+enter": "\x1b\r"}


async def test_text_typed_at_any_moment_of_a_run_reaches_the_model(faux: Any, session: Any) -> None:
    model = ScriptedModel(faux)
    model.start()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        app = InlineApp(session, input=pipe, output=DummyOutput(), scrollback=io.StringIO(), width=lambda: 80)
        runner = asyncio.ensure_future(app.run())
        await wait_until(lambda: app.app.is_running, "the inline app starts")

        def send_prompt(round_: Round) -> None:
            pipe.send_text(round_.prompt + KEYS["enter"])

        def submit(round_: Round) -> None:
            pipe.send_text(round_.follow + KEYS[round_.key])

        await drive_rounds(session, model, plan(ROUNDS, seed=33), send_prompt, submit)
        pipe.send_text("\x04")
        assert await asyncio.wait_for(runner, 5) == 0
