"""pi's ``ctx.ui.set_editor_component`` in the TUI with the ported ``modal_editor`` example: the
extension's editor replaces the built-in one, gets every key (Escape first: it switches modes
before the app's Escape), edits the prompt text the app keeps (queue restores and Ctrl-C reach
it), submits through the app, and ``None`` brings the built-in editor back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extensions.test_tui_ui import SIZE, make_app, wait_until
from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.extensions.examples.components import modal_editor


def shown(app: Any) -> str:
    view = app.query_one("#extension-editor")
    return str(view.render())


async def test_modal_editor_edits_submits_and_gives_way(faux: Any, tmp_path: Path) -> None:
    app, runner = make_app(faux, tmp_path, modal_editor.register)
    faux.set_responses([faux_assistant([faux_text("done")])])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started and app.editor_slot is not None and app.editor_slot.active)
        assert not app.editor.display and app.focused is app.query_one("#extension-editor")
        await pilot.press(*"hello")
        assert app.editor.text == "hello" and "INSERT" in shown(app)  # written through to the prompt text
        await pilot.press("escape")  # insert → normal: the app's Escape does not run
        assert "NORMAL" in shown(app) and app.editor_slot.component.mode == "normal"
        await pilot.press("0", "x", "i", "J")  # line start, delete "h", insert mode, type
        assert app.editor.text == "Jello"
        await pilot.press("enter")
        await wait_until(pilot, lambda: faux.call_count == 1 and not app.running)
        assert faux.requests[0].context["messages"][-1]["content"][0]["text"] == "Jello"
        assert app.editor.text == "" and "Jello" not in shown(app)
        app.editor.set_text("restored text")  # e.g. a queue put back by an abort
        await pilot.pause()
        assert "restored text" in shown(app)
        await pilot.press("ctrl+c")  # handed back to the app: clears the prompt
        await wait_until(pilot, lambda: app.editor.text == "" and "restored" not in shown(app))
        runner.context().ui.set_editor_component(None)
        await pilot.pause()
        assert app.editor.display and not app.editor_slot.active and app.focused is app.editor
