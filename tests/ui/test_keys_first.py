"""Keys before frames: a stream frame is not built while a key is on its way to the screen."""

from __future__ import annotations

import asyncio

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
