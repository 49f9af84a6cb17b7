"""Keys before frames: a stream frame is not built while a key is on its way to the screen."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_cli.modes.interactive.pump import EventPump, KeysFirst


class Screen:
    """Counts paints; ``busy`` while input is queued."""

    def __init__(self) -> None:
        self.painted = 0
        self.busy = False


async def test_without_a_key_frames_do_not_wait() -> None:
    screen = Screen()
    keys = KeysFirst(lambda: screen.painted, lambda: screen.busy, max_wait=30.0)
    await asyncio.wait_for(keys.wait(), 5)  # would hang for 30 s if it waited for a paint
    assert keys.waited < 1


async def test_a_frame_waits_until_the_key_is_handled_and_painted() -> None:
    screen = Screen()
    keys = KeysFirst(lambda: screen.painted, lambda: screen.busy, max_wait=30.0)
    screen.busy = True
    keys.key()
    steps: list[str] = []

    async def app() -> None:
        await asyncio.sleep(0.02)
        steps.append("handled")
        screen.busy = False
        await asyncio.sleep(0.02)
        steps.append("painted")
        screen.painted += 1

    handler = asyncio.create_task(app())
    await asyncio.wait_for(keys.wait(), 5)
    steps.append("frame")
    await handler
    assert steps == ["handled", "painted", "frame"]


async def test_a_key_never_painted_holds_frames_back_only_briefly() -> None:
    screen = Screen()
    keys = KeysFirst(lambda: screen.painted, lambda: screen.busy, max_wait=0.05)
    keys.key()
    await asyncio.wait_for(keys.wait(), 5)  # returns at the bound, paint or not
    await asyncio.wait_for(keys.wait(), 5)  # and the next frame does not wait again


async def test_the_pump_awaits_before_frame_before_each_frame() -> None:
    order: list[str] = []

    async def render(ops: list[object]) -> None:
        order.append("frame")

    async def before() -> None:
        order.append("keys")

    pump = EventPump(render, min_interval=0.001, before_frame=before)
    pump.start()
    update = {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "x"}}
    pump.push(update)
    for _ in range(200):
        if "frame" in order:
            break
        await asyncio.sleep(0.005)
    await pump.stop()
    assert order[:2] == ["keys", "frame"]


async def test_a_keys_echo_is_painted_when_ready_not_at_the_next_timer_tick(faux: Any, workdir: Path) -> None:
    """The main screen paints as soon as it is idle and dirty after a key, instead of resuming
    Textual's update timer (up to 1/60 s later); without a key it still waits for the timer."""
    from test_session_screens import SIZE, stored_session
    from textual import events

    from pi_cli.modes.interactive import make_app
    from pi_cli.modes.interactive.widgets.main_screen import MainScreen

    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen._dirty_widgets.add(app.editor)  # dirty, no key: left to the timer
        before = screen.paints
        await screen._on_idle(events.Idle())
        assert screen.paints == before
        await pilot.pause()
        screen.key_arrived()
        screen._dirty_widgets.add(app.editor)  # the echo of that key
        before = screen.paints
        await screen._on_idle(events.Idle())
        assert screen.paints == before + 1  # painted at once
