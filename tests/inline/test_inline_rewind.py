"""/rewind in inline mode: list the messages, then restore files and conversation by number."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console, RenderableType

from pi_cli.agent.agent import Agent
from pi_cli.ai.providers.faux import faux_assistant, faux_text, register_faux_provider
from pi_cli.session.agent_session import AgentSession
from pi_cli.session.store_bridge import SessionStoreBridge
from pi_cli.store.entry_messages import convert_to_llm
from pi_cli.store.manager import SessionManager


@pytest.fixture
def faux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    provider = register_faux_provider(models=["faux-1"])
    yield provider
    provider.unregister()


def _text(shown: list[RenderableType]) -> str:
    console = Console(width=200, record=True)
    for item in shown:
        console.print(item)
    return console.export_text()


def _commands(session: Any, shown: list[RenderableType], editor: list[str]) -> tuple[Any, Any]:
    from pi_cli.modes.inline.approvals import InlineApprovals
    from pi_cli.modes.inline.commands import InlineCommands
    from pi_cli.modes.inline.login import InlineLogin

    dialogs = InlineApprovals(shown.append, lambda: None)
    table = InlineCommands(
        session, shown.append, dialogs, InlineLogin(shown.append, lambda: None),
        quit_app=lambda: None, set_editor_text=editor.append, copy_text=lambda text: None,
    )  # fmt: skip
    return table, dialogs


async def _answer(dialogs: Any, *answers: str) -> None:
    for answer in answers:
        while not dialogs.waiting:
            await asyncio.sleep(0.01)
        assert dialogs.offer(answer)
        await asyncio.sleep(0)


async def test_inline_rewind_lists_asks_then_restores(faux: Any, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "keep.txt").write_text("original\n")
    manager = SessionManager.create(work, tmp_path / "sessions")
    agent = Agent(system_prompt="t", model=faux.model(), tools=[], convert_to_llm=convert_to_llm)
    session = AgentSession(agent=agent, cwd=work, store=SessionStoreBridge(manager, work))
    session.models.extra_models = list(faux.models)
    faux.set_responses([faux_assistant([faux_text("one")]), faux_assistant([faux_text("two")])])
    await session.prompt("first question")
    (work / "keep.txt").write_text("edited\n")
    await session.prompt("second question")
    shown: list[RenderableType] = []
    editor: list[str] = []
    table, dialogs = _commands(session, shown, editor)
    assert table.knows("/rewind")
    run = asyncio.ensure_future(table.run("/rewind"))
    await _answer(dialogs, "1")  # the first message, from the numbered list
    listing = _text(shown)
    assert "1. [files] first question" in listing and "2. [files] second question" in listing
    await _answer(dialogs, "1")  # "Rewind", after seeing the files it restores
    await run
    out = _text(shown)
    assert "Files to restore:" in out and "modified" in out and "keep.txt" in out  # the files, not counts
    assert "Rewound conversation and files (1 modified)" in out
    assert editor == ["first question"]  # the message is back in the editor, to send again
    assert (work / "keep.txt").read_text() == "original\n"
    assert session.messages == []
    shown.clear()
    await table.run("/rewind 9")
    assert "Usage: /rewind" in _text(shown)


async def test_inline_rewind_n_asks_first_and_cancel_changes_nothing(faux: Any, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    manager = SessionManager.create(work, tmp_path / "sessions")
    agent = Agent(system_prompt="t", model=faux.model(), tools=[], convert_to_llm=convert_to_llm)
    session = AgentSession(agent=agent, cwd=work, store=SessionStoreBridge(manager, work))
    faux.set_responses([faux_assistant([faux_text("one")])])
    await session.prompt("only question")
    shown: list[RenderableType] = []
    editor: list[str] = []
    table, dialogs = _commands(session, shown, editor)
    run = asyncio.ensure_future(table.run("/rewind 1 conversation"))
    await _answer(dialogs, "2")  # Cancel
    await run
    assert len(session.messages) == 2 and editor == []
