"""A theme switch draws what a fresh start in that theme draws, and costs little: parsed rules are
kept per theme, the transcript's repaint requests are gathered (``restyle``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.css.stylesheet import Stylesheet
from textual.widget import Widget
from textual.widgets import Static

from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.restyle import CoalescedRepaint, ThemeStylesheet, coalesced_repaints, use_rules
from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown

SIZE = (100, 40)
ANSWER = "## Heading\n\n**bold**, `code`, a [link](https://x.y).\n\n- one\n- two\n\n```python\nprint('hi')\n```\n"
USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}  # fmt: skip


def _session(faux: Any, cwd: Path, theme: str) -> Any:
    """A session whose history holds answers, a tool card (done) and a user message per turn."""
    from pi_cli.session.assembly import build_session

    session = build_session(cwd=cwd, system_prompt="test", model=faux.model(), tools=[])
    messages = session.agent.state.messages
    for n in range(6):
        messages.append({"role": "user", "content": f"question {n}", "timestamp": 1})
        content: list[dict[str, Any]] = [{"type": "text", "text": ANSWER}]
        if n == 5:
            content.append({"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "notes.txt"}})
        messages.append({"role": "assistant", "content": content, "stopReason": "stop", "timestamp": 2,
                         "api": "x", "provider": "x", "model": "m", "usage": USAGE})  # fmt: skip
    messages.append({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": False,
                     "content": [{"type": "text", "text": "the notes"}], "timestamp": 3})  # fmt: skip
    session.themes.selected = theme
    return session


async def _settle(pilot: Any) -> None:
    await pilot.pause()
    await pilot.pause()


async def _switch(pilot: Any, app: Any, theme: str) -> None:
    app.session.themes.selected = theme
    app.show_theme()
    await _settle(pilot)


async def _scrolled_home(pilot: Any, app: Any) -> str:
    app.transcript.scroll_home(animate=False, immediate=True)
    await _settle(pilot)
    return str(app.export_screenshot())


async def _fresh(faux: Any, cwd: Path, theme: str) -> tuple[str, str]:
    """What a fresh start in ``theme`` draws at the end of the transcript and at its top."""
    app = make_app(_session(faux, cwd, theme), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        app.editor.cursor_blink = False
        await pilot.pause(0.3)
        await _settle(pilot)
        return app.export_screenshot(), await _scrolled_home(pilot, app)


async def test_dark_light_dark_draws_what_a_fresh_start_in_each_theme_draws(faux: Any, workdir: Path) -> None:
    fresh_dark, dark_top = await _fresh(faux, workdir, "dark")
    fresh_light, light_top = await _fresh(faux, workdir, "light")
    assert fresh_dark != fresh_light
    app = make_app(_session(faux, workdir, "dark"), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        app.editor.cursor_blink = False
        await pilot.pause(0.3)
        await _settle(pilot)
        assert app.export_screenshot() == fresh_dark
        await _switch(pilot, app, "light")
        assert app.theme == "textual-light"
        assert app.export_screenshot() == fresh_light  # borders, footer, editor, answers, the card
        await _switch(pilot, app, "dark")
        assert app.export_screenshot() == fresh_dark
        await _switch(pilot, app, "light")
        assert app.export_screenshot() == fresh_light
        # The entries scrolled out of view were restyled only when drawn again.
        assert await _scrolled_home(pilot, app) == light_top
        await _switch(pilot, app, "dark")
        assert app.export_screenshot() == dark_top
        app.transcript.scroll_end(animate=False, immediate=True)
        await _settle(pilot)
        assert app.export_screenshot() == fresh_dark


async def test_answers_take_the_new_palette_before_the_repaint(faux: Any, workdir: Path) -> None:
    """Textual's theme signal comes after the repaint that shows the new CSS; the answers switch
    palette within the restyle itself, so that one repaint already draws them in the new theme."""
    app = make_app(_session(faux, workdir, "dark"), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        blocks = list(app.query(StreamingMarkdown))
        assert blocks
        app.session.themes.selected = "light"
        app.show_theme()
        app.refresh_css(animate=False)  # what the theme's watcher scheduled, run now
        assert {block._renderer.palette.name for block in blocks} == {"light"}


async def test_a_switch_is_painted_as_soon_as_the_screen_is_idle(faux: Any, workdir: Path) -> None:
    """The restyled widgets' repaint requests reach the screen one by one after the restyle; the
    screen paints them when idle instead of at its update timer's next tick (~20 ms later)."""
    from pi_cli.modes.interactive.widgets.main_screen import MainScreen

    app = make_app(_session(faux, workdir, "dark"), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and not screen.paints_when_idle
        app.session.themes.selected = "light"
        app.show_theme()
        app.refresh_css(animate=False)  # what the theme's watcher scheduled, run now
        assert screen.paints_when_idle
        painted = screen.paints
        await pilot.pause(0)  # one turn of the loop: no timer tick needed
        assert screen.paints > painted


async def test_a_theme_seen_before_reuses_its_parsed_rules(faux: Any, workdir: Path) -> None:
    app = make_app(_session(faux, workdir, "dark"), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        assert isinstance(app.stylesheet, ThemeStylesheet)
        await _switch(pilot, app, "light")  # the start-up parse was Textual's first, not a reparse
        light = app.stylesheet.rules
        await _switch(pilot, app, "dark")
        dark = app.stylesheet.rules
        assert light is not dark
        await _switch(pilot, app, "light")
        assert app.stylesheet.rules is light
        await _switch(pilot, app, "dark")
        assert app.stylesheet.rules is dark


def test_new_sources_are_parsed_not_served_from_the_cache() -> None:
    sheet = ThemeStylesheet(variables={"accent": "red"})
    sheet.add_source("Static { color: $accent; }", read_from=("a", ""))
    sheet.reparse()
    first = sheet.rules
    sheet.add_source("Widget { color: blue; }", read_from=("b", ""))
    sheet.reparse()
    assert sheet.rules is not first and len(sheet.rules) == 2
    sheet.set_variables({"accent": "green"})
    sheet.reparse()
    assert "green" in sheet.css or "#008000" in sheet.css


def test_use_rules_hands_a_stylesheet_rules_parsed_elsewhere() -> None:
    """Pins the Textual internals ``use_rules`` sets (see its docstring)."""
    source = Stylesheet(variables={"accent": "red"})
    source.add_source("Static { color: $accent; } #x { height: 3; }", read_from=("a", ""))
    source.parse()
    target = Stylesheet(variables={"accent": "blue"})
    target.add_source("Label { color: $accent; }", read_from=("b", ""))
    assert set(target.rules_map) == {"Label"}  # parsed, and its map built
    target.add_source("Widget { height: 1; }", read_from=("c", ""))  # a parse pending
    use_rules(target, source.rules)
    assert target.rules is source.rules  # no parse pending any more
    assert set(target.rules_map) == {"Static", "#x"}  # the old map is gone


class _Counting(Widget):
    repaints = 0

    def refresh(self, *regions: Any, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Any:
        self.repaints += 1
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class _Entry(Static, CoalescedRepaint, _Counting):
    pass


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield _Entry("entry")


async def test_full_repaints_are_gathered_and_done_once_per_widget() -> None:
    app = _Host()
    async with app.run_test() as pilot:
        entry = app.query_one(_Entry)
        assert entry in app.query("Static")  # the mixin, listed last, keeps Static's CSS type
        await pilot.pause()
        entry.repaints = 0
        with coalesced_repaints():
            for _ in range(30):
                entry.refresh()
            with coalesced_repaints():  # nested: joins the outer block
                entry.refresh()
            assert entry.repaints == 0
            entry.refresh(layout=True)  # layouts are not held back
            assert entry.repaints == 1
        assert entry.repaints == 2


async def _with_settings_open(pilot: Any, app: Any) -> None:
    from pi_cli.modes.interactive.screens.picker import PickerScreen

    app.editor.set_text("/settings")
    await pilot.press("enter")
    while not isinstance(app.screen, PickerScreen):
        await pilot.pause()
    await _settle(pilot)


async def test_a_switch_under_a_dialog_restyles_the_screen_behind_it(faux: Any, workdir: Path) -> None:
    """/settings switches the theme with a dialog open (the main screen is not the current one
    then): once the dialog closes, the main screen is drawn as a fresh start in the new theme."""
    fresh = make_app(_session(faux, workdir, "light"), keymap={})
    async with fresh.run_test(size=SIZE) as pilot:
        fresh.editor.cursor_blink = False
        await _settle(pilot)
        light = fresh.export_screenshot()
    app = make_app(_session(faux, workdir, "dark"), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        app.editor.cursor_blink = False
        await _settle(pilot)
        await _with_settings_open(pilot, app)
        await _switch(pilot, app, "light")
        await pilot.press("escape")
        await _settle(pilot)
        assert app.export_screenshot() == light


class _Held(Static, CoalescedRepaint):
    STYLED_WHEN_DRAWN = True


class _Holder(Vertical, CoalescedRepaint):
    STYLED_WHEN_DRAWN = True


class _Menu(Static, CoalescedRepaint):
    """Not styled when drawn: restyled with the switch even out of view."""


class _Restyling(App[None]):
    CSS = "_Held, _Menu, _Holder Static { color: $primary; height: 1; } _Holder { height: auto; }"

    def __init__(self) -> None:
        super().__init__()
        self.stylesheet = ThemeStylesheet(variables=self.get_css_variables())

    def refresh_css(self, animate: bool = True) -> None:
        sheet = self.stylesheet
        assert isinstance(sheet, ThemeStylesheet)
        with coalesced_repaints(), sheet.visible_first():
            super().refresh_css(animate)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield _Holder(Static("a plain widget inside"))
            yield _Menu("not left for later")
            yield from (_Held(f"entry {n}") for n in range(60))


async def test_entries_out_of_view_are_restyled_when_drawn() -> None:
    app = _Restyling()
    async with app.run_test(size=(40, 10)) as pilot:
        app.theme = "textual-dark"
        await pilot.pause()
        scroll = app.query_one(VerticalScroll)
        scroll.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        entries = list(app.query(_Held))
        top, bottom = entries[0], entries[-1]
        dark = bottom.styles.color
        app.theme = "textual-light"
        await pilot.pause()
        light = bottom.styles.color
        assert light != dark
        assert top.styles_missed and top.styles.color == dark  # left for later
        holder = app.query_one(_Holder)
        assert not holder.styles_missed  # holds a widget that could not restyle it: done at once
        assert holder.query_one(Static).styles.color == light
        menu = app.query_one(_Menu)
        assert not menu.styles_missed and menu.styles.color == light
        scroll.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()
        assert not top.styles_missed and top.styles.color == light
