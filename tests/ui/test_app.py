"""Behaviour of the interactive app against a real AgentSession and the faux provider."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import make_session
from textual.pilot import Pilot

from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call
from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.screens.picker import PickerScreen
from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown
from pi_cli.modes.interactive.widgets.messages import Notice, UserView
from pi_cli.modes.interactive.widgets.tool_card import ToolCard

SIZE = (100, 40)


async def wait_until(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


async def settle(pilot: Pilot[Any], app: Any) -> None:
    """Wait for the run to finish and every event to be rendered."""
    await wait_until(pilot, lambda: not app.running)
    await app.pump.drain()
    await pilot.pause()


async def send(pilot: Pilot[Any], app: Any, text: str, key: str = "enter") -> None:
    """Put ``text`` in the editor and press ``key`` (typing key by key is slow while streaming)."""
    app.editor.load_text(text)
    await pilot.press(key)


def bash_tools(cwd: Path) -> list[Any]:
    from pi_cli.tools import create_all_tools

    return [create_all_tools(cwd)["bash"]]


def user_texts(messages: list[Any]) -> list[str]:
    out = []
    for message in messages:
        if message.get("role") == "user":
            content = message["content"]
            out.append(content if isinstance(content, str) else "".join(b.get("text", "") for b in content))
    return out


LONG_MARKDOWN = (
    "\n\n".join(
        f"## Part {n}\n\nParagraph {n} with **bold** words and `code`.\n\n- item {n}a\n- item {n}b" for n in range(40)
    )
    + "\n\nFINISHED-HERE"
)


def long_answer_app(faux: Any, workdir: Path) -> Any:
    """An app whose model answers :data:`LONG_MARKDOWN` at 4,000 tokens/s (see :func:`ask`)."""
    faux.tokens_per_second = 4000
    faux.set_responses([faux_assistant([faux_text(LONG_MARKDOWN)])])
    return make_app(make_session(faux, workdir), keymap={})


async def ask(pilot: Pilot[Any], app: Any, text: str = "hi") -> None:
    """Type ``text``, press Enter and wait until the whole answer is rendered."""
    await pilot.press(*text, "enter")
    await settle(pilot, app)


async def test_after_first_paint_callbacks_run_once_the_screen_is_up(faux: Any, workdir: Path) -> None:
    app = make_app(make_session(faux, workdir), keymap={})
    calls: list[bool] = []
    app.after_first_paint.append(lambda: calls.append(app.footer_bar.is_mounted))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(calls))
        await pilot.pause()
        assert calls == [True]
        assert "faux-1" in app.export_screenshot()


async def test_streaming_renders_the_full_text(faux: Any, workdir: Path) -> None:
    app = long_answer_app(faux, workdir)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app)
        views = list(app.query(StreamingMarkdown))
        assert len(views) == 1 and views[0].source == LONG_MARKDOWN
        assert views[0].piece_count > 1  # finished parts were frozen as pieces
        assert "FINISHED-HERE" in app.export_screenshot()  # the tail reached the screen
        assert [u.text for u in app.query(UserView)] == ["hi"]
        deltas = sum(1 for _ in range(0, len(LONG_MARKDOWN), 12))  # faux chunks hold 12-20 chars
        assert app.pump.frames < deltas  # deltas were merged, not rendered one by one
        assert not app.pump.errors


async def test_enter_while_running_steers_after_the_tool_batch(faux: Any, workdir: Path) -> None:
    faux.set_responses(
        [
            faux_assistant([faux_tool_call("bash", {"command": "sleep 2; echo first"})]),
            faux_assistant([faux_text("ok, adjusted")]),
        ]
    )
    app = make_app(make_session(faux, workdir, bash_tools(workdir)), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"go", "enter")
        await wait_until(pilot, lambda: any(c.state == "running" for c in app.query(ToolCard)))
        app.editor.load_text("use python instead")
        await pilot.press("enter")
        await pilot.pause()
        assert "Steering: use python instead" in app.queue_area.text
        assert app.editor.text == ""
        await settle(pilot, app)
        second = faux.requests[1].context["messages"]
        roles = [m["role"] for m in second]
        assert roles[-3:] == ["assistant", "toolResult", "user"]
        assert user_texts(second)[-1] == "use python instead"
        assert not app.queue_area.has_class("-shown")


async def test_alt_enter_queues_a_follow_up(faux: Any, workdir: Path) -> None:
    faux.tokens_per_second = 100
    faux.set_responses([faux_assistant([faux_text("word " * 200)]), faux_assistant([faux_text("second answer")])])
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"first", "enter")
        await wait_until(pilot, lambda: faux.call_count == 1 and app.session.is_streaming)
        await send(pilot, app, "then this", "alt+enter")
        await pilot.pause()
        assert "Follow-up: then this" in app.queue_area.text
        await settle(pilot, app)
        assert faux.call_count == 2
        assert user_texts(faux.requests[1].context["messages"]) == ["first", "then this"]


async def test_alt_up_restores_queued_messages(faux: Any, workdir: Path) -> None:
    faux.tokens_per_second = 100
    faux.set_responses([faux_assistant([faux_text("word " * 200)])])
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"first", "enter")
        await wait_until(pilot, lambda: app.session.is_streaming)
        await send(pilot, app, "steer me")
        await send(pilot, app, "later", "alt+enter")
        app.editor.load_text("draft")
        await pilot.press("alt+up")
        assert app.editor.text == "steer me\n\nlater\n\ndraft"
        assert app.session.steering_messages == [] and app.session.follow_up_messages == []
        await settle(pilot, app)
        assert faux.call_count == 1


async def test_ctrl_c_aborts_a_stream_and_the_next_prompt_works(faux: Any, workdir: Path) -> None:
    faux.tokens_per_second = 100
    faux.set_responses([faux_assistant([faux_text("slow " * 200)])])
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"talk", "enter")
        await wait_until(pilot, lambda: app.session.is_streaming and faux.call_count == 1)
        await pilot.pause(0.2)
        await send(pilot, app, "queued")
        await pilot.press("ctrl+c")
        await settle(pilot, app)
        last = app.session.messages[-1]
        assert last["role"] == "assistant" and last["stopReason"] == "aborted"
        assert any("Operation aborted" in str(n.render()) for n in app.query(Notice))
        assert app.editor.text == "queued"  # unsent steering came back, nothing lost
        faux.tokens_per_second = None
        faux.append_responses([faux_assistant([faux_text("fresh answer")])])
        app.editor.load_text("")
        await pilot.press(*"again", "enter")
        await settle(pilot, app)
        assert app.session.messages[-1]["content"][0]["text"] == "fresh answer"
        assert app.is_running


async def test_ctrl_c_kills_a_running_bash_tool(faux: Any, workdir: Path) -> None:
    pid_file = workdir / "pid"
    faux.set_responses([faux_assistant([faux_tool_call("bash", {"command": f"echo $$ > {pid_file}; sleep 30"})])])
    app = make_app(make_session(faux, workdir, bash_tools(workdir)), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"run it", "enter")
        await wait_until(pilot, lambda: pid_file.exists() and pid_file.read_text().strip() != "")
        pid = int(pid_file.read_text())
        await pilot.press("ctrl+c")
        await settle(pilot, app)

        def gone() -> bool:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            return False

        await wait_until(pilot, gone, timeout=3)
        assert [c.state for c in app.query(ToolCard)] == ["error"]


async def test_double_ctrl_c_quits_and_single_clears(faux: Any, workdir: Path) -> None:
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"some text", "ctrl+c")
        assert app.editor.text == ""
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_value == 0
    assert not app.is_running


async def test_ctrl_d_quits_only_on_an_empty_editor(faux: Any, workdir: Path) -> None:
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"ab", "home", "ctrl+d")
        assert app.editor.text == "b"
        assert app.is_running
        await pilot.press("ctrl+d", "ctrl+d")
        await pilot.pause()
    assert app.return_value == 0


async def test_model_picker_changes_the_next_request_model(faux: Any, workdir: Path) -> None:
    faux.set_responses([faux_assistant([faux_text("from two")])])
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen)
        await pilot.press(*"faux-2", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, PickerScreen)
        assert app.session.model["id"] == "faux-2"
        assert "faux-2" in str(app.footer_bar.render())
        await pilot.press(*"hello", "enter")
        await settle(pilot, app)
        assert faux.requests[-1].model["id"] == "faux-2"


async def test_history_newline_and_keybinding_override(faux: Any, workdir: Path) -> None:
    faux.set_responses([faux_assistant([faux_text("a")])])
    app = make_app(make_session(faux, workdir), keymap={"tui.input.newLine": "ctrl+n"})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"one", "ctrl+n", *"two", "enter")
        await settle(pilot, app)
        assert user_texts(app.session.messages) == ["one\ntwo"]
        await pilot.press("up")
        assert app.editor.text == "one\ntwo"
        await pilot.press("down")
        assert app.editor.text == ""


async def test_bang_runs_bash_and_double_bang_stays_out_of_context(faux: Any, workdir: Path) -> None:
    faux.set_responses([faux_assistant([faux_text("seen")])])
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "!echo visible-output")
        await wait_until(pilot, lambda: any(c.state == "done" for c in app.query(ToolCard)))
        await send(pilot, app, "!!echo secret-output")
        await wait_until(pilot, lambda: sum(c.state == "done" for c in app.query(ToolCard)) == 2)
        cards = list(app.query(ToolCard))
        assert "visible-output" in cards[0].output and "secret-output" in cards[1].output
        assert "not sent to the model" in cards[1].notes
        await send(pilot, app, "what ran?")
        await settle(pilot, app)
        sent = str(faux.requests[0].context["messages"])
        assert "visible-output" in sent and "secret-output" not in sent


async def test_escape_aborts_and_keys_toggle_views(faux: Any, workdir: Path) -> None:
    faux.tokens_per_second = 100
    faux.set_responses([faux_assistant([faux_text("slow " * 200)])])
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "talk")
        await wait_until(pilot, lambda: app.session.is_streaming)
        await pilot.press("escape")
        await settle(pilot, app)
        assert app.session.messages[-1]["stopReason"] == "aborted"
        await pilot.press("ctrl+o", "ctrl+t")
        assert app.tools_expanded and app.show_thinking


async def test_slash_commands(faux: Any, workdir: Path) -> None:
    faux.set_responses([faux_assistant([faux_text("answer")])])
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/name my work")
        assert app.session.session_name == "my work"
        assert "my work" in str(app.footer_bar.render())
        await send(pilot, app, "/session")
        await send(pilot, app, "/hotkeys")
        notices = [str(n.render()) for n in app.query(Notice)]
        assert any("Session name set: my work" in n for n in notices)
        assert any("Session Info" in n and "Tool Calls: 0" in n for n in notices)
        assert any("Keyboard shortcuts" in n and "alt+enter" in n for n in notices)
        await send(pilot, app, "/thinking high")
        assert app.session.thinking_level in ("high", "off")  # clamped to the model's support
        await send(pilot, app, "/unknown-thing please")  # answered here, never sent (issue 33)
        await pilot.pause()
        assert any("Unknown command: /unknown-thing" in str(n.render()) for n in app.query(Notice))
        assert faux.call_count == 0
        await send(pilot, app, "/usr/bin/env is missing, why?")  # a path, not a command
        await settle(pilot, app)
        assert user_texts(faux.requests[0].context["messages"]) == ["/usr/bin/env is missing, why?"]
        await send(pilot, app, "/quit")
        await pilot.pause()
    assert app.return_value == 0


async def test_completion_for_commands_and_paths(faux: Any, workdir: Path) -> None:
    (workdir / "src").mkdir()
    (workdir / "src" / "main.py").write_text("print(1)\n")
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", "h", "o")
        assert app.menu.is_open and app.menu.items[0].value == "/hotkeys "
        await pilot.press("tab")
        assert app.editor.text == "/hotkeys "
        app.editor.load_text("")
        await pilot.press(*"look", "space", "at", "sign", "s", "r")
        assert app.menu.is_open and app.menu.items[0].value == "@src/"
        await pilot.press("tab")
        assert app.editor.text == "look @src/"
        assert app.menu.items[0].value == "@src/main.py "
        await pilot.press("tab")
        assert app.editor.text == "look @src/main.py "
        await pilot.press("escape")
        assert not app.menu.is_open


async def test_ctrl_c_never_quits_with_text_typed_since_the_first_press(faux: Any, workdir: Path) -> None:
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("foo")
        await pilot.press("ctrl+c")
        assert app.editor.text == ""
        app.editor.load_text("bar")
        await pilot.press("ctrl+c")  # within a second, but "bar" is new: cleared, not quit
        await pilot.pause()
        assert app.is_running and app.editor.text == ""
        await pilot.press("ctrl+c")  # an empty editor within the window: quits
        await pilot.pause()
    assert app.return_value == 0


async def test_enter_right_after_fast_typing_completes_the_text_as_it_is(faux: Any, workdir: Path) -> None:
    """Issue 33: "/", a pause, then "hotkeys" and Enter typed fast gave "/model hotkeys" — the menu
    still held what "/" completed to when Enter came."""
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("/")
        await pilot.pause()
        assert app.menu.is_open and app.menu.items[0].value == "/model "
        app.editor.load_text("/hotkeys")  # its Changed message is not handled yet
        app.editor.action_submit()
        await pilot.pause()
        assert app.editor.text == ""  # sent, not turned into "/model hotkeys"
        assert any("Keyboard shortcuts" in str(n.render()) for n in app.query(Notice))


async def test_ctrl_p_cycles_models_and_shift_tab_reports_thinking(faux: Any, workdir: Path) -> None:
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        assert app.session.model["id"] == "faux-2"
        assert "faux-2" in str(app.footer_bar.render())
        await pilot.press("ctrl+p")
        assert app.session.model["id"] == "faux-1"
        await pilot.press("shift+tab")
        assert app.session.thinking_level == "off"  # the faux model has no reasoning levels


async def test_long_history_mounts_a_bounded_window_and_pages_in_on_scroll(faux: Any, workdir: Path) -> None:
    from pi_cli.ai.types import empty_usage

    history: list[Any] = []
    for n in range(150):
        history.append({"role": "user", "content": f"question {n}", "timestamp": 0})
        history.append(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"answer {n}"}],
                "api": "x",
                "provider": "faux",
                "model": "faux-1",
                "usage": empty_usage(),
                "stopReason": "stop",
                "timestamp": 0,
            }
        )
    session = make_session(faux, workdir)
    session.agent.state.messages = history
    app = make_app(session, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        transcript = app.transcript
        assert transcript.record_count == 301  # header + 300 messages
        assert transcript.mounted_count <= transcript.max_mounted
        assert [u.text for u in app.query(UserView)][-1] == "question 149"
        before = transcript.mounted_count
        assert await transcript.load_earlier() == transcript.page
        assert transcript.mounted_count == before + transcript.page


async def test_new_session_without_storage_reports_instead_of_crashing(faux: Any, workdir: Path) -> None:
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/new")
        await pilot.pause()
        assert app.is_running
        assert any("/new" in str(n.render()) for n in app.query(Notice))


async def test_new_session_with_storage_starts_fresh(workdir: Path, tmp_path: Path) -> None:
    from pi_cli.session.assembly import SessionOptions, create_agent_session

    session = create_agent_session(SessionOptions(cwd=workdir, session_dir=str(tmp_path / "sessions")))
    app = make_app(session, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "hello demo")
        await settle(pilot, app)
        assert app.session.messages
        first_file = app.session.session_file
        await send(pilot, app, "/new")
        await pilot.pause()
        assert app.session.messages == []
        assert app.session.session_file != first_file
        assert any("New session started" in str(n.render()) for n in app.query(Notice))
        assert not list(app.query(UserView))


def _lazy_history(cwd: Path, agent_dir: Path, monkeypatch: Any) -> Any:
    """The resumed context of a generated session with every message left in its file."""
    import sys

    from pi_cli.store.manager import SessionManager
    from pi_cli.store.slim import lazy_entries

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from tui_workloads import write_session

    path = write_session(agent_dir, str(cwd), entries=200)
    monkeypatch.setattr(lazy_entries, "SLIM_FILE_BYTES", 0)
    _context, lazy = SessionManager.open(path).build_lazy_context()
    assert lazy is not None
    return lazy


async def test_a_huge_resumed_session_shows_the_same_transcript_read_lazily(
    faux: Any, workdir: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    """Messages left in the session file (LazyMessages) are read only for the widgets built, and
    the transcript (tool cards with their results included) is the one the decoded list gives."""
    lazy = _lazy_history(workdir, tmp_path / "agent", monkeypatch)
    screens = []
    for messages in (lazy, list(lazy)):
        session = make_session(faux, workdir)
        session.agent.state.messages = messages
        app = make_app(session, keymap={})
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            transcript = app.transcript
            assert transcript.mounted_count <= transcript.max_mounted
            cards = [(c.tool_name, c.state) for c in app.query(ToolCard)]
            assert cards and all(state == "done" for _name, state in cards)
            await transcript.load_earlier()
            await pilot.pause()
            screens.append((transcript.record_count, cards, [type(w).__name__ for w in transcript.children]))
        if messages is lazy:
            assert session.agent.state.message_view() is lazy  # showing them decoded nothing for the agent
    assert screens[0] == screens[1]


async def test_start_up_freeze_is_handed_back_when_the_transcript_is_cleared(faux: Any, workdir: Path) -> None:
    # A real run freezes start-up's objects (headless tests do not); /new, /resume and /fork
    # clear the transcript, which makes part of them garbage the collector must see again.
    import gc

    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert gc.get_freeze_count() == 0  # headless: nothing frozen
        gc.freeze()
        try:
            assert gc.get_freeze_count() > 0
            await app.transcript.clear_entries()
            assert gc.get_freeze_count() == 0
        finally:
            gc.unfreeze()


async def test_compact_on_a_tiny_session_says_what_pi_says_once(faux: Any, workdir: Path) -> None:
    # pi 1.6.0's /compact reports the compaction_end's errorMessage as it is, once.
    from pi_cli.session.assembly import build_session
    from pi_cli.session.store_bridge import SessionStoreBridge
    from pi_cli.store.manager import SessionManager

    faux.set_responses([faux_assistant([faux_text("answer")])])
    store = SessionStoreBridge(SessionManager.in_memory(workdir), workdir)
    session = build_session(cwd=workdir, system_prompt="test", model=faux.model(), tools=[], store=store)
    app = make_app(session, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "hi")
        await settle(pilot, app)
        await send(pilot, app, "/compact")
        await wait_until(pilot, lambda: any("Compaction" in str(n.render()) for n in app.query(Notice)))
        await app.pump.drain()
        await pilot.pause()
        notices = [str(n.render()) for n in app.query(Notice) if "ompact" in str(n.render())]
        assert notices == ["Compaction failed: Nothing to compact (session too small)"]
        assert faux.call_count == 1
