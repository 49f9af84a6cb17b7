"""ctx.ui in the terminal front ends: the gate's dialogs reused (confirm as Yes/No), notices, errors."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.modes.extension_bridge import bind_extension_ui


class Dialogs:
    def __init__(self, answers: list[str | None]) -> None:
        self.answers = answers
        self.asked: list[tuple[str, str, Any]] = []

    async def select(self, title: str, options: list[str]) -> str | None:
        self.asked.append(("select", title, options))
        return self.answers.pop(0)

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        self.asked.append(("input", title, placeholder))
        return self.answers.pop(0)


def test_bridge_dialogs_notices_and_errors() -> None:
    runner = ExtensionRunner(".")
    session = SimpleNamespace(extensions=runner)
    notes: list[tuple[str, str]] = []
    editor: list[str] = []
    dialogs = Dialogs(["Yes", None, "blue", "typed"])
    bind_extension_ui(session, dialogs, lambda text, level: notes.append((text, level)), editor.append)
    ctx = runner.context()
    assert ctx.has_ui is True

    async def go() -> list[Any]:
        return [
            await ctx.ui.confirm("Delete?", "all of it"),
            await ctx.ui.confirm("Again?"),
            await ctx.ui.select("Pick", ["red", "blue"]),
            await ctx.ui.input("Name", "hint"),
        ]

    assert asyncio.run(go()) == [True, False, "blue", "typed"]
    assert dialogs.asked[0] == ("select", "Delete?\nall of it", ["Yes", "No"])
    assert dialogs.asked[3] == ("input", "Name", "hint")
    ctx.ui.notify("hello", "warning")
    ctx.ui.set_editor_text("draft")
    ctx.ui.set_status("k", "v")
    assert runner.ui.statuses == {"k": "v"}  # type: ignore[attr-defined]
    ctx.ui.set_status("k", None)
    assert runner.ui.statuses == {}  # type: ignore[attr-defined]

    def bad(event: dict[str, Any], c: Any) -> None:
        raise RuntimeError("nope")

    ExtensionAPI(runner, "x.py").on("turn_start", bad)
    asyncio.run(runner.emit({"type": "turn_start"}))
    assert notes[0] == ("hello", "warning")
    assert notes[1][1] == "error" and notes[1][0].startswith("Extension error (x.py, turn_start): RuntimeError: nope")
    assert editor == ["draft"]


def test_bridge_without_extensions_does_nothing() -> None:
    session = SimpleNamespace(extensions=None)
    bind_extension_ui(session, Dialogs([]), lambda text, level: None)
    assert session.extensions is None
