"""pi's ``/reload`` and ``ctx.reload()``: the extension files are imported again into the same
runner (handlers, commands, tools, shortcuts and UI state from before are gone), the prompt
resources are read again, and extensions hear ``session_shutdown``/``session_start`` with
``reason: "reload"``. The TUI binds the new shortcuts and shows pi's status line."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_cli.permissions import trust
from pi_cli.session.assembly import SessionOptions, create_agent_session

EXTENSION = """
import json, os
from pathlib import Path

VERSION = "{version}"

def register(pi):
    def log(event, ctx):
        with Path(os.environ["RELOAD_LOG"]).open("a") as f:
            f.write(json.dumps([VERSION, event["type"], event.get("reason")]) + "\\n")

    pi.on("session_start", log)
    pi.on("session_shutdown", log)
    pi.register_command("which", lambda args, ctx: ctx.ui.notify("version " + VERSION), "which version")
    pi.register_tool({{"name": "tool_" + VERSION, "description": "d", "execute": lambda *a: VERSION}})

    async def again(args, ctx):
        await ctx.reload()

    pi.register_command("reload-now", again, "ctx.reload()")
    pi.register_shortcut("ctrl+shift+{key}", lambda ctx: None, "a key of " + VERSION)
    pi.on("session_start", lambda event, ctx: ctx.ui.set_status("ver", "status " + VERSION))
"""


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    agent = tmp_path / "agent"
    (agent / "extensions").mkdir(parents=True)
    provider = {"api": "openai-completions", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k"}
    (agent / "models.json").write_text(json.dumps({"providers": {"fx": {**provider, "models": [{"id": "big"}]}}}))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.setenv("PI_OFFLINE", "1")
    monkeypatch.setenv("RELOAD_LOG", str(tmp_path / "log.jsonl"))
    project = (tmp_path / "project").resolve()
    project.mkdir()
    trust.record_decision(project, True)  # the project's .pi/prompts load
    yield agent, project
    trust.forget_decisions()


def write(agent: Path, version: str, key: str = "a") -> None:
    (agent / "extensions" / "versioned.py").write_text(textwrap.dedent(EXTENSION.format(version=version, key=key)))


def log(tmp: Path) -> list[list[Any]]:
    return [json.loads(line) for line in (tmp / "log.jsonl").read_text().splitlines()]


def make(project: Path, faux: Any) -> Any:
    return create_agent_session(
        SessionOptions(cwd=project, mode="print", no_session=True, stream_fn=faux.stream, provider="fx", model="big")
    )


async def test_reload_imports_the_files_again_into_the_same_runner(
    faux: Any, place: tuple[Path, Path], tmp_path: Path
) -> None:
    agent, project = place
    write(agent, "one")
    session = make(project, faux)
    runner = session.extensions
    assert runner is not None
    await runner.start()
    assert "tool_one" in [t.name for t in session.agent.state.tools]
    write(agent, "two")
    (project / ".pi" / "prompts").mkdir(parents=True)
    (project / ".pi" / "prompts" / "fresh.md").write_text("A template added after start-up\n")
    assert await session.reload() == []
    assert session.extensions is runner  # the same runner: the agent's hooks still point at it
    names = [t.name for t in session.agent.state.tools]
    assert "tool_two" in names and "tool_one" not in names and "read" in names
    assert list(runner.commands) == ["which", "reload-now"] and len(runner.shortcuts) == 1
    assert log(tmp_path) == [
        ["one", "session_start", "startup"],
        ["one", "session_shutdown", "reload"],
        ["two", "session_start", "reload"],
    ]
    assert "fresh" in [c["name"] for c in session.get_commands()]  # prompt templates read again


async def test_a_broken_file_is_a_problem_line_and_the_rest_reloads(
    faux: Any, place: tuple[Path, Path], tmp_path: Path
) -> None:
    agent, project = place
    write(agent, "one")
    session = make(project, faux)
    await session.extensions.start()
    (agent / "extensions" / "broken.py").write_text("def register(pi):\n    raise RuntimeError('nope')\n")
    problems = await session.reload()
    assert len(problems) == 1 and "broken.py" in problems[0] and "nope" in problems[0]
    assert "which" in session.extensions.commands


async def test_tui_reload_command_and_ctx_reload(faux: Any, place: tuple[Path, Path], tmp_path: Path) -> None:
    from extensions.test_tui_ui import SIZE, notices, wait_until
    from pi_cli.modes.interactive import make_app

    agent, project = place
    write(agent, "one", key="a")
    app = make_app(make(project, faux), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        runner = app.session.extensions
        await wait_until(
            pilot, lambda: runner.started and "status one" in str(app.query_one("#extension-status").render())
        )
        assert "ctrl+shift+a" in {k for k, _ in app.extension_ui.hotkey_rows()}
        write(agent, "two", key="b")
        app.editor.load_text("/reload")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Reloaded keybindings" in n for n in notices(app)))
        await wait_until(pilot, lambda: "status two" in str(app.query_one("#extension-status").render()))
        keys = {k for k, _ in app.extension_ui.hotkey_rows()}
        assert keys == {"ctrl+shift+b"}  # the old key is unbound, the new one bound
        write(agent, "three", key="c")
        app.editor.load_text("/reload-now")  # ctx.reload() from an extension's command
        await pilot.press("enter")
        await wait_until(pilot, lambda: "status three" in str(app.query_one("#extension-status").render()))
        assert [entry[0] for entry in log(tmp_path)][-1] == "three"
