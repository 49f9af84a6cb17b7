"""The ``handoff`` example (pi's): a loader while the model writes the prompt, the editor dialog to
change it, then a new session with the prompt waiting in the editor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extensions.test_snake_example import make_stored_app
from extensions.test_tui_ui import SIZE, notices, wait_until
from pi_cli.ai.providers.faux import faux_assistant, faux_text


async def test_handoff_writes_edits_and_starts_a_new_session(faux: Any, tmp_path: Path) -> None:
    from pi_cli.extensions.examples.components.handoff import register
    from pi_cli.modes.interactive.extension_ui.custom import ComponentSheet

    faux.set_responses(
        [
            faux_assistant([faux_text("The parser is fixed; the CLI is next.")]),
            faux_assistant([faux_text("## Context\nparser fixed\n## Task\nwire the CLI")]),
        ]
    )
    app, runner, _manager = make_stored_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        app.editor.load_text("/handoff")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Usage: /handoff" in n for n in notices(app)))
        await app.session.prompt("fix the parser")
        old_id = app.session.session_id
        app.editor.load_text("/handoff wire the CLI")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ComponentSheet) and "Edit handoff" in _drawn(app))
        sent = faux.requests[-1].context["messages"][0]["content"][0]["text"]
        assert "User: fix the parser" in sent and "wire the CLI" in sent
        await pilot.press("end", "!", "enter")  # the edited prompt
        await wait_until(pilot, lambda: app.editor.text.endswith("wire the CLI!"))
        assert app.session.session_id != old_id and app.editor.text.startswith("## Context")
        await wait_until(pilot, lambda: any("Handoff ready" in n for n in notices(app)))


def _drawn(app: Any) -> str:
    view = app.screen.view
    return "\n".join(view.render_line(y).text for y in range(view.size.height))
