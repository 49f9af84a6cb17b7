"""Issue 32 in the full-screen TUI: text typed with Enter or Alt+Enter at any moment of a run —
before its first token, mid-text, during a tool call, within a few ms of its end — reaches the
model. Keys take the real path: a Key event sent through the app's driver, as a terminal's input
thread sends it (``Pilot.press`` would also wait for the app to go idle, hundreds of ms mid-stream)."""

from __future__ import annotations

import os
from typing import Any

from textual import events

from delivery.scenario import Round, ScriptedModel, drive_rounds, plan
from pi_cli.modes.interactive import make_app

ROUNDS = int(os.environ.get("PI_DELIVERY_ROUNDS", "200"))


async def test_text_typed_at_any_moment_of_a_run_reaches_the_model(faux: Any, session: Any) -> None:
    model = ScriptedModel(faux)
    model.start()
    app = make_app(session, keymap={})

    def type_and_press(text: str, key: str) -> None:
        app.editor.load_text(text)
        event = events.Key(key, "\r" if key == "enter" else None)
        event.set_sender(app)
        app._driver.send_message(event)

    def send_prompt(round_: Round) -> None:
        type_and_press(round_.prompt, "enter")

    def submit(round_: Round) -> None:
        type_and_press(round_.follow, round_.key)

    async with app.run_test(size=(80, 16)):
        await drive_rounds(session, model, plan(ROUNDS, seed=32), send_prompt, submit)
