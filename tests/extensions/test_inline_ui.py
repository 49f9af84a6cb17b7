"""ctx.ui in inline mode (prompt_toolkit): statuses on a footer line, widgets above the prompt,
set_editor_text into the prompt buffer, confirm through the scrollback question, shortcuts."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.modes.inline.app import InlineApp
from pi_cli.modes.inline.extensions import prompt_toolkit_keys

ENTER, CTRL_D = "\r", "\x04"


def make_session(faux: Any, cwd: Path, register: Callable[[ExtensionAPI], None]) -> tuple[Any, ExtensionRunner]:
    from pi_cli.session.assembly import SessionParts, build_session

    runner = ExtensionRunner(str(cwd))
    register(ExtensionAPI(runner, "ext.py"))
    session = build_session(cwd=cwd, parts=SessionParts(extensions=runner), system_prompt="t", model=faux.model())
    return session, runner


async def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


async def drive(session: Any, script: Callable[[Any, InlineApp, io.StringIO], Awaitable[None]]) -> str:
    scrollback = io.StringIO()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        app = InlineApp(session, input=pipe, output=DummyOutput(), scrollback=scrollback, width=lambda: 60)
        running = asyncio.ensure_future(app.run())
        await wait_for(lambda: app.app.is_running)
        await script(pipe, app, scrollback)
        pipe.send_text(CTRL_D)
        await asyncio.wait_for(running, 5)
    return scrollback.getvalue()


def flat(out: io.StringIO) -> str:
    """The scrollback with rich's line wrapping undone."""
    return " ".join(out.getvalue().split())


def texts(fragments: list[tuple[str, str]]) -> str:
    return "".join(text for _, text in fragments)


async def test_status_widgets_and_editor_text(faux: Any, tmp_path: Path) -> None:
    def register(pi: ExtensionAPI) -> None:
        def started(event: dict[str, Any], ctx: Any) -> None:
            ctx.ui.set_status("b", "second")
            ctx.ui.set_status("a", "first\tone")
            ctx.ui.set_widget("todo", ["- [ ] write tests", "- [x] land"])

        def fill(args: str, ctx: Any) -> None:
            ctx.ui.set_editor_text(f"filled {args}")

        pi.on("session_start", started)
        pi.register_command("fill", fill)

    session, runner = make_session(faux, tmp_path, register)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        view = app.controller.extension_view
        await wait_for(lambda: runner.started and view.has_status())
        assert texts(app._status()) == "first one second"  # sorted by key, one line
        assert texts(app._widgets()) == "- [ ] write tests\n- [x] land"
        runner.ui.set_widget("todo", ["x" * 100])
        assert texts(app._widgets()) == "x" * 59 + "…"  # clipped to the width, recomputed
        runner.ui.set_widget("under", ["below the prompt"], placement="belowEditor")
        assert texts(app._widgets("belowEditor")) == "below the prompt" and view.has_widgets("belowEditor")
        assert "below the prompt" not in texts(app._widgets())
        runner.ui.set_widget("under", None)
        assert not view.has_widgets("belowEditor")
        runner.ui.set_widget("todo", None)
        runner.ui.set_status("a", None)
        runner.ui.set_status("b", None)
        assert not view.has_widgets() and not view.has_status()
        pipe.send_text("/fill me" + ENTER)
        await wait_for(lambda: app.buffer.text == "filled me")
        app.buffer.reset()

    await drive(session, script)


async def test_confirm_and_notify_in_scrollback(faux: Any, tmp_path: Path) -> None:
    answers: list[bool] = []

    def register(pi: ExtensionAPI) -> None:
        async def ask(args: str, ctx: Any) -> None:
            answers.append(await ctx.ui.confirm("Deploy?", "to prod"))
            ctx.ui.notify(f"deploy answered {answers[-1]}", "info")

        pi.register_command("deploy", ask)

    session, _runner = make_session(faux, tmp_path, register)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("/deploy" + ENTER)
        await wait_for(lambda: "Deploy?" in out.getvalue())
        pipe.send_text("1" + ENTER)  # the first option: Yes
        await wait_for(lambda: "deploy answered True" in out.getvalue())

    await drive(session, script)
    assert answers == [True]


async def test_shortcuts_fire_and_conflicts_are_reported(faux: Any, tmp_path: Path) -> None:
    fired: list[str] = []

    def register(pi: ExtensionAPI) -> None:
        async def toggled(ctx: Any) -> None:
            await asyncio.sleep(0)
            fired.append("alt+k")
            ctx.ui.set_status("mode", "plan mode")

        def broken(ctx: Any) -> None:
            raise ValueError("bad key handler")

        pi.register_shortcut("ctrl+x", lambda ctx: fired.append("ctrl+x"))
        pi.register_shortcut("alt+k", toggled)
        pi.register_shortcut("f5", broken)
        pi.register_shortcut("ctrl+d", lambda ctx: fired.append("stolen"))
        pi.register_shortcut("ctrl+shift+s", lambda ctx: fired.append("never"))

    session, _runner = make_session(faux, tmp_path, register)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        await wait_for(lambda: "cannot be bound in inline mode" in flat(out))
        assert "Extension shortcut 'ctrl+d' from ext.py conflicts with built-in shortcut. Skipping." in flat(out)
        pipe.send_text("\x18")  # Ctrl-X
        pipe.send_text("\x1bk")  # Alt-K
        await wait_for(lambda: sorted(fired) == ["alt+k", "ctrl+x"])
        await wait_for(lambda: app.controller.extension_view.status_text(60) == "plan mode")
        pipe.send_text("\x1b[15~")  # F5
        await wait_for(lambda: "bad key handler" in flat(out))
        pipe.send_text("/hotkeys" + ENTER)
        await wait_for(lambda: "Extensions" in out.getvalue())
        listing = out.getvalue().split("Extensions", 1)[1]
        assert "ctrl+x" in listing and "alt+k" in listing and "ctrl+shift+s" not in listing

    text = await drive(session, script)
    assert "Extension error (ext.py, shortcut:f5): ValueError: bad key handler" in " ".join(text.split())
    assert "stolen" not in fired and "never" not in fired


def test_prompt_toolkit_key_names() -> None:
    assert prompt_toolkit_keys("ctrl+x") == ("c-x",)
    assert prompt_toolkit_keys("ctrl+alt+x") == ("escape", "c-x")
    assert prompt_toolkit_keys("alt+enter") == ("escape", "enter")
    assert prompt_toolkit_keys("shift+tab") == ("s-tab",)
    assert prompt_toolkit_keys("ctrl+shift+up") == ("c-s-up",)
    assert prompt_toolkit_keys("shift+a") == ("A",)
    assert prompt_toolkit_keys("f12") == ("f12",)
    assert prompt_toolkit_keys("ctrl+space") == ("c-@",)
    for unusable in ("ctrl+shift+s", "super+k", "ctrl+alt+shift+x", "ctrl+/"):
        assert prompt_toolkit_keys(unusable) is None


async def test_inline_mode_shutdown_and_session_shutdown(faux: Any, tmp_path: Path) -> None:
    seen: list[Any] = []

    def register(pi: ExtensionAPI) -> None:
        pi.on("session_start", lambda event, ctx: seen.append(("mode", ctx.mode)))
        pi.on("session_shutdown", lambda event, ctx: seen.append(("shutdown", event["reason"])))
        pi.register_command("bye", lambda args, ctx: ctx.shutdown(), "Quit")

    session, runner = make_session(faux, tmp_path, register)
    scrollback = io.StringIO()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        app = InlineApp(session, input=pipe, output=DummyOutput(), scrollback=scrollback, width=lambda: 60)
        running = asyncio.ensure_future(app.run())
        await wait_for(lambda: app.app.is_running and runner.ready)
        await session.prompt("/bye")  # ctx.shutdown(): the app quits by itself, no Ctrl-D
        await asyncio.wait_for(running, 5)
    assert seen == [("mode", "inline"), ("shutdown", "quit")]
