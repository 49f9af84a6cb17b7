"""``ctx.ui.custom``: the component contract (keys as terminal data, width helpers, done/errors),
the no-UI answer of print/json/RPC, and the TUI's modal hosting (keys in, done out)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from extensions.test_tui_ui import SIZE, make_app, notices, screen_text, wait_until
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.rendering import (
    CustomOptions,
    ExtensionTheme,
    Key,
    Keybindings,
    OverlayOptions,
    key_data,
    matches_key,
    parse_key,
    truncate_to_width,
    visible_width,
    wrap_text_with_ansi,
)
from pi_cli.extensions.rendering.component import run_custom
from pi_cli.extensions.rendering.line_editor import LineEditor
from pi_cli.extensions.ui import DialogOptionsUI, NoUI


def test_keys_are_terminal_data_and_match_by_name() -> None:
    assert key_data("up") == "\x1b[A" and key_data("enter") == "\r" and key_data("escape") == "\x1b"
    assert key_data("ctrl+c") == "\x03" and key_data("shift+tab") == "\x1b[Z" and key_data("A") == "A"
    assert key_data("full_stop", ".") == "." and key_data("f13") is None
    assert matches_key("\x1b", Key.escape) and matches_key("\r", "return") and matches_key("\x03", Key.ctrl("c"))
    assert matches_key("\x1b[1;5D", "ctrl+left") and matches_key("A", "shift+a") and not matches_key("a", "b")
    assert parse_key("\x1b[B") == "down" and parse_key("\x1bOA") == "up" and parse_key("\x1b[99~") is None
    keys = Keybindings()
    assert keys.matches("\r", "tui.select.confirm") and keys.matches("\x03", "tui.select.cancel")
    assert not keys.matches("x", "tui.select.cancel") and keys.get_keys("tui.select.up") == ["up"]


def test_width_helpers_count_cells_and_keep_styles() -> None:
    red = "\x1b[31mhello world\x1b[39m"
    assert visible_width(red) == 11 and visible_width("日本") == 4
    cut = truncate_to_width(red, 8)
    assert visible_width(cut) == 8 and cut.startswith("\x1b[31mhello") and cut.endswith("...")
    assert truncate_to_width("ab", 4, pad=True) == "ab  "
    wrapped = wrap_text_with_ansi("\x1b[1mone two three\x1b[22m four", 8)
    assert [visible_width(line) <= 8 for line in wrapped] == [True] * len(wrapped)
    assert wrapped[1].startswith("\x1b[1m")  # the bold carried onto the next line
    assert wrap_text_with_ansi("abcdefghij", 4) == ["abcd", "efgh", "ij"]


def test_line_editor_edits_and_submits() -> None:
    sent: list[str] = []
    editor = LineEditor(sent.append)
    for data in ("h", "i", "\x1b[D", "X", "\x7f", "\x1b[F", "!", "\r"):
        editor.handle_input(data)
    assert sent == ["hi!"] and "\x1b[7m" in editor.render(10)[0]


def test_overlay_options_from_pi_shapes() -> None:
    options = CustomOptions.of({"overlay": True, "overlayOptions": {"anchor": "top-right", "width": "50%"}})
    placement = options.placement()
    assert options.overlay and placement.anchor == "top-right" and placement.cells(placement.width, 100) == 50
    assert CustomOptions.of(None).placement(component={"width": 30}).width == 30
    assert OverlayOptions.of({"anchor": "nowhere", "maxHeight": 5}) == OverlayOptions(max_height=5)


async def test_run_custom_gives_done_value_and_closes() -> None:
    shown: list[Any] = []
    closed: list[bool] = []

    def present(hosted: Any, options: CustomOptions) -> Any:
        shown.append(hosted)
        return lambda: closed.append(True)

    def factory(tui: Any, done: Any) -> Any:
        class Component:
            def render(self, width: int) -> list[str]:
                return [f"w={width}\x1b[2J\x1b[32m!"]

            def handle_input(self, data: str) -> None:
                done(data)

        return Component()

    task = asyncio.ensure_future(run_custom(present, factory, CustomOptions()))
    await asyncio.sleep(0)
    assert shown[0].lines(12) == ["w=12\x1b[32m!"]  # only SGR survives
    shown[0].send("\x1b")
    assert await task == "\x1b" and closed == [True]
    assert await run_custom(None, factory, CustomOptions()) is None


async def test_component_errors_raise_in_the_awaiting_call() -> None:
    def factory(tui: Any, done: Any) -> Any:
        return {"render": lambda width: ["x"], "handle_input": lambda data: 1 / 0}

    hosts: list[Any] = []
    task = asyncio.ensure_future(run_custom(lambda h, o: hosts.append(h) or (lambda: None), factory, CustomOptions()))
    await asyncio.sleep(0)
    hosts[0].send("a")
    with pytest.raises(ZeroDivisionError):
        await task


async def test_no_ui_modes_answer_none_without_building() -> None:
    built: list[bool] = []
    ui = DialogOptionsUI(NoUI())
    assert await ui.custom(lambda *args: built.append(True)) is None and built == []


def _register_pick(results: list[Any], overlay: bool = False) -> Any:
    def register(pi: ExtensionAPI) -> None:
        async def pick(args: str, ctx: Any) -> None:
            def factory(tui: Any, theme: Any, keybindings: Any, done: Any) -> Any:
                state = {"index": 0}

                class Picker:
                    width = 30

                    def render(self, width: int) -> list[str]:
                        rows = [f"{'>' if i == state['index'] else ' '} item {i}" for i in range(3)]
                        return [theme.fg("accent", f"pick one (w{width})"), *rows]

                    def handle_input(self, data: str) -> None:
                        if matches_key(data, Key.down):
                            state["index"] += 1
                        elif keybindings.matches(data, "tui.select.confirm"):
                            done(f"item {state['index']}")
                        elif keybindings.matches(data, "tui.select.cancel"):
                            done(None)

                return Picker()

            results.append(await ctx.ui.custom(factory, {"overlay": overlay}))

        pi.register_command("pick", pick, "picks")

    return register


@pytest.mark.parametrize("overlay", [False, True])
async def test_tui_hosts_the_component_until_done(faux: Any, tmp_path: Path, overlay: bool) -> None:
    from pi_cli.modes.interactive.extension_ui.custom import ComponentView

    results: list[Any] = []
    app, runner = make_app(faux, tmp_path, _register_pick(results, overlay))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        for count, expected in enumerate(("item 1", None), 1):
            app.editor.load_text("/pick")
            await pilot.press("enter")
            await wait_until(pilot, lambda: bool(app.screen.query(ComponentView)))
            await pilot.pause()
            text = screen_text(app)
            assert "pick one" in text and "> item 0" in text
            assert f"(w{30 if overlay else SIZE[0]})" in text  # drawn at its real width
            await pilot.press("down")
            await pilot.pause()
            assert "> item 1" in screen_text(app)
            await pilot.press("enter" if expected else "escape")  # Escape reaches the component
            await wait_until(pilot, lambda: len(results) == count)  # noqa: B023
            await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        assert results == ["item 1", None] and not [n for n in notices(app) if "error" in n.lower()]


async def test_an_abort_takes_a_tools_component_away(faux: Any, tmp_path: Path) -> None:
    from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call
    from pi_cli.modes.interactive.extension_ui.custom import ComponentSheet

    answers: list[Any] = []

    def register(pi: ExtensionAPI) -> None:
        async def execute(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> str:
            component = {"render": lambda width: ["waiting"], "handle_input": lambda data: None}
            answers.append(await ctx.ui.custom(lambda tui, theme, kb, done: component))
            return "closed"

        pi.register_tool({"name": "wait", "description": "waits", "execute": execute})

    faux.set_responses([faux_assistant([faux_tool_call("wait", {})]), faux_assistant([faux_text("ok")])])
    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        run = asyncio.ensure_future(app.session.prompt("go"))
        await wait_until(pilot, lambda: isinstance(app.screen, ComponentSheet))
        await asyncio.wait_for(app.session.abort(), 5)  # the signal withdraws the view
        await asyncio.wait_for(run, 5)
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        assert answers == [None]


async def test_summarize_shows_its_summary_in_a_view(faux: Any, tmp_path: Path) -> None:
    from extensions.test_snake_example import make_stored_app
    from pi_cli.ai.providers.faux import faux_assistant, faux_text
    from pi_cli.extensions.examples.session_control.summarize import register
    from pi_cli.modes.interactive.extension_ui.custom import ComponentSheet

    faux.set_responses([faux_assistant([faux_text("sure")]), faux_assistant([faux_text("## Goal\nrefactor the api")])])
    app, runner, _manager = make_stored_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        await app.session.prompt("plan the refactor")
        app.editor.load_text("/summarize")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ComponentSheet))
        await pilot.pause()
        text = screen_text(app)
        assert "Conversation Summary" in text and "refactor the api" in text and "Press Enter or Esc" in text
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])


async def test_rpc_answers_none_and_sends_nothing() -> None:
    from pi_cli.modes.rpc.dialogs import RpcDialogs
    from pi_cli.modes.rpc.extension_ui import RpcExtensionUI

    sent: list[Any] = []
    built: list[bool] = []
    ui = DialogOptionsUI(RpcExtensionUI(RpcDialogs(sent.append), sent.append))
    assert await ui.custom(lambda *args: built.append(True), {"overlay": True}) is None
    assert sent == [] and built == []
    ui.set_footer(lambda *args: None)  # a no-op over RPC, as pi's
    assert sent == []


def test_overlay_test_rows_stay_aligned() -> None:
    from pi_cli.extensions.examples.components.overlay_test import OverlayTest

    dialog = OverlayTest(ExtensionTheme({"border": "#888888", "accent": "#00aaff"}), lambda value: None)
    for data in ("a", "日"):
        dialog.handle_input(data)
    assert {visible_width(line) for line in dialog.render(120)} == {70}


async def test_overlay_test_example_in_the_tui(faux: Any, tmp_path: Path) -> None:
    from pi_cli.extensions.examples.components.overlay_test import register
    from pi_cli.modes.interactive.extension_ui.custom import ComponentOverlay

    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: runner.started)
        app.editor.load_text("/overlay-test")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ComponentOverlay))
        await pilot.pause()
        assert app.screen.view.size.width == 70  # the component's own width
        await pilot.press("f", "i", "x", "enter")
        await wait_until(pilot, lambda: any('Search: "fix"' in n for n in notices(app)))
        assert app.screen is app.screen_stack[0]
