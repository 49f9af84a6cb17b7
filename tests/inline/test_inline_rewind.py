"""/rewind in inline mode: list the messages, then restore files and conversation by number."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console, RenderableType

from pi_cli.agent.agent import Agent
from pi_cli.ai.providers.faux import faux_assistant, faux_text, register_faux_provider
from pi_cli.modes.inline.commands import run_command
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


async def test_inline_rewind_lists_then_restores(faux: Any, tmp_path: Path) -> None:
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
    assert await run_command(session, "/rewind", shown.append, lambda: None)
    listing = _text(shown)
    assert "1. [files] first question" in listing and "2. [files] second question" in listing
    shown.clear()
    assert await run_command(session, "/rewind 1", shown.append, lambda: None)
    out = _text(shown)
    assert "Restoring files: 1 modified" in out and "The message was: first question" in out
    assert (work / "keep.txt").read_text() == "original\n"
    assert session.messages == []
    shown.clear()
    assert await run_command(session, "/rewind 9", shown.append, lambda: None)
    assert "Usage: /rewind" in _text(shown)
