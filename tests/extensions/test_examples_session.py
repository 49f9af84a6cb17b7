"""The session-control examples ported from pi (issue 31): session_name, bookmark,
confirm_destructive, dirty_repo_guard, event_bus, trigger_compact and shutdown_command, each
loaded as ``example:NAME`` into a real AgentSession (a session file, the faux provider)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.loader import load_path, resolve_spec
from pi_cli.extensions.ui import DialogUI, NoUI
from pi_cli.session.agent_session import AgentSession
from pi_cli.session.assembly import SessionParts, build_session
from pi_cli.session.store_bridge import SessionStoreBridge
from pi_cli.store.manager import SessionManager


class Front:
    """A front end: scripted dialog answers (``None`` when the script runs out) and notices."""

    def __init__(self, *answers: str | None) -> None:
        self.answers = list(answers)
        self.questions: list[str] = []
        self.notes: list[tuple[str, str]] = []

    async def select(self, title: str, options: list[str]) -> str | None:
        self.questions.append(title)
        return self.answers.pop(0) if self.answers else None

    def notify(self, text: str, level: str) -> None:
        self.notes.append((text, level))

    @property
    def texts(self) -> list[str]:
        return [text for text, _ in self.notes]


def load(faux: Any, cwd: Path, example: str, front: Front | None) -> tuple[AgentSession, ExtensionRunner]:
    runner = ExtensionRunner(str(cwd))
    path = resolve_spec(f"example:{example}", cwd)
    assert isinstance(path, Path) and load_path(runner, path) is None
    manager = SessionManager.create(str(cwd), cwd / "sessions", fsync=False)
    session = build_session(
        cwd=cwd, parts=SessionParts(extensions=runner), store=SessionStoreBridge(manager, cwd),
        system_prompt="t", model=faux.model("faux-1"),
    )  # fmt: skip
    runner.ui = DialogUI(front, front.notify) if front is not None else NoUI()
    runner.on_error = lambda record: pytest.fail(str(record))
    return session, runner


async def chat(faux: Any, session: AgentSession, text: str = "hello") -> None:
    faux.set_responses([faux_assistant([faux_text(f"reply to {text}")])])
    await session.prompt(text)


async def test_session_name_sets_and_shows(faux: Any, tmp_path: Path) -> None:
    front = Front()
    session, _ = load(faux, tmp_path, "session_name", front)
    await session.prompt("/session-name")
    await session.prompt("/session-name  Refactor auth ")
    await session.prompt("/session-name")
    assert session.session_name == "Refactor auth"
    assert front.texts == ["No session name set", "Session named: Refactor auth", "Session: Refactor auth"]


async def test_bookmark_labels_the_last_reply_and_unbookmark_clears(faux: Any, tmp_path: Path) -> None:
    front = Front()
    session, _ = load(faux, tmp_path, "bookmark", front)
    await session.prompt("/bookmark")  # nothing to bookmark yet
    await chat(faux, session)
    await session.prompt("/bookmark before refactor")
    manager = session.store.manager
    assert manager is not None
    reply = next(e for e in reversed(manager.get_entries()) if e["type"] == "message")
    assert reply["message"]["role"] == "assistant" and manager.get_label(reply["id"]) == "before refactor"
    await session.prompt("/unbookmark")
    await session.prompt("/unbookmark")
    assert manager.get_label(reply["id"]) is None
    assert front.notes == [
        ("No assistant message to bookmark", "warning"), ("Bookmarked as: before refactor", "info"),
        ("Removed bookmark: before refactor", "info"), ("No bookmarked entry found", "warning"),
    ]  # fmt: skip


async def test_confirm_destructive_asks_and_a_no_cancels(faux: Any, tmp_path: Path) -> None:
    front = Front("No", "Yes", "No, stay in current session")
    session, _ = load(faux, tmp_path, "confirm_destructive", front)
    await chat(faux, session, "keep me")
    first = session.session_file
    assert (await session.new_session())["cancelled"] is True and session.session_file == first
    assert (await session.new_session())["cancelled"] is False and session.session_file != first
    assert (await session.switch_session(str(first)))["cancelled"] is False  # the new one had no messages
    user = next(e for e in session.store.manager.get_branch() if e["type"] == "message")  # type: ignore[union-attr]
    assert (await session.fork(user["id"]))["cancelled"] is True and session.session_file == first
    assert front.questions[0].startswith("Clear session?") and front.questions[2].startswith("Fork from entry")
    assert "Clear cancelled" in front.texts and "Fork cancelled" in front.texts


async def test_confirm_destructive_without_a_ui_lets_everything_through(faux: Any, tmp_path: Path) -> None:
    session, _ = load(faux, tmp_path, "confirm_destructive", None)
    await chat(faux, session)
    assert (await session.clone())["cancelled"] is False


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("sessions/\nagent/\n")  # the test's own files
    return tmp_path


async def test_dirty_repo_guard_cancels_over_uncommitted_work(faux: Any, git_repo: Path) -> None:
    tmp_path = git_repo
    front = Front("No, let me commit first", "Yes, proceed anyway")
    session, runner = load(faux, tmp_path, "dirty_repo_guard", front)
    await chat(faux, session)
    assert (await session.new_session())["cancelled"] is True  # .gitignore is uncommitted
    assert front.questions == ["You have 1 uncommitted file(s). New session anyway?"]
    assert ("Commit your changes first", "warning") in front.notes
    assert (await session.new_session())["cancelled"] is False
    runner.ui = NoUI()  # print/json: nobody to ask, so it cancels
    assert (await session.new_session())["cancelled"] is True


async def test_dirty_repo_guard_outside_git_lets_it_go(faux: Any, tmp_path: Path) -> None:
    session, _ = load(faux, tmp_path, "dirty_repo_guard", None)
    assert (await session.new_session())["cancelled"] is False


async def test_event_bus_example_notifies_from_start_and_emit(faux: Any, tmp_path: Path) -> None:
    front = Front()
    session, runner = load(faux, tmp_path, "event_bus", front)
    await runner.start()
    got: list[Any] = []
    ExtensionAPI(runner, "other").events.on("my:notification", got.append)  # another extension listens
    await session.prompt("/emit deploy done")
    assert front.texts == ["Event from event_bus example: Session started", "Event from /emit command: deploy done"]
    assert got == [{"message": "deploy done", "from": "/emit command"}]


async def test_trigger_compact_command_compacts_and_reports(faux: Any, tmp_path: Path) -> None:
    from sessions.test_compaction import long_session

    from pi_cli.config.settings import Settings

    manager = long_session(tmp_path, turns=6, size=4000)
    runner = ExtensionRunner(str(tmp_path))
    path = resolve_spec("example:trigger_compact", tmp_path)
    assert isinstance(path, Path) and load_path(runner, path) is None
    settings = Settings.from_dict({"compaction": {"keepRecentTokens": 2500, "reserveTokens": 10000}})
    session = build_session(
        cwd=tmp_path, parts=SessionParts(extensions=runner), settings=settings,
        store=SessionStoreBridge(manager, tmp_path), system_prompt="t", model=faux.model("faux-1"),
        messages=list(manager.build_context().messages),
    )  # fmt: skip
    front = Front()
    runner.ui = DialogUI(front, front.notify)
    faux.set_responses([faux_assistant([faux_text("the summary")]), faux_assistant([faux_text("the prefix")])])
    await session.prompt("/trigger-compact keep the API notes")
    while runner.pending:
        await next(iter(runner.pending))
    assert front.texts == ["Compaction started", "Compaction completed"]
    assert manager.latest_compaction() is not None
    await session.prompt("/trigger-compact")  # nothing new to compact: the failure is reported
    while runner.pending:
        await next(iter(runner.pending))
    assert front.notes[-1][1] == "error" and front.texts[-1].startswith("Compaction failed")


async def test_shutdown_command_and_tool_ask_the_front_end_to_quit(faux: Any, tmp_path: Path) -> None:
    session, runner = load(faux, tmp_path, "shutdown_command", Front())
    requests: list[str] = []
    runner.shutdown_handler = lambda: requests.append("quit")
    await session.prompt("/quit-now")
    assert requests == ["quit"]
    faux.set_responses([faux_assistant([faux_tool_call("finish_and_exit", {})]), faux_assistant([faux_text("bye")])])
    await session.prompt("all done?")
    assert requests == ["quit", "quit"] and session.get_last_assistant_text() == "bye"
    result = next(m for m in session.messages if m["role"] == "toolResult")
    assert result["content"][0]["text"].startswith("Shutdown requested")


async def test_summarize_asks_the_model_outside_the_conversation(faux: Any, tmp_path: Path) -> None:
    front = Front()
    session, _ = load(faux, tmp_path, "summarize", front)
    await session.prompt("/summarize")
    assert front.notes == [("No conversation text found", "warning")]
    await chat(faux, session, "plan the refactor")
    messages = len(session.messages)
    faux.set_responses([faux_assistant([faux_text("## Goal\nrefactor")])])
    await session.prompt("/summarize")
    assert front.notes[-1] == ("Conversation summary\n\n## Goal\nrefactor", "info")
    sent = faux.requests[-1].context["messages"][0]["content"][0]["text"]
    assert "User: plan the refactor" in sent and "Assistant: reply to plan the refactor" in sent
    assert len(session.messages) == messages  # the summary request is not part of the session
    await session.prompt("/summarize nope/missing")
    assert front.notes[-1] == ("Model nope/missing not found", "warning")


async def test_commands_lists_what_a_prompt_can_run_and_shows_a_source(faux: Any, tmp_path: Path) -> None:
    front = Front("/commands - List available slash commands (/commands [source])", "Yes")
    session, runner = load(faux, tmp_path, "commands", front)
    await session.prompt("/commands extension")
    listed = front.questions[0]
    assert listed == "Available Commands"
    path = runner.commands["commands"].source
    assert front.notes[-1] == (path, "info")
    assert runner.command_list()[0]["sourceInfo"] == {"path": path, "source": "local", "scope": "temporary",
                                                      "origin": "top-level"}  # fmt: skip
    await session.prompt("/commands skill")
    assert front.notes[-1] == ("No skill commands found", "info")
    quiet = QuietUI()
    runner.ui = quiet  # print/json: no picker, the list is a notice
    await session.prompt("/commands")
    assert quiet.notes == ["--- Extensions ---\n/commands - List available slash commands (/commands [source])"]


class QuietUI(NoUI):
    """No UI (print/json), with the notices kept instead of written to stderr."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def notify(self, text: str, level: str = "info") -> None:
        self.notes.append(text)


async def test_dynamic_tools_join_the_prompt_and_answer(faux: Any, tmp_path: Path) -> None:
    from pi_cli.resources.loader import Resources

    runner = ExtensionRunner(str(tmp_path))
    path = resolve_spec("example:dynamic_tools", tmp_path)
    assert isinstance(path, Path) and load_path(runner, path) is None
    resources = Resources(str(tmp_path), str(tmp_path / "agent"))
    session = build_session(
        cwd=tmp_path, parts=SessionParts(extensions=runner), resources=resources,
        system_prompt=resources.build_system_prompt([]), model=faux.model("faux-1"),
    )  # fmt: skip
    front = Front()
    runner.ui = DialogUI(front, front.notify)
    await runner.start()
    await session.prompt("/add-echo-tool shout")
    await session.prompt("/add-echo-tool shout")
    await session.prompt("/add-echo-tool Bad Name")
    assert front.texts[:3] == ["Registered dynamic tool: echo_session", "Registered dynamic tool: shout",
                               "Tool already registered: shout"]  # fmt: skip
    assert front.notes[3][1] == "warning"
    prompt = session.agent.state.system_prompt
    assert "- shout: Echo back user-provided text with [shout] prefix" in prompt
    assert "- Use this tool when the user asks for exact echo output." in prompt
    faux.set_responses(
        [faux_assistant([faux_tool_call("shout", {"message": "hi"})]), faux_assistant([faux_text("ok")])]
    )
    await session.prompt("echo hi")
    result = next(m for m in session.messages if m["role"] == "toolResult")
    assert result["content"][0]["text"] == "[shout] hi" and result["details"] == {"tool": "shout", "prefix": "[shout] "}


def test_examples_in_topic_folders_load_by_their_own_name(tmp_path: Path) -> None:
    found = resolve_spec("example:session_name", tmp_path)
    assert isinstance(found, Path) and found.parent.name == "session_control"
    message = resolve_spec("example:nope", tmp_path)
    assert isinstance(message, str) and "session_name" in message and "word_count" in message
    assert "session_control" not in message and "__init__" not in message
