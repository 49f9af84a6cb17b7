"""Inline mode driven through prompt_toolkit's pipe input against the faux provider.

Keys go in as the bytes a terminal sends (Enter = CR, Alt+Enter = ESC CR, Alt+Up = ESC [1;3A,
Ctrl-C = ETX, Ctrl-D = EOT); scrollback is captured in a StringIO, the app draws to DummyOutput.
"""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call, register_faux_provider
from pi_cli.modes.inline.app import InlineApp
from pi_cli.session.agent_session import AgentSession
from pi_cli.tools import create_all_tools

ENTER, ALT_ENTER, ALT_UP, CTRL_C, CTRL_D = "\r", "\x1b\r", "\x1b[1;3A", "\x03", "\x04"


@pytest.fixture(autouse=True)
def _agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("PI_OFFLINE", "1")


@pytest.fixture
def faux() -> Iterator[Any]:
    provider = register_faux_provider(models=["faux-1"])
    yield provider
    provider.unregister()


def make_session(faux: Any, cwd: Path, tools: list[str] = (), parts: Any = None) -> AgentSession:  # type: ignore[assignment]
    from pi_cli.session.assembly import build_session

    available = create_all_tools(str(cwd))
    return build_session(cwd=cwd, parts=parts, system_prompt="test", model=faux.model(),
                         tools=[available[name] for name in tools])  # fmt: skip


def stored_session(faux: Any, root: Path) -> AgentSession:
    """A session written to a file under ``root`` (``/tree``, ``/export`` and the like need one)."""
    from pi_cli.session.assembly import build_session
    from pi_cli.session.store_bridge import SessionStoreBridge
    from pi_cli.store.manager import SessionManager

    work = root / "work"
    work.mkdir(exist_ok=True)
    store = SessionStoreBridge(SessionManager.create(work, root / "sessions", fsync=False), work)
    return build_session(cwd=work, store=store, system_prompt="test", model=faux.model())


def user_texts(context: Any) -> list[str]:
    out = []
    for message in context["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(content if isinstance(content, str) else "".join(b.get("text", "") for b in content))
    return out


async def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


async def drive(
    session: AgentSession, script: Callable[[Any, InlineApp, io.StringIO], Awaitable[None]]
) -> tuple[int, str]:
    """Run the inline app with piped keys; ``script`` types and checks; returns (exit code, scrollback)."""
    scrollback = io.StringIO()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        app = InlineApp(session, input=pipe, output=DummyOutput(), scrollback=scrollback, width=lambda: 80)
        runner = asyncio.ensure_future(app.run())
        await wait_for(lambda: app.app.is_running)
        await script(pipe, app, scrollback)
        code = await asyncio.wait_for(runner, 5)
    return code, scrollback.getvalue()


async def test_prompt_streams_answer_into_scrollback(faux: Any, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant([faux_text("The **answer** is 42.")])])
    session = make_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("what is it?" + ENTER)
        await wait_for(lambda: "42" in out.getvalue())
        await wait_for(lambda: not app.controller.running)
        pipe.send_text(CTRL_D)

    code, text = await drive(session, script)
    assert code == 0
    assert "what is it?" in text
    assert "The answer is 42." in text  # rendered as Markdown: the ** markers are gone
    assert [m["role"] for m in session.messages] == ["user", "assistant"]


async def test_enter_while_running_steers_and_alt_enter_follows_up(faux: Any, tmp_path: Path) -> None:
    release = asyncio.Event()

    async def slow_first(context: Any, options: Any, index: int) -> Any:
        await release.wait()
        return faux_assistant([faux_tool_call("bash", {"command": "echo tool-ran"})])

    faux.set_responses(
        [slow_first, faux_assistant([faux_text("after steering")]), faux_assistant([faux_text("after follow")])]
    )
    session = make_session(faux, tmp_path, ["bash"])

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("start" + ENTER)
        await wait_for(lambda: app.controller.running and faux.call_count == 1)
        pipe.send_text("steer me" + ENTER)
        pipe.send_text("follow me" + ALT_ENTER)
        await wait_for(lambda: session.follow_up_messages == ["follow me"])
        assert session.steering_messages == ["steer me"]
        lines = [text for _, text in app.controller.live_lines(80)]
        assert "Steering: steer me" in lines and "Follow-up: follow me" in lines
        release.set()
        await wait_for(lambda: faux.call_count == 3 and not app.controller.running)
        pipe.send_text(CTRL_D)

    code, text = await drive(session, script)
    assert code == 0
    second, third = faux.requests[1].context, faux.requests[2].context
    # Steering reaches the model after the tool batch; the follow-up only once the agent would stop.
    assert user_texts(second) == ["start", "steer me"]
    assert [m["role"] for m in second["messages"]][-2:] == ["toolResult", "user"]
    assert user_texts(third) == ["start", "steer me", "follow me"]
    assert "$ echo tool-ran" in text and "after follow" in text


async def test_alt_up_restores_queued_messages(faux: Any, tmp_path: Path) -> None:
    release = asyncio.Event()

    async def slow(context: Any, options: Any, index: int) -> Any:
        await release.wait()
        return faux_assistant([faux_text("done")])

    faux.set_responses([slow])
    session = make_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("go" + ENTER)
        await wait_for(lambda: faux.call_count == 1)
        pipe.send_text("one" + ENTER + "two" + ALT_ENTER)
        await wait_for(lambda: len(session.steering_messages) + len(session.follow_up_messages) == 2)
        pipe.send_text(ALT_UP)
        await wait_for(lambda: app.buffer.text == "one\n\ntwo")
        assert not session.steering_messages and not session.follow_up_messages
        release.set()
        await wait_for(lambda: not app.controller.running)
        app.buffer.reset()
        pipe.send_text(CTRL_D)

    code, _ = await drive(session, script)
    assert code == 0
    assert faux.call_count == 1  # restored text was not sent


async def test_ctrl_c_aborts_stream_restores_queue_then_new_prompt_works(faux: Any, tmp_path: Path) -> None:
    async def hang(context: Any, options: Any, index: int) -> Any:
        await asyncio.Event().wait()  # until the abort
        raise AssertionError("unreachable")

    faux.set_responses([hang, faux_assistant([faux_text("fresh answer")])])
    session = make_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("hang" + ENTER)
        await wait_for(lambda: faux.call_count == 1)
        pipe.send_text("queued text" + ENTER)
        await wait_for(lambda: session.steering_messages == ["queued text"])
        pipe.send_text(CTRL_C)
        await wait_for(lambda: not app.controller.running)
        await wait_for(lambda: app.buffer.text == "queued text")
        assert "Operation aborted" in out.getvalue()
        app.buffer.reset()
        pipe.send_text("again" + ENTER)
        await wait_for(lambda: "fresh answer" in out.getvalue())
        await wait_for(lambda: not app.controller.running)
        pipe.send_text(CTRL_D)

    code, _ = await drive(session, script)
    assert code == 0
    assert session.messages[-1]["stopReason"] == "stop"
    assert user_texts(faux.requests[1].context) == ["hang", "again"]


async def test_ctrl_c_aborts_running_bash_process(faux: Any, tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    faux.set_responses([faux_assistant([faux_tool_call("bash", {"command": f"echo $$ > {marker}; sleep 100"})])])
    session = make_session(faux, tmp_path, ["bash"])

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("run it" + ENTER)
        await wait_for(lambda: marker.exists() and marker.read_text().strip() != "")
        pid = int(marker.read_text())
        pipe.send_text(CTRL_C)
        await wait_for(lambda: not app.controller.running)
        await wait_for(lambda: not _alive(pid))
        pipe.send_text(CTRL_D)

    code, _ = await drive(session, script)
    assert code == 0
    assert faux.call_count == 1  # no further request after an abort during tools


async def test_double_ctrl_c_quits_and_single_clears(faux: Any, tmp_path: Path) -> None:
    session = make_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("draft")
        await wait_for(lambda: app.buffer.text == "draft")
        pipe.send_text(CTRL_C)
        await wait_for(lambda: app.buffer.text == "")
        pipe.send_text(CTRL_C)

    code, _ = await drive(session, script)
    assert code == 0
    assert faux.call_count == 0


async def test_ctrl_c_never_quits_with_text_typed_since_the_first_press(faux: Any, tmp_path: Path) -> None:
    """Issue 33: foo, Ctrl-C, bar, Ctrl-C quit and lost "bar"; now it clears and says how to quit."""
    session = make_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("foo")
        await wait_for(lambda: app.buffer.text == "foo")
        pipe.send_text(CTRL_C)
        await wait_for(lambda: app.buffer.text == "" and "Press Ctrl+C again to quit" in out.getvalue())
        pipe.send_text("bar")
        await wait_for(lambda: app.buffer.text == "bar")
        pipe.send_text(CTRL_C)  # within the window, but "bar" is new: cleared, not quit
        await wait_for(lambda: app.buffer.text == "")
        await asyncio.sleep(0.05)
        assert app.app.is_running
        pipe.send_text(CTRL_C)  # an empty editor within the window: quits

    code, _ = await drive(session, script)
    assert code == 0


async def test_ctrl_d_with_text_does_not_quit(faux: Any, tmp_path: Path) -> None:
    session = make_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("ab\x01")  # type, then Ctrl-A to the start
        await wait_for(lambda: app.buffer.text == "ab")
        pipe.send_text(CTRL_D)  # deletes the character under the cursor instead of quitting
        await wait_for(lambda: app.buffer.text == "b")
        assert app.app.is_running
        app.buffer.reset()
        pipe.send_text(CTRL_D)

    code, _ = await drive(session, script)
    assert code == 0


async def test_ctrl_j_inserts_newline_and_bang_runs_bash(faux: Any, tmp_path: Path) -> None:
    session = make_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("line1\nline2")  # \n is what Ctrl-J sends
        await wait_for(lambda: app.buffer.text == "line1\nline2")
        app.buffer.reset()
        pipe.send_text("!echo from-user-bash" + ENTER)
        await wait_for(lambda: "from-user-bash" in out.getvalue() and not app.controller.running)
        pipe.send_text(CTRL_D)

    code, text = await drive(session, script)
    assert code == 0
    assert "$ echo from-user-bash" in text
    assert any(m.get("role") == "bashExecution" for m in session.messages)
    assert faux.call_count == 0


async def test_hostile_model_text_is_neutralised(faux: Any, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant([faux_text("a\x1b]52;c;ZXZpbA==\x07b\x1b[2Jc\x1b]0;title\x07d")])])
    session = make_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("x" + ENTER)
        await wait_for(lambda: "abcd" in out.getvalue() and not app.controller.running)
        pipe.send_text(CTRL_D)

    _, text = await drive(session, script)
    assert "\x1b" not in text and "\x07" not in text


async def test_narrow_terminal_live_area_fits(faux: Any, tmp_path: Path) -> None:
    from pi_cli.modes.inline.controller import InlineController

    controller = InlineController(make_session(faux, tmp_path), lambda r: None)
    controller.live.text.append("word " * 100)
    controller.live.status = "x" * 10
    assert all(len(text) <= 40 for _, text in controller.live_lines(40))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_inline_slash_commands_switch_thinking_and_show_session(faux: Any, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant([faux_text("sent on")])])
    session = make_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("/session" + ENTER)
        await wait_for(lambda: "User: 0" in out.getvalue() and "Session Info" in out.getvalue())
        pipe.send_text("/hotkeys" + ENTER)
        await wait_for(lambda: "alt+enter" in out.getvalue())
        pipe.send_text("/not-a-command here" + ENTER)  # unknown: answered here (issue 33)
        await wait_for(lambda: "Unknown command: /not-a-command" in out.getvalue())
        pipe.send_text("/etc/hosts looks wrong" + ENTER)  # a path, not a command: sent
        await wait_for(lambda: "sent on" in out.getvalue() and not app.controller.running)
        pipe.send_text("/quit" + ENTER)

    code, _ = await drive(session, script)
    assert code == 0
    assert user_texts(faux.requests[0].context) == ["/etc/hosts looks wrong"]


async def test_inline_keys_of_the_first_hour(faux: Any, tmp_path: Path) -> None:
    """Issue 33 item 8: Esc then ``/`` types the slash, Ctrl-L opens the model picker, Esc Esc on an
    empty idle editor runs ``/tree`` — none of it reaches the model."""
    faux.set_responses([faux_assistant([faux_text("first answer")])])
    session = stored_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("hello" + ENTER)
        await wait_for(lambda: "first answer" in out.getvalue() and not app.controller.running)
        pipe.send_text("\x1b/")  # read as Meta-/ by prompt_toolkit's emacs keys: the "/" was lost
        await wait_for(lambda: app.buffer.text == "/")
        app.buffer.reset()
        pipe.send_text("\x0c")  # Ctrl-L
        await wait_for(lambda: "Select model" in out.getvalue() and "faux/faux-1" in out.getvalue())
        pipe.send_text(CTRL_C)  # cancel the picker
        await asyncio.sleep(0.05)
        before = len(out.getvalue())
        pipe.send_text("\x1b")
        await asyncio.sleep(0.1)
        pipe.send_text("\x1b")  # the second Escape within 0.5 s
        await wait_for(lambda: "user: hello" in out.getvalue()[before:])
        pipe.send_text(CTRL_C)
        await asyncio.sleep(0.05)
        app.buffer.reset()
        pipe.send_text("/quit" + ENTER)

    code, _ = await drive(session, script)
    assert code == 0
    assert faux.call_count == 1


async def test_inline_export_writes_the_file_and_sends_nothing(faux: Any, tmp_path: Path) -> None:
    """Issue 33 item 1: ``/export FILE`` in inline reached the model as text; now it writes FILE."""
    faux.set_responses([faux_assistant([faux_text("first answer")])])
    session = stored_session(faux, tmp_path)
    target = tmp_path / "out.jsonl"

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("hello" + ENTER)
        await wait_for(lambda: "first answer" in out.getvalue() and not app.controller.running)
        pipe.send_text(f"/export {target}" + ENTER)
        await wait_for(lambda: "Session exported to:" in out.getvalue())
        pipe.send_text("/quit" + ENTER)

    code, _ = await drive(session, script)
    assert code == 0 and faux.call_count == 1
    assert '"hello"' in target.read_text()
