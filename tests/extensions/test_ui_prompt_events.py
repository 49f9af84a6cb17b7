"""pi's ``ui_prompt_start`` / ``ui_prompt_end``: around an extension's dialogs (confirm, select,
input, editor), nested or overlapping ones making one outer span, told without waiting."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_cli.extensions import ExtensionAPI, ExtensionRunner
from pi_cli.extensions.ui import DialogUI


class SlowDialogs:
    """The front end's dialogs: each answers after a short wait."""

    async def select(self, title: str, options: list[str]) -> str | None:
        await asyncio.sleep(0.02)
        return options[0]

    async def input(self, title: str, placeholder: str | None) -> str | None:
        await asyncio.sleep(0.02)
        return "typed"


async def test_dialogs_are_wrapped_in_one_outer_span(tmp_path: Path) -> None:
    runner = ExtensionRunner(str(tmp_path))
    runner.ui = DialogUI(SlowDialogs(), lambda text, level: None)
    heard: list[dict[str, Any]] = []
    api = ExtensionAPI(runner, "watch.py")
    api.on("ui_prompt_start", lambda event, ctx: heard.append(event))
    api.on("ui_prompt_end", lambda event, ctx: heard.append(event))
    ui = runner.context().ui
    assert await ui.confirm("Delete?", "the file") is True
    await asyncio.sleep(0.01)  # handlers run as tasks (not awaited before the dialog)
    assert heard == [
        {"type": "ui_prompt_start", "reason": "ui_prompt", "kind": "confirm", "title": "Delete?"},
        {"type": "ui_prompt_end", "reason": "ui_prompt", "kind": "confirm", "title": "Delete?"},
    ]
    heard.clear()
    # Two overlapping questions (a fresh ctx.ui each time: the span is the runner's) → one span.
    answers = await asyncio.gather(runner.context().ui.select("Pick", ["a", "b"]), runner.context().ui.input("Name"))
    await asyncio.sleep(0.01)
    assert answers == ["a", "typed"]
    assert [(e["type"], e["kind"]) for e in heard] == [("ui_prompt_start", "select"), ("ui_prompt_end", "select")]
    heard.clear()
    assert await ui.editor("Notes") is None  # no editor dialog in these front ends, still a span
    await asyncio.sleep(0.01)
    assert [e["kind"] for e in heard] == ["editor", "editor"]
