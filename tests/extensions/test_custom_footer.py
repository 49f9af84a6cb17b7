"""``ctx.ui.set_footer`` in the TUI (pi's ``custom-footer`` example): the component replaces the
built-in footer, sees statuses and the git branch, and ``set_footer(None)`` restores the footer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extensions.test_tui_ui import SIZE, make_app, notices, wait_until
from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.rendering.component import FooterData
from pi_cli.extensions.ui import DialogOptionsUI, NoUI


def _footer_text(app: Any) -> str:
    view = app.query_one("#extension-footer")
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def test_custom_footer_example_toggles(faux: Any, tmp_path: Path) -> None:
    from pi_cli.extensions.examples.components.custom_footer import register

    faux.set_responses([faux_assistant([faux_text("hello")])])
    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        await app.session.prompt("hi")
        app.editor.load_text("/footer")
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.query("#extension-footer")))
        await pilot.pause()
        assert not app.footer_bar.display
        text = _footer_text(app)
        assert text.startswith("↑") and "$0.000" in text and app.session.model["id"] in text
        app.editor.load_text("/footer")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.query("#extension-footer"))
        assert app.footer_bar.display
        await wait_until(pilot, lambda: any("Default footer restored" in n for n in notices(app)))


async def test_footer_shows_statuses_and_a_failing_one_gives_way(faux: Any, tmp_path: Path) -> None:
    def register(pi: ExtensionAPI) -> None:
        def show(args: str, ctx: Any) -> None:
            def footer(tui: Any, theme: Any, data: FooterData) -> Any:
                def render(width: int) -> list[str]:
                    statuses = data.get_extension_statuses()
                    if statuses.get("mode") == "boom":
                        raise RuntimeError("bad footer")
                    return [f"mine {statuses.get('mode', '-')}"]

                return {"render": render}

            ctx.ui.set_footer(footer)

        pi.register_command("mine", show, "")
        pi.register_command("mode", lambda args, ctx: ctx.ui.set_status("mode", args), "")

    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        for command in ("/mine", "/mode plan"):
            app.editor.load_text(command)
            await pilot.press("enter")
            await pilot.pause()
        await wait_until(pilot, lambda: bool(app.query("#extension-footer")) and "mine plan" in _footer_text(app))
        app.editor.load_text("/mode boom")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.query("#extension-footer") and app.footer_bar.display)
        await wait_until(pilot, lambda: any("bad footer" in n for n in notices(app)))


def test_footer_data_and_no_ui_modes() -> None:
    data = FooterData(lambda: "main", lambda: {"a": "1"})
    heard: list[int] = []
    stop = data.on_branch_change(lambda: heard.append(1))
    data.branch_changed()
    stop()
    data.branch_changed()
    assert heard == [1] and data.get_git_branch() == "main" and data.get_extension_statuses() == {"a": "1"}
    DialogOptionsUI(NoUI()).set_footer(lambda *args: None)  # print/json/RPC: nothing happens
