"""``ctx.ui.editor`` in the TUI and inline: a multi-line text dialog drawn as a component —
Enter submits, Shift+Enter/Ctrl-J break the line, Escape cancels (None)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from extensions.test_inline_ui import ENTER, drive, make_session, texts, wait_for
from extensions.test_tui_ui import SIZE, make_app, wait_until
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.rendering.text_editor import TextEditor


def test_text_editor_edits_across_lines() -> None:
    editor = TextEditor("ab")
    for data in ("\n", "c", "\x1b[A", "\x1b[H", "X", "\x1b[B", "\x1b[F", "\x7f", "d", "e"):
        editor.handle_input(data)
    assert editor.text == "Xab\nde"
    editor.handle_input("\x1b[A")
    editor.handle_input("\x1b[F")
    editor.handle_input("\x1b[3~")  # Delete at a line's end joins the next one
    assert editor.text == "Xabde"
    editor.handle_input("\x1b[H")
    editor.handle_input("\x1b[B")  # no line below: stays
    editor.handle_input("pasted\nlines ")
    assert editor.text == "pasted\nlines Xabde" and (editor.row, editor.col) == (1, 6)
    rows = editor.render(8)
    assert rows[1] == "lines \x1b[7mX\x1b[27ma" and rows[2] == "bde "


def _register(answers: list[Any]) -> Any:
    def register(pi: ExtensionAPI) -> None:
        async def edit(args: str, ctx: Any) -> None:
            answers.append(await ctx.ui.editor("Edit the plan", "step one"))

        pi.register_command("edit", edit, "")

    return register


async def test_tui_editor_dialog(faux: Any, tmp_path: Path) -> None:
    from pi_cli.modes.interactive.extension_ui.custom import ComponentSheet

    answers: list[Any] = []
    app, runner = make_app(faux, tmp_path, _register(answers))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        for count, keys in enumerate((["ctrl+j", "t", "w", "o", "enter"], ["x", "escape"]), 1):
            app.editor.load_text("/edit")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, ComponentSheet))
            await pilot.pause()
            view = app.screen.view
            drawn = "\n".join(view.render_line(y).text for y in range(view.size.height))
            assert "Edit the plan" in drawn and "step one" in drawn and "esc cancel" in drawn
            await pilot.press(*keys)
            await wait_until(pilot, lambda: len(answers) == count)  # noqa: B023
            await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
    assert answers == ["step one\ntwo", None]


async def test_inline_editor_dialog(faux: Any, tmp_path: Path) -> None:
    answers: list[Any] = []
    session, _runner = make_session(faux, tmp_path, _register(answers))

    async def script(pipe: Any, app: Any, out: Any) -> None:
        components = app.controller.components
        pipe.send_text("/edit" + ENTER)
        await wait_for(lambda: components.active is not None)
        assert "Edit the plan" in texts(components._lines())
        for data in ("\n", "two", "\r"):  # Ctrl-J is "\n" on the wire
            pipe.send_text(data)
            await asyncio.sleep(0.05)
        await wait_for(lambda: answers == ["step one\ntwo"])

    await drive(session, script)
