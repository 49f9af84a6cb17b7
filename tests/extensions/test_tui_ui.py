"""ctx.ui in the Textual TUI: footer statuses, widgets above the editor, editor text, dialogs,
notices, and extension shortcuts (firing, async handlers, errors, conflicts)."""

from __future__ import annotations

import asyncio
import html
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
SIZE = (90, 30)


def make_app(faux: Any, cwd: Path, register: Callable[[ExtensionAPI], None]) -> tuple[Any, ExtensionRunner]:
    from pi_cli.modes.interactive import make_app as build
    from pi_cli.session.assembly import SessionParts, build_session

    runner = ExtensionRunner(str(cwd))
    register(ExtensionAPI(runner, "ext.py"))
    session = build_session(cwd=cwd, parts=SessionParts(extensions=runner), system_prompt="t", model=faux.model())
    return build(session, keymap={}), runner


async def wait_until(pilot: Any, condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


def screen_text(app: Any) -> str:
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


def notices(app: Any) -> list[str]:
    from pi_cli.modes.interactive.widgets.messages import Notice

    return [str(n.render()) for n in app.query(Notice)]


async def test_status_and_widgets_are_drawn_and_removed(faux: Any, tmp_path: Path) -> None:
    def register(pi: ExtensionAPI) -> None:
        def started(event: dict[str, Any], ctx: Any) -> None:
            ctx.ui.set_status("zeta", "Z-status")
            ctx.ui.set_status("alpha", "A\nstatus")
            ctx.ui.set_widget("first", ["widget one", "second line"])
            ctx.ui.set_widget("second", [f"row {n}" for n in range(14)])

        pi.on("session_start", started)

    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started and bool(app.extension_ui.widgets.shown))
        await pilot.pause()
        chrome = app.extension_ui
        assert chrome.status.text == "A status Z-status"  # sorted by key, flattened
        screen = screen_text(app)
        assert "A status Z-status" in screen
        assert "widget one" in screen and "second line" in screen
        assert "row 9" in screen and "row 10" not in screen and "widget truncated" in screen
        # widgets above the editor, in the order they were first set
        widgets = list(app.query("ExtensionWidget"))
        assert [w.key for w in widgets] == ["first", "second"]
        assert widgets[0].region.y < widgets[1].region.y < app.editor.region.y
        assert app.footer_bar.region.y < chrome.status.region.y  # status under the footer

        ui = runner.ui
        ui.set_widget("first", ["changed"])
        ui.set_status("zeta", None)
        await pilot.pause()
        assert [w.key for w in app.query("ExtensionWidget")] == ["first", "second"]
        assert widgets[0].lines == ["changed"]
        assert chrome.status.text == "A status"
        ui.set_widget("low", ["below the editor"], placement="belowEditor")
        await pilot.pause()
        low = chrome.widgets_below.shown["low"]
        assert app.editor.region.y < low.region.y < app.footer_bar.region.y
        ui.set_widget("low", ["moved up"])  # default placement: back above the editor
        await pilot.pause()
        assert not chrome.widgets_below.shown and chrome.widgets.shown["low"].lines == ["moved up"]
        with pytest.raises(ValueError, match="placement"):
            ui.set_widget("x", ["?"], placement="sideways")
        ui.set_widget("low", None)
        ui.set_widget("first", None)
        ui.set_status("alpha", None)
        await pilot.pause()
        assert [w.key for w in app.query("ExtensionWidget")] == ["second"]
        assert not chrome.status.display
        assert "A status" not in screen_text(app)


async def test_status_update_repaints_without_layout(faux: Any, tmp_path: Path) -> None:
    """A status changing on every turn must not relayout the screen (issue 15)."""
    app, runner = make_app(faux, tmp_path, lambda pi: None)
    async with app.run_test(size=SIZE) as pilot:
        runner.ui.set_status("tokens", "1 tok")
        runner.ui.set_widget("w", ["one"])
        await pilot.pause()
        layouts: list[bool] = []
        for widget in (app.extension_ui.status, app.extension_ui.widgets.shown["w"]):
            original = widget.refresh

            def spy(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
                layouts.append(bool(kwargs.get("layout")))
                return _original(*args, **kwargs)

            widget.refresh = spy  # type: ignore[method-assign]
        for n in range(20):
            runner.ui.set_status("tokens", f"{n} tok")
            runner.ui.set_widget("w", [f"count {n}"])
        await pilot.pause()
        assert layouts and not any(layouts)
        assert "19 tok" in screen_text(app) and "count 19" in screen_text(app)


async def test_editor_text_dialogs_and_notify(faux: Any, tmp_path: Path) -> None:
    from pi_cli.modes.interactive.screens.approval import ApprovalScreen

    answers: list[Any] = []

    def register(pi: ExtensionAPI) -> None:
        async def ask(args: str, ctx: Any) -> None:
            answers.append(await ctx.ui.confirm("Proceed?", "really"))
            ctx.ui.notify(f"answer {answers[-1]}", "warning")
            ctx.ui.set_editor_text("drafted by ext")

        pi.register_command("ask", ask, "asks")

    app, _runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        app.editor.load_text("/ask")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("enter")  # the first option: Yes
        await wait_until(pilot, lambda: app.editor.text == "drafted by ext")
        assert app.editor.cursor_location == (0, len("drafted by ext"))  # typing goes on at the end
        assert answers == [True]
        await wait_until(pilot, lambda: any("answer True" in n for n in notices(app)))


async def test_shortcuts_fire_report_errors_and_conflicts(faux: Any, tmp_path: Path) -> None:
    fired: list[str] = []

    def register(pi: ExtensionAPI) -> None:
        async def slow(ctx: Any) -> None:
            await asyncio.sleep(0)
            fired.append("f5")
            ctx.ui.set_status("mode", "plan")

        def broken(ctx: Any) -> None:
            raise RuntimeError("shortcut broke")

        pi.register_shortcut("ctrl+shift+k", lambda ctx: fired.append("ctrl+shift+k"), "kay")
        pi.register_shortcut("F5", slow, "async")
        pi.register_shortcut("ctrl+/", broken)
        pi.register_shortcut("ctrl+c", lambda ctx: fired.append("stolen"))  # reserved: skipped
        pi.register_shortcut("alt+up", lambda ctx: fired.append("alt+up"))  # not reserved: taken over

    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        await wait_until(pilot, lambda: len(notices(app)) >= 2)
        lines = notices(app)
        skipped = "Extension shortcut 'ctrl+c' from ext.py conflicts with built-in shortcut. Skipping."
        assert any(skipped in n for n in lines)
        assert any("'alt+up' is built-in shortcut for app.message.dequeue" in n for n in lines)
        app.editor.load_text("keep me")
        await pilot.press("ctrl+shift+k", "f5", "alt+up", "ctrl+c")
        await wait_until(pilot, lambda: len(fired) >= 3 and app.editor.text == "")
        await pilot.pause()
        # handlers run as workers (the async one may finish last); ctrl+c stayed the built-in (clear)
        assert sorted(fired) == ["alt+up", "ctrl+shift+k", "f5"]
        await wait_until(pilot, lambda: app.extension_ui.status.text == "plan")
        await pilot.press("ctrl+slash")
        await wait_until(pilot, lambda: any("shortcut broke" in n for n in notices(app)))
        assert any("Extension error (ext.py, shortcut:ctrl+/): RuntimeError: shortcut broke" in n for n in notices(app))
        app.editor.load_text("/hotkeys")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Keyboard shortcuts" in n for n in notices(app)))
        listing = next(n for n in notices(app) if "Keyboard shortcuts" in n)
        extensions = listing.split("\nExtensions\n", 1)[1]
        assert "ctrl+shift+k" in extensions and "kay" in extensions and "f5" in extensions
        assert "ctrl+c" not in extensions  # the skipped one is not listed
    # the bindings went to this app only: a fresh app has none (the class's binding lists are shared)
    fresh, _ = make_app(faux, tmp_path, lambda pi: None)
    assert all("extension_shortcut" not in b.action for bs in fresh._bindings.key_to_bindings.values() for b in bs)


def test_shortcut_key_syntax() -> None:
    from pi_cli.extensions.shortcuts import canonical_key
    from pi_cli.modes.interactive.extension_ui.bridge import textual_key

    assert canonical_key("Shift+Ctrl+S") == "ctrl+shift+s"
    assert canonical_key("alt+ctrl+pageUp") == "ctrl+alt+pageup"
    assert canonical_key("ctrl++") == "ctrl++"
    assert textual_key("ctrl++") == "ctrl+plus"
    assert textual_key("ctrl+shift+/") == "ctrl+shift+slash"
    assert textual_key("ctrl+`") == "ctrl+grave_accent"
    assert textual_key("shift+a") == "A"
    assert canonical_key("esc") == "escape"
    for bad in ("ctrl+", "hyper+x", "ctrl+nosuchkey", ""):
        with pytest.raises(ValueError):
            canonical_key(bad)
    runner = ExtensionRunner(".")
    with pytest.raises(ValueError, match="unknown modifier"):
        ExtensionAPI(runner, "x.py").register_shortcut("meta+x", lambda ctx: None)


async def test_tui_mode_shutdown_and_session_shutdown_on_the_way_out(faux: Any, tmp_path: Path) -> None:
    seen: list[Any] = []

    def register(pi: ExtensionAPI) -> None:
        pi.on("session_start", lambda event, ctx: seen.append(("mode", ctx.mode)))
        pi.on("session_shutdown", lambda event, ctx: seen.append(("shutdown", event["reason"])))
        pi.register_command("bye", lambda args, ctx: ctx.shutdown(), "Quit")

    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.ready)
        assert seen == [("mode", "tui")]
        await app.session.prompt("/bye")
        await wait_until(pilot, lambda: not app.is_running)
    assert seen == [("mode", "tui"), ("shutdown", "quit")]
    await runner.shutdown()  # a later dispose does not say it twice
    assert seen.count(("shutdown", "quit")) == 1


async def test_new_asks_through_session_before_switch_without_blocking_the_app(faux: Any, tmp_path: Path) -> None:
    from pi_cli.modes.interactive import make_app as build
    from pi_cli.modes.interactive.screens.approval import ApprovalScreen
    from pi_cli.session.assembly import SessionParts, build_session
    from pi_cli.session.store_bridge import SessionStoreBridge
    from pi_cli.store.manager import SessionManager

    runner = ExtensionRunner(str(tmp_path))

    async def guard(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        return None if await ctx.ui.confirm("Clear session?") else {"cancel": True}

    ExtensionAPI(runner, "ext.py").on("session_before_switch", guard)
    manager = SessionManager.create(str(tmp_path), tmp_path / "sessions", fsync=False)
    session = build_session(
        cwd=tmp_path, parts=SessionParts(extensions=runner), store=SessionStoreBridge(manager, tmp_path),
        system_prompt="t", model=faux.model(),
    )  # fmt: skip
    app = build(session, keymap={})
    first = session.session_id
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.ready)
        app.editor.load_text("/new")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))  # the dialog answers keys
        await pilot.press("down", "enter")  # No
        await wait_until(pilot, lambda: any("cancelled by an extension" in n for n in notices(app)))
        assert session.session_id == first
        app.editor.load_text("/new")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("enter")  # Yes
        await wait_until(pilot, lambda: any("New session started" in n for n in notices(app)))
        assert session.session_id != first
