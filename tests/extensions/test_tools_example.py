"""The ``tools`` example (pi's) and the ``SelectList`` it draws with: toggling tools from a
custom component applies at once and is saved in the session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from extensions.test_snake_example import make_stored_app
from extensions.test_tui_ui import SIZE, wait_until
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.rendering import ExtensionTheme
from pi_cli.extensions.rendering.select_list import SelectList


def test_select_list_moves_wraps_scrolls_and_picks() -> None:
    picked: list[Any] = []
    cancelled: list[bool] = []
    moves: list[str] = []
    items = [{"value": f"v{i}", "description": f"about {i}"} for i in range(8)]
    select = SelectList(items, 3, ExtensionTheme({}), picked.append, lambda: cancelled.append(True))
    select.on_selection_change = lambda item: moves.append(item["value"])
    rows = select.render(80)
    assert rows[0].startswith("→ v0") and "about 0" in rows[0] and rows[-1].strip() == "(1/8)" and len(rows) == 4
    select.handle_input("\x1b[A")  # up from the first wraps to the last
    select.handle_input("\r")
    assert picked == [items[7]] and moves == ["v7"]
    assert "→ v7" in Console().render_str(select.render(80)[2]).plain
    select.handle_input("\x1b")
    assert cancelled == [True]
    select.set_filter("V1")
    assert [row.strip() for row in select.render(30)] == ["→ v1"]
    select.set_filter("zzz")
    assert "No matching" in select.render(30)[0]


async def test_tools_command_toggles_and_saves(faux: Any, tmp_path: Path) -> None:
    from pi_cli.extensions.examples.components.tools import ENTRY_TYPE
    from pi_cli.extensions.examples.components.tools import register as register_tools
    from pi_cli.modes.interactive.extension_ui.custom import ComponentSheet

    def register(pi: ExtensionAPI) -> None:
        for name in ("alpha", "beta"):
            pi.register_tool({"name": name, "description": name, "execute": lambda *args: "ok"})
        register_tools(pi)

    app, runner, manager = make_stored_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        app.editor.load_text("/tools")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ComponentSheet))
        await pilot.pause()
        view = app.screen.view
        drawn = "\n".join(view.render_line(y).text for y in range(view.size.height))
        assert "Tool Configuration" in drawn and "[x] alpha" in drawn and "[x] beta" in drawn
        await pilot.press("down", "enter")  # beta off
        await pilot.pause()
        assert "[ ] beta" in "\n".join(view.render_line(y).text for y in range(view.size.height))
        await pilot.press("up", "space", "space")  # alpha off and on again
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        active = [tool.name for tool in app.session.agent.state.tools]
        assert "alpha" in active and "beta" not in active
        saves = [e["data"] for e in manager.get_entries() if e.get("customType") == ENTRY_TYPE]
        assert len(saves) == 3 and "beta" not in saves[-1]["enabledTools"] and "alpha" in saves[-1]["enabledTools"]
