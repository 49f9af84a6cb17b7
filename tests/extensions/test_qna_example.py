"""The ``qna`` example (pi's) and ``BorderedLoader``: a spinner component stands in the editor's
place while the extension's own model request runs; its result fills the editor, Escape cancels."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from extensions.test_snake_example import make_stored_app
from extensions.test_tui_ui import SIZE, notices, wait_until
from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.extensions.rendering import ComponentTui, ExtensionTheme
from pi_cli.extensions.rendering.loader import BorderedLoader


async def test_loader_spins_and_cancels() -> None:
    redraws: list[int] = []
    tui = ComponentTui()
    tui.connect(lambda: redraws.append(1), lambda: (80, 24))
    aborted: list[bool] = []
    loader = BorderedLoader(tui, ExtensionTheme({}), "Working...", on_abort=lambda: aborted.append(True))
    first = loader.render(20)[1]
    await asyncio.sleep(0.2)
    assert redraws and loader.render(20)[1] != first and "Working..." in first
    loader.handle_input("x")
    assert not loader.signal.aborted
    loader.handle_input("\x1b")
    loader.handle_input("\x1b")
    assert loader.signal.aborted and aborted == [True]
    loader.dispose()
    count = len(redraws)
    await asyncio.sleep(0.2)
    assert len(redraws) == count  # stopped with the component


async def test_qna_fills_the_editor_or_cancels(faux: Any, tmp_path: Path) -> None:
    from pi_cli.extensions.examples.components.qna import register
    from pi_cli.modes.interactive.extension_ui.custom import ComponentSheet

    faux.set_responses(
        [
            faux_assistant([faux_text("Which database? And which language?")]),
            faux_assistant([faux_text("Q: Which database?\nA: \n\nQ: Which language?\nA: ")]),
            faux_assistant([faux_text("Q: slow " * 200)]),
        ]
    )
    app, runner, _manager = make_stored_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        await app.session.prompt("plan it")
        messages = len(app.session.messages)
        app.editor.load_text("/qna")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.editor.text.startswith("Q: Which database?"))
        assert "A: \n\nQ: Which language?" in app.editor.text and len(app.session.messages) == messages
        await wait_until(pilot, lambda: any("Questions loaded" in n for n in notices(app)))

        faux.tokens_per_second = 20  # the next extraction takes a while: cancel it
        app.editor.load_text("/qna")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ComponentSheet))
        await pilot.pause()
        view = app.screen.view
        assert "Extracting questions using" in "\n".join(view.render_line(y).text for y in range(view.size.height))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        await wait_until(pilot, lambda: any(n == "Cancelled" for n in notices(app)))
        assert app.editor.text == ""
