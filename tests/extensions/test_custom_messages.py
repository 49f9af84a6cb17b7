"""Custom messages and entries in the terminal front ends (pi's default drawing of a displayed
custom message, ``register_message_renderer``, ``register_entry_renderer``), and the
``message_start``/``message_end`` pi announces when an idle session appends a custom message.
The ``status_messages`` example (pi's message-renderer and entry-renderer) drives them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extensions.test_inline_ui import drive, flat, wait_for
from extensions.test_inline_ui import make_session as make_inline_session
from extensions.test_tui_ui import SIZE, make_app, wait_until
from pi_cli.extensions.examples.rendering import status_messages
from pi_cli.modes.interactive.widgets.custom_view import CustomView


def shown(app: Any) -> str:
    """The text of the custom views in the transcript (styled runs joined)."""
    return "\n".join(str(view.render()) for view in app.query(CustomView))


def plain_and_rendered(pi: Any) -> None:
    status_messages.register(pi)

    def note(args: str, ctx: Any) -> None:
        pi.send_message({"customType": "note", "content": f"plain {args}", "display": True})
        pi.send_message({"customType": "hidden", "content": "never shown", "display": False})

    pi.register_command("note", note, "a custom message without a renderer")


async def test_idle_custom_message_is_announced_and_recorded(faux: Any, tmp_path: Path) -> None:
    app, runner = make_app(faux, tmp_path, plain_and_rendered)
    heard: list[tuple[str, str]] = []
    app.session.subscribe(lambda e: heard.append((e["type"], e["message"]["role"])) if "message" in e else None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        await pilot.press(*"/status warn disk almost full", "enter")
        await wait_until(pilot, lambda: "[WARN] disk almost full" in shown(app))
        assert ("message_start", "custom") in heard and ("message_end", "custom") in heard
        assert app.session.messages[-1]["customType"] == "status-update"  # it joins the context
        await pilot.press(*"/note hello", "enter")
        await wait_until(pilot, lambda: "[note] plain hello" in shown(app))
        assert "never shown" not in shown(app)
        await pilot.press("ctrl+o")  # expanded: the renderer adds the time
        await wait_until(pilot, lambda: "  at " in shown(app))


async def test_resumed_custom_messages_are_drawn_again(faux: Any, tmp_path: Path) -> None:
    app, runner = make_app(faux, tmp_path, plain_and_rendered)
    message = {"role": "custom", "customType": "status-update", "content": "from before", "display": True,
               "details": {"level": "error", "timestamp": 0}}  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        await app.renderer.load_history([message, {**message, "customType": "note", "content": "old note"}])
        await pilot.pause()
        text = shown(app)
        assert "[ERROR] from before" in text and "[note] old note" in text


async def test_entries_show_only_with_a_renderer_as_they_are_appended(faux: Any, tmp_path: Path) -> None:
    app, runner = make_app(faux, tmp_path, plain_and_rendered)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        await app.renderer.apply(
            [
                {
                    "type": "entry_appended",
                    "entry": {"type": "custom", "customType": "status-card", "data": {"message": "indexed 17 files"}},
                },
                {"type": "entry_appended", "entry": {"type": "custom", "customType": "other", "data": {"x": 1}}},
            ]
        )
        await pilot.pause()
        text = shown(app)
        assert "[status] indexed 17 files" in text and "'x': 1" not in text


async def test_inline_prints_custom_messages_and_rendered_entries(faux: Any, tmp_path: Path) -> None:
    session, runner = make_inline_session(faux, tmp_path, plain_and_rendered)

    async def script(pipe: Any, app: Any, out: Any) -> None:
        await wait_for(lambda: runner.started)
        pipe.send_text("/status error it broke\r")
        await wait_for(lambda: "[ERROR] it broke" in flat(out))
        app.controller.on_event(
            {
                "type": "entry_appended",
                "entry": {"type": "custom", "customType": "status-card", "data": {"message": "card"}},
            }
        )
        await wait_for(lambda: "[status] card" in flat(out))

    await drive(session, script)
