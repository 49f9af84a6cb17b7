"""``ctx.ui.set_title``, ``set_working_indicator`` and ``set_working_message`` (pi's): the TUI's
working line and title, inline's working line, and a quiet no-op where there is no UI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extensions.test_tui_ui import SIZE, make_app, screen_text, wait_until
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.ui import DialogUI


def test_the_settings_are_kept_and_announced(tmp_path: Path) -> None:
    changes: list[str] = []
    ui = DialogUI(None, lambda text, level: None, on_change=lambda kind, key: changes.append(kind))
    runner = ExtensionRunner(str(tmp_path))
    runner.ui = ui
    ctx_ui = runner.context().ui
    ctx_ui.set_working_indicator({"frames": ["a", "b"], "intervalMs": 250})
    assert ui.working_frames == ["a", "b"] and ui.working_interval_ms == 250
    ctx_ui.set_working_indicator()
    assert ui.working_frames is None and ui.working_interval_ms is None
    ctx_ui.set_working_message("Thinking hard...")
    ctx_ui.set_title("pi - project")
    assert ui.working_message == "Thinking hard..." and ui.title == "pi - project"
    assert changes == ["working", "working", "working", "title"]
    quiet = ExtensionRunner(str(tmp_path)).context().ui  # print/json: no working line, no error
    quiet.set_working_indicator({"frames": []})
    quiet.set_working_message("x")


async def test_tui_working_line_and_title_follow_the_extension(faux: Any, tmp_path: Path) -> None:
    def register(pi: Any) -> None:
        def started(event: dict[str, Any], ctx: Any) -> None:
            ctx.ui.set_working_indicator({"frames": [ctx.ui.theme.fg("accent", "●")], "intervalMs": 200})
            ctx.ui.set_working_message("Pondering...")
            ctx.ui.set_title("pi - my-project")

        pi.on("session_start", started)

    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started and app.title == "pi - my-project")
        app.working.start("Working...")
        assert app.working.text == "● Pondering... (esc to interrupt)"
        app.working.set_message("Retrying (1/3) in 2s...")  # pi_cli's own messages stay
        assert app.working.text.startswith("● Retrying")
        runner.context().ui.set_working_indicator({"frames": []})
        runner.context().ui.set_working_message()
        app.working.set_message("Working...")
        assert app.working.text == "Working... (esc to interrupt)"
        runner.context().ui.set_working_indicator()
        assert app.working.text.endswith(" Working... (esc to interrupt)") and app.working.text[0] in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def test_inline_working_text(tmp_path: Path) -> None:
    from pi_cli.modes.inline.extensions import ExtensionView

    runner = ExtensionRunner(str(tmp_path))
    runner.ui = DialogUI(None, lambda text, level: None)
    view = ExtensionView(runner)
    assert view.working_text() == "Working... (ctrl+c to abort)"
    runner.context().ui.set_working_indicator({"frames": ["\x1b[31m*\x1b[39m", "+"]})
    runner.context().ui.set_working_message("Busy")
    assert view.working_text() == "* Busy (ctrl+c to abort)"
    assert ExtensionView(None).working_text() == "Working... (ctrl+c to abort)"


async def test_inline_title_reaches_the_apps_setter(faux: Any, tmp_path: Path) -> None:
    from extensions.test_inline_ui import drive, make_session, wait_for

    session, runner = make_session(faux, tmp_path, lambda pi: None)
    titles: list[str] = []

    async def script(pipe: Any, app: Any, out: Any) -> None:
        await wait_for(lambda: runner.started)
        app.controller.on_title = titles.append  # the declared seam, in place of the terminal
        runner.context().ui.set_title("pi - inline")
        app.set_title("no terminal in a scrollback test")  # a no-op: nothing is written

    await drive(session, script)
    assert titles == ["pi - inline"]


def test_working_visibility_and_thinking_label_are_kept_and_announced(tmp_path: Path) -> None:
    changes: list[str] = []
    ui = DialogUI(None, lambda text, level: None, on_change=lambda kind, key: changes.append(kind))
    runner = ExtensionRunner(str(tmp_path))
    runner.ui = ui
    ctx_ui = runner.context().ui
    ctx_ui.set_working_visible(False)
    ctx_ui.set_hidden_thinking_label("Pondering...")
    assert ui.working_visible is False and ui.hidden_thinking_label == "Pondering..."
    ctx_ui.set_hidden_thinking_label()
    assert ui.hidden_thinking_label is None
    assert changes == ["working", "thinking_label", "thinking_label"]
    quiet = ExtensionRunner(str(tmp_path)).context().ui  # print/json/RPC: no-ops, as pi's RPC mode
    quiet.set_working_visible(False)
    quiet.set_hidden_thinking_label("x")
    assert quiet.get_all_themes() == [] and quiet.get_theme("light") is None
    assert quiet.set_theme("light") == {"success": False, "error": "Theme switching not supported in this mode"}


async def test_tui_hides_the_working_line_relabels_thinking_and_switches_theme(faux: Any, tmp_path: Path) -> None:
    from pi_cli.modes.interactive.widgets.messages import ThinkingBlock

    saved: list[tuple[str, Any]] = []
    app, runner = make_app(faux, tmp_path, lambda pi: None)
    app.session._save_setting = lambda key, value: saved.append((key, value))  # no settings file in tests
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        ctx_ui = runner.context().ui
        app.working.start("Working...")
        await pilot.pause()
        assert app.working.display
        ctx_ui.set_working_visible(False)
        await pilot.pause()
        assert not app.working.display
        ctx_ui.set_working_visible(True)
        await pilot.pause()
        assert app.working.display
        block = ThinkingBlock("step one\nstep two")
        await app.transcript.add(block)
        await pilot.pause()
        assert "Thinking… (2 lines, ctrl+t to show)" in screen_text(app)
        ctx_ui.set_hidden_thinking_label("Pondering...")
        await pilot.pause()
        assert "Pondering... (2 lines, ctrl+t to show)" in screen_text(app)
        names = [t["name"] for t in ctx_ui.get_all_themes()]
        assert {"dark", "light"} <= set(names)
        assert ctx_ui.get_theme("light") is not None and ctx_ui.get_theme("light").dark is False
        assert ctx_ui.set_theme("nope")["success"] is False
        assert ctx_ui.set_theme("light") == {"success": True}
        await pilot.pause()
        assert app.current_theme.name == "textual-light" and saved == [("theme", "light")]
        assert ctx_ui.set_theme(ctx_ui.get_theme("dark")) == {"success": True}  # a theme object, by its name
        await pilot.pause()
        assert app.current_theme.name == "textual-dark"


async def test_a_finished_thinking_block_shows_its_label_at_once(faux: Any, tmp_path: Path) -> None:
    """A thinking block built whole (a resumed session) drew nothing until Ctrl-T: its first draw
    ran while Textual still counted it as not mounted."""
    from pi_cli.modes.interactive.widgets.messages import AssistantView

    app, _runner = make_app(faux, tmp_path, lambda pi: None)
    message = {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "a\nb\nc"}, {"type": "text", "text": "done"}],
        "stopReason": "stop",
    }
    async with app.run_test(size=SIZE) as pilot:
        await app.transcript.add(AssistantView(message))
        await pilot.pause()
        assert "Thinking… (3 lines, ctrl+t to show)" in screen_text(app)
