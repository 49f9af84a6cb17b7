"""Rough edges found by using the TUI in a real terminal (tmux): each test pins one fix."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from test_session_screens import stored_session
from textual.pilot import Pilot

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.screens.picker import PickerScreen
from pi_cli.modes.interactive.screens.tree import TreeScreen

SIZE = (100, 30)


async def wait_until(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


async def one_turn(pilot: Pilot[Any], app: Any, faux: Any, question: str = "question") -> None:
    faux.set_responses([faux_assistant([faux_text("answer")])])
    app.editor.load_text(question)
    await pilot.press("enter")
    await wait_until(pilot, lambda: not app.running and app.session.messages[-1]["role"] == "assistant")
    await app.pump.drain()


async def test_double_escape_on_an_empty_editor_opens_the_tree(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await one_turn(pilot, app, faux)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, TreeScreen)  # one Escape alone does nothing
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, TreeScreen))
        await pilot.press("escape")  # closes the tree, back to the editor
        await wait_until(pilot, lambda: not isinstance(app.screen, TreeScreen))
        assert app.focused is app.editor


async def test_double_escape_ignores_a_non_empty_editor_and_honours_the_setting(faux: Any, workdir: Path) -> None:
    from pi_cli.config.settings import Settings

    session = stored_session(faux, workdir, settings=Settings())
    app = make_app(session, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await one_turn(pilot, app, faux)
        app.editor.load_text("draft")
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.screen is app.screen_stack[0] and app.editor.text == "draft"
        app.editor.load_text("")
        session.settings.double_escape_action = "fork"
        await pilot.press("escape", "escape")
        picker = await _screen(pilot, app, PickerScreen)
        assert picker.title_text == "Fork from message"
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        session.settings.double_escape_action = "none"
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.screen is app.screen_stack[0]


async def _screen(pilot: Pilot[Any], app: Any, kind: type) -> Any:
    await wait_until(pilot, lambda: isinstance(app.screen, kind))
    return app.screen


async def test_page_keys_scroll_the_transcript_and_the_end_sticks_again(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        for i in range(6):
            await one_turn(pilot, app, faux, f"question {i}\n" + "line\n" * 5)
        transcript = app.transcript
        await wait_until(pilot, lambda: transcript.max_scroll_y > 0 and transcript.scroll_y >= transcript.max_scroll_y)
        page = transcript.scrollable_content_region.height
        bottom = transcript.max_scroll_y
        assert bottom > page  # enough history for two pages
        await pilot.press("pageup", "pageup")  # key repeat: each press moves a page
        await pilot.pause()
        assert transcript.scroll_y == max(0, bottom - 2 * page)
        assert app.focused is app.editor  # typing still goes to the prompt
        for _ in range(10):
            await pilot.press("pagedown")
        await pilot.pause()
        assert transcript.scroll_y >= transcript.max_scroll_y
        await one_turn(pilot, app, faux, "after")  # a new answer keeps the view at the end
        await wait_until(pilot, lambda: transcript.scroll_y >= transcript.max_scroll_y)
        await pilot.press("pageup", "pageup")  # scrolled back, then a new prompt: its answer in view
        await pilot.pause()
        assert transcript.scroll_y < transcript.max_scroll_y
        await one_turn(pilot, app, faux, "fresh prompt\n" + "line\n" * 8)
        await wait_until(pilot, lambda: transcript.scroll_y >= transcript.max_scroll_y - 1)


async def test_a_tool_only_or_error_turn_has_one_blank_line_above_it(faux: Any, workdir: Path) -> None:
    from pi_cli.ai.providers.faux import faux_tool_call
    from pi_cli.modes.interactive.widgets.messages import AssistantView, Notice
    from pi_cli.modes.interactive.widgets.tool_card import ToolCard

    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        faux.set_responses(
            [
                faux_assistant([faux_tool_call("nope", {})], stop_reason="toolUse"),
                faux_assistant([], stop_reason="error", error_message="boom"),
            ]
        )
        app.editor.load_text("go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.running and len(app.query(Notice)) > 0)
        await app.pump.drain()
        await pilot.pause()
        views = list(app.query(AssistantView))
        card = views[0].query_one(ToolCard)
        error = views[-1].query_one(Notice)
        assert card.styles.margin.top == 0 and error.styles.margin.top == 0
        assert views[0].styles.margin.top == 1  # the message itself keeps its gap


async def test_toasts_do_not_cover_the_editor(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        from textual.widgets._toast import Toast

        app.notify("Thinking level: high")
        await wait_until(pilot, lambda: len(app.screen.query(Toast)) > 0)
        await pilot.pause()
        toast = app.screen.query_one(Toast)
        assert toast.region.y < app.editor.region.y - 3  # at the top, well above the prompt


async def test_settings_reopen_on_the_toggled_row(faux: Any, workdir: Path) -> None:
    session = stored_session(faux, workdir)
    app = make_app(session, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("/settings")
        await pilot.press("enter")
        picker = await _screen(pilot, app, PickerScreen)
        await pilot.press("down", "down", "down")  # Auto-retry
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen is not picker)
        reopened = app.screen
        await pilot.pause()
        from textual.widgets import OptionList

        assert reopened.query_one(OptionList).highlighted == 3  # still on Auto-retry, not the top
        assert session.auto_retry_enabled is False
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        assert app.focused is app.editor


async def test_session_info_is_one_fact_a_line(faux: Any, workdir: Path) -> None:
    from pi_cli.modes.interactive.widgets.messages import Notice

    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=(60, 30)) as pilot:
        await one_turn(pilot, app, faux)
        app.editor.load_text("/session")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Session Info" in str(n.render()) for n in app.query(Notice)))
        text = next(str(n.render()) for n in app.query(Notice) if "Session Info" in str(n.render()))
        lines = text.splitlines()
        for line in ("Messages", "User: 1", "Assistant: 1", "Tool Calls: 0", "Tokens"):
            assert line in lines


async def test_light_theme_inline_code_has_no_black_background(faux: Any, workdir: Path) -> None:
    from rich.color import Color

    from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown

    app = make_app(stored_session(faux, workdir), keymap={})
    app.theme = "textual-light"
    async with app.run_test(size=SIZE) as pilot:
        faux.set_responses([faux_assistant([faux_text("use `snippet` here")])])
        app.editor.load_text("q")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.running and len(app.query(StreamingMarkdown)) > 0)
        await app.pump.drain()
        await pilot.pause()

        def code_background() -> Color | None:
            answer = app.query(StreamingMarkdown).last()
            for y in range(answer.size.height):
                for segment in answer.render_line(y):
                    if "snippet" in segment.text and segment.style is not None:
                        return segment.style.bgcolor
            raise AssertionError("inline code not rendered")

        black = Color.parse("black")
        assert code_background() != black  # the light palette from the first frame: the screen's own
        app.theme = "textual-dark"
        await pilot.pause()
        assert code_background() == black  # the dark palette's black background again
        app.theme = "textual-light"
        await pilot.pause()
        assert code_background() != black


async def test_model_picker_rereads_models_json(faux: Any, workdir: Path) -> None:
    import json
    import os

    from pi_cli.models.registry import ModelRegistry

    session = stored_session(faux, workdir, registry=ModelRegistry().load())
    app = make_app(session, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        models_json = Path(os.environ["PI_CODING_AGENT_DIR"]) / "models.json"
        provider = {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "x",
                    "models": [{"id": "added-later", "name": "Added later"}]}  # fmt: skip
        models_json.write_text(json.dumps({"providers": {"local": provider}}))
        await pilot.press("ctrl+l")
        picker = await _screen(pilot, app, PickerScreen)
        assert "local/added-later" in [item.key for item in picker.items]


async def test_thinking_is_set_apart_from_the_answer(faux: Any, workdir: Path) -> None:
    from pi_cli.ai.providers.faux import faux_thinking
    from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown
    from pi_cli.modes.interactive.widgets.messages import ThinkingBlock

    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        faux.set_responses([faux_assistant([faux_thinking("step one\nstep two"), faux_text("the answer")])])
        app.editor.load_text("q")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.running and len(app.query(StreamingMarkdown)) > 0)
        await app.pump.drain()
        await pilot.press("ctrl+t")
        await pilot.pause()
        block = app.query_one(ThinkingBlock)
        answer = app.query_one(StreamingMarkdown)
        assert answer.region.y - (block.region.y + block.region.height) == 1  # one blank line between


async def test_ctrl_c_closes_pickers_like_escape(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await one_turn(pilot, app, faux)
        await pilot.press("ctrl+l")
        await _screen(pilot, app, PickerScreen)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        assert app.focused is app.editor and app.is_running  # closed the picker, did not quit
        app.editor.load_text("/tree")
        await pilot.press("enter")
        await _screen(pilot, app, TreeScreen)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        assert app.focused is app.editor


async def test_reading_back_while_an_answer_streams_is_not_yanked_to_the_end(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        for i in range(3):
            await one_turn(pilot, app, faux, f"question {i}\n" + "line\n" * 6)
        # Slow enough that text is still arriving after PageUp even on a loaded 2-core machine.
        faux.tokens_per_second = 120
        faux.set_responses([faux_assistant([faux_text("\n\n".join(f"paragraph {n}" for n in range(150)))])])
        app.editor.load_text("long answer")
        await pilot.press("enter")
        transcript = app.transcript
        await wait_until(pilot, lambda: app.running and transcript.max_scroll_y > 40)
        await pilot.press("pageup")
        await pilot.pause()
        held = transcript.scroll_y
        grown = transcript.max_scroll_y
        await wait_until(pilot, lambda: transcript.max_scroll_y > grown + 10)  # more text arrived
        assert transcript.scroll_y == held  # the reader stays where they are
        await wait_until(pilot, lambda: not app.running)
        await app.pump.drain()
        assert transcript.scroll_y == held
        for _ in range(60):
            await pilot.press("pagedown")
            if transcript.scroll_y >= transcript.max_scroll_y:
                break
        assert transcript.scroll_y >= transcript.max_scroll_y


async def test_header_hints_wrap_between_items(faux: Any, workdir: Path) -> None:
    from pi_cli.modes.interactive.widgets.status import StartHeader

    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        header = app.query_one(StartHeader)
        lines = str(header.render()).splitlines()[1:]
        assert len(lines) >= 2 and all(len(line) <= 58 for line in lines)
        assert "ctrl+o more" in lines[-1]
        for line in lines:  # every line is whole hints: none starts or ends with a separator
            assert not line.startswith("·") and not line.endswith("·")
            assert line.split(" · ")[0] in header.hints


async def test_focus_returns_to_the_editor_after_choosing_in_a_modal(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await one_turn(pilot, app, faux)
        app.editor.load_text("/thinking")
        await pilot.press("enter")
        await _screen(pilot, app, PickerScreen)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        await pilot.press("o", "k")
        assert app.editor.text == "ok"
        app.editor.load_text("")
        await pilot.press("ctrl+l")
        await _screen(pilot, app, PickerScreen)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        await pilot.press("h", "i")
        assert app.editor.text == "hi"


async def test_switching_to_light_restyles_answers_already_shown(faux: Any, workdir: Path) -> None:
    from rich.color import Color

    from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown

    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        faux.set_responses([faux_assistant([faux_text("use `snippet` here")])])
        app.editor.load_text("q")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.running and len(app.query(StreamingMarkdown)) > 0)
        await app.pump.drain()
        await pilot.pause()

        def code_background() -> Color | None:
            chunk = app.query(StreamingMarkdown).last()
            for y in range(chunk.size.height):
                for segment in chunk.render_line(y):
                    if "snippet" in segment.text and segment.style is not None:
                        return segment.style.bgcolor
            raise AssertionError("inline code not rendered")

        assert code_background() == Color.parse("black")  # Rich's dark default
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        assert code_background() != Color.parse("black")
