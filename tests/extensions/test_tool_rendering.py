"""Tool renderers (``render_call`` / ``render_result``), ``ctx.ui.theme`` and the ``todo`` example
(issue 31, Deliver item 2)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rich.console import Console

from pi_cli.extensions import ExtensionAPI, ExtensionRunner
from pi_cli.extensions.rendering import ExtensionTheme, RenderContext, RenderOptions
from pi_cli.modes.inline.render import tool_block
from pi_cli.modes.interactive.widgets.tool_card import ToolCard

RESULT = {"content": [{"type": "text", "text": "raw output"}], "details": {"n": 3}}


def _tool(**renderers: Any) -> dict[str, Any]:
    return {"name": "count", "description": "d", "execute": lambda *a: "x", **renderers}


def _runner(tmp_path: Path, **renderers: Any) -> tuple[ExtensionRunner, list[dict[str, Any]]]:
    runner = ExtensionRunner(str(tmp_path))
    errors: list[dict[str, Any]] = []
    runner.on_error = errors.append
    ExtensionAPI(runner, "r.py").register_tool(_tool(**renderers))
    return runner, errors


def _plain(renderable: Any) -> str:
    console = Console(width=80, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_renderers_are_found_by_tool_name_and_give_lines(tmp_path: Path) -> None:
    seen: list[Any] = []

    def call(args: dict[str, Any], theme: Any, context: Any) -> str:
        return f"count to {args['to']}"

    def result(result: dict[str, Any], options: Any, theme: Any, context: Any) -> list[str]:
        seen.append((options.expanded, options.is_partial, context.tool_call_id))
        return [f"n = {result['details']['n']}", "second"]

    runner, errors = _runner(tmp_path, render_call=call, renderResult=result)  # pi's name works too
    renderer = runner.renderer_for("count")
    assert renderer is not None and runner.renderer_for("read") is None
    assert renderer.call({"to": 3}, RenderContext("c1")) == ["count to 3"]
    assert renderer.result(RESULT, RenderOptions(expanded=True), RenderContext("c1")) == ["n = 3", "second"]
    assert seen == [(True, False, "c1")] and errors == []
    ExtensionAPI(runner, "r.py").register_tool(_tool())  # replaced without renderers: default again
    assert runner.renderer_for("count") is None


def test_a_raising_renderer_falls_back_and_is_reported_once(tmp_path: Path) -> None:
    def boom(*args: Any) -> str:
        raise RuntimeError("bad render")

    runner, errors = _runner(tmp_path, render_call=boom, render_result=lambda *a: 42)
    renderer = runner.renderer_for("count")
    assert renderer is not None
    for _ in range(3):
        assert renderer.call({}, RenderContext()) is None
        assert renderer.result(RESULT, RenderOptions(), RenderContext()) is None
    assert [e["event"] for e in errors] == ["render_call:count", "render_result:count"]
    assert "bad render" in errors[0]["error"] and errors[0]["extensionPath"] == "r.py"
    card = ToolCard("c1", "count", {})
    card.renderer = renderer
    card.finish(RESULT, False)
    assert "count" in _plain(card.build()) and "raw output" in _plain(card.build())  # the default drawing


def test_theme_colours_come_from_the_session_and_style_text(tmp_path: Path) -> None:
    theme = ExtensionTheme({"accent": "#ff0080", "muted": ""}, "t")
    assert theme.fg("accent", "x") == "\x1b[38;2;255;0;128mx\x1b[39m"
    assert theme.bg("accent", "x") == "\x1b[48;2;255;0;128mx\x1b[49m"
    assert theme.fg("muted", "x") == "x" and theme.fg("nope", "x") == "x"  # no colour: unstyled
    assert theme.bold("x") == "\x1b[1mx\x1b[22m" and theme.accent == "#ff0080"
    runner = ExtensionRunner(str(tmp_path))
    assert runner.context().ui.theme.fg("accent", "x") == "x"  # no session yet: unstyled, no error
    active = SimpleNamespace(colors={"accent": "#010203"}, name="mine", dark=False)
    runner.host = SimpleNamespace(themes=SimpleNamespace(active=lambda: active))  # type: ignore[assignment]
    ctx_theme = runner.context().ui.theme
    assert ctx_theme.color("accent") == "#010203" and ctx_theme.name == "mine" and not ctx_theme.dark
    assert ctx_theme.fg("accent", "y") == "\x1b[38;2;1;2;3my\x1b[39m"


def test_tool_card_and_inline_block_draw_the_renderer_lines(tmp_path: Path) -> None:
    def call(args: dict[str, Any], theme: Any, context: Any) -> str:
        return "\x1b[1mCOUNT\x1b[22m \x1b]0;evil-title\x07" + str(args.get("to"))

    def result(result: dict[str, Any], options: Any, theme: Any, context: Any) -> str:
        return "all lines" if options.expanded else ("partial" if options.is_partial else "short")

    runner, _ = _runner(tmp_path, render_call=call, render_result=result)
    card = ToolCard("c1", "count", {"to": 7})
    card.renderer = runner.renderer_for("count")
    assert _plain(card.build()).splitlines()[0] == "COUNT 7  …"  # title replaced (state mark kept); OSC dropped
    card.start()
    card.set_partial({"content": [{"type": "text", "text": "raw"}]})
    assert "partial" in _plain(card.build())
    card.finish(RESULT, False)
    assert "short" in _plain(card.build()) and "raw output" not in _plain(card.build())
    card._expanded = True
    assert "all lines" in _plain(card.build())
    block = _plain(tool_block("count", {"to": 7}, RESULT, False, runner.renderer_for("count"), "c1"))
    assert "COUNT 7" in block and "short" in block and "raw output" not in block and "evil" not in block


async def test_a_mounted_card_asks_the_apps_seam_for_its_renderer(tmp_path: Path) -> None:
    from textual.app import App, ComposeResult

    runner, _ = _runner(tmp_path, render_result=lambda result, options, theme, context: "DRAWN BY EXTENSION")

    class Host(App[None]):
        def tool_renderer(self, name: str) -> Any:
            return runner.renderer_for(name)

        def compose(self) -> ComposeResult:
            card = ToolCard("c1", "count", {})
            card.finish(RESULT, False)
            yield card

    app = Host()
    async with app.run_test(size=(60, 8)) as pilot:
        await pilot.pause()
        card = app.query_one(ToolCard)
        rows = [card.render_line(y).text for y in range(card.size.height)]
        assert any("DRAWN BY EXTENSION" in row for row in rows) and not any("raw output" in row for row in rows)


async def test_render_shell_self_drops_the_cards_own_frame(tmp_path: Path) -> None:
    """pi's ``renderShell: "self"``: the renderer draws the whole row, so the card keeps no
    background or padding of its own; without it the card keeps both."""
    from textual.app import App, ComposeResult

    own, _ = _runner(tmp_path, render_call=lambda a, t, c: "OWN", renderShell="self")
    framed, _ = _runner(tmp_path, render_call=lambda a, t, c: "FRAMED")
    assert own.renderer_for("count").shell == "self" and framed.renderer_for("count").shell == "default"

    class Host(App[None]):
        def __init__(self, runner: ExtensionRunner) -> None:
            super().__init__()
            self.runner = runner

        def tool_renderer(self, name: str) -> Any:
            return self.runner.renderer_for(name)

        def compose(self) -> ComposeResult:
            card = ToolCard("c1", "count", {})
            card.finish(RESULT, False)
            yield card

    for runner, expected_pad, transparent in ((own, 0, True), (framed, 1, False)):
        app = Host(runner)
        async with app.run_test(size=(60, 8)) as pilot:
            await pilot.pause()
            card = app.query_one(ToolCard)
            assert card.styles.padding.left == expected_pad
            assert (card.styles.background.a == 0) is transparent
            assert card.render_line(0).text.lstrip().startswith("OWN" if transparent else "FRAMED")
