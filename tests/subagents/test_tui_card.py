"""The TUI's card of a subagent call: a block per child while they run (agent, task, running
tool), the children's transcripts when expanded (Ctrl-O), and /agents."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

from pi_cli.ai.providers.faux import FauxProvider, faux_assistant, faux_tool_call
from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.widgets.messages import Notice
from pi_cli.modes.interactive.widgets.subagent_card import SubagentCard

from .harness import Script, delegate, parent_session

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


def text_of(card: SubagentCard) -> str:
    from rich.console import Console

    console = Console(width=100, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(card.build())
    return console.export_text()


async def until(pilot: Any, condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


async def test_card_shows_each_child_then_its_transcript_expanded(
    project: Path, faux: FauxProvider, tmp_path: Path
) -> None:
    release = asyncio.Event()

    async def scout(context: dict[str, Any], count: int) -> Any:
        if count == 0:
            return faux_assistant([faux_tool_call("grep", {"pattern": "def parse", "path": "src"})])
        await release.wait()
        return faux_assistant("found the parser in src/parse.py")

    tasks = {"tasks": [{"agent": "scout", "task": "map the parser"}, {"agent": "reviewer", "task": "check tests"}]}
    Script(faux, {"parent": delegate(tasks), "scout": scout, "reviewer": lambda c, n: faux_assistant("tests ok")})
    session = parent_session(project, faux, tmp_path, mode="interactive")
    app = make_app(session, keymap={})
    async with app.run_test(size=(100, 40)) as pilot:
        app.editor.load_text("look around")
        await pilot.press("enter")
        await until(pilot, lambda: bool(app.query(SubagentCard)))
        card = app.query_one(SubagentCard)
        await until(pilot, lambda: "map the parser" in text_of(card) and "check tests" in text_of(card))
        shown = text_of(card)
        assert "subagent ×2: scout, reviewer" in shown and "▸ scout" in shown and "✓ reviewer" in shown
        assert "grep def parse in src" not in shown  # collapsed: no transcripts
        await pilot.press("ctrl+o")  # expanded: the children's own transcripts, live
        await until(pilot, lambda: "grep def parse in src" in text_of(card))
        assert "› map the parser" in text_of(card)
        release.set()
        await until(pilot, lambda: not session.is_streaming)
        await app.pump.drain()
        await pilot.pause()
        final = text_of(app.query_one(SubagentCard))
        assert "✓ scout" in final and "✓ reviewer" in final and "Took" in final
        await app.commands.run("/agents")
        await pilot.pause()
        assert any("scout" in str(n.render()) and "worker" in str(n.render()) for n in app.query(Notice))
