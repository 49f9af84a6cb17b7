"""pi's ``ctx.ui.set_header`` in the TUI: the extension's component replaces the start header at
the top of the transcript, stays through ``/new``, and ``None`` (or a failing component) brings
the built-in header back; the ``custom_header`` example (pi's ``custom-header``) drives it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extensions.test_tui_ui import SIZE, make_app, notices, wait_until
from pi_cli.extensions.examples.components import custom_header
from pi_cli.modes.interactive.startup import StartHeader


def first_entry(app: Any) -> Any:
    return app.transcript.children[0]


async def test_the_extensions_header_replaces_the_start_header(faux: Any, tmp_path: Path) -> None:
    app, runner = make_app(faux, tmp_path, custom_header.register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started and first_entry(app).id == "extension-header")
        assert "a coding agent in your terminal" in str(first_entry(app).render())
        assert not app.query(StartHeader)
        app.editor.load_text("/new")
        await pilot.press("enter")
        await wait_until(pilot, lambda: first_entry(app).id == "extension-header")  # kept through /new
        app.editor.load_text("/builtin-header")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(first_entry(app), StartHeader))


async def test_a_failing_header_gives_way_to_the_built_in_one(faux: Any, tmp_path: Path) -> None:
    def register(pi: Any) -> None:
        def broken(tui: Any, theme: Any) -> Any:
            raise RuntimeError("no header today")

        pi.on("session_start", lambda event, ctx: ctx.ui.set_header(broken))

    app, _runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any("Extension header failed: no header today" in n for n in notices(app)))
        assert isinstance(first_entry(app), StartHeader)
