"""``ctx.ui.custom`` in inline mode: the component replaces the prompt row, gets every key as the
raw terminal data (Escape and Ctrl-C included), and the prompt returns after ``done``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from extensions.test_custom_component import _register_pick
from extensions.test_inline_ui import ENTER, drive, make_session, texts, wait_for


async def test_inline_hosts_a_component_until_done(faux: Any, tmp_path: Path) -> None:
    results: list[Any] = []
    session, _runner = make_session(faux, tmp_path, _register_pick(results))

    async def script(pipe: Any, app: Any, out: Any) -> None:
        components = app.controller.components
        for count, keys in enumerate((["\x1b[B", "\r"], ["\x1b[B", "\x1b[B", "\x03"]), 1):
            pipe.send_text("/pick" + ENTER)
            await wait_for(lambda: components.active is not None)
            drawn = texts(components._lines())
            assert "pick one (w" in drawn and "> item 0" in drawn
            for key in keys:
                pipe.send_text(key)
                await asyncio.sleep(0.05)
            await wait_for(lambda: len(results) == count)  # noqa: B023
            assert components.active is None
        pipe.send_text("typed")  # the prompt is back and takes text again
        await wait_for(lambda: app.buffer.text == "typed")
        app.buffer.reset()

    await drive(session, script)
    assert results == ["item 1", None]


async def test_todos_opens_in_inline_mode(faux: Any, tmp_path: Path) -> None:
    from pi_cli.extensions.examples.rendering.todo import register

    session, _runner = make_session(faux, tmp_path, register)

    async def script(pipe: Any, app: Any, out: Any) -> None:
        components = app.controller.components
        pipe.send_text("/todos" + ENTER)
        await wait_for(lambda: components.active is not None)
        assert "No todos yet" in texts(components._lines())
        pipe.send_text("\x1b")
        await wait_for(lambda: components.active is None)

    await drive(session, script)
