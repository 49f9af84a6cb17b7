"""Session commands in the TUI (/resume, /tree, /fork, /clone, pi -r) against real session files."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.screens.picker import PickerScreen
from pi_cli.modes.interactive.screens.resume import ResumeScreen
from pi_cli.modes.interactive.screens.tree import InstructionsScreen, SummarizingScreen, TreeScreen
from pi_cli.modes.interactive.widgets.messages import Notice, UserView
from pi_cli.store.manager import SessionManager

SIZE = (100, 40)


def stored_session(faux: Any, cwd: Path, manager: SessionManager | None = None, parts: Any = None, **more: Any) -> Any:
    """A real AgentSession over the faux provider, persisted by a SessionManager in the tmp agent dir."""
    from pi_cli.session.assembly import build_session
    from pi_cli.session.store_bridge import SessionStoreBridge

    manager = manager or SessionManager.create(cwd)
    session = build_session(
        cwd=cwd, parts=parts, store=SessionStoreBridge(manager, cwd), system_prompt="test", model=faux.model(),
        messages=list(manager.build_context().messages), **more,
    )  # fmt: skip
    session.models.extra_models = list(faux.models)
    return session


def previous_session(cwd: Path, question: str, answer: str) -> Path:
    """Write a finished session file of ``cwd`` (as an earlier pi run would have left it)."""
    manager = SessionManager.create(cwd, fsync=False)
    manager.append_message({"role": "user", "content": [{"type": "text", "text": question}], "timestamp": 1})
    manager.append_message(
        {"role": "assistant", "content": [{"type": "text", "text": answer}], "api": "faux", "provider": "faux",
         "model": "faux-1", "usage": {}, "stopReason": "stop", "timestamp": 2}
    )  # fmt: skip
    assert manager.session_file is not None and manager.session_file.exists()
    return manager.session_file


def entries(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def user_entries(path: str | Path) -> list[dict[str, Any]]:
    return [e for e in entries(path) if e.get("type") == "message" and e["message"]["role"] == "user"]


def is_file(path: str) -> bool:
    return Path(path).is_file()


def text_of(entry: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in entry["message"]["content"])


async def wait_until(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


async def send(pilot: Pilot[Any], app: Any, text: str) -> None:
    app.editor.load_text(text)
    await pilot.press("enter")


async def prompt(pilot: Pilot[Any], app: Any, text: str) -> None:
    await send(pilot, app, text)
    await wait_until(pilot, lambda: not app.running and app.session.messages[-1]["role"] == "assistant")
    await app.pump.drain()


async def screen_of(pilot: Pilot[Any], app: Any, kind: type) -> Any:
    await wait_until(pilot, lambda: isinstance(app.screen, kind))
    return app.screen


async def test_resume_opens_a_previous_session_and_shows_its_messages(faux: Any, workdir: Path) -> None:
    old = previous_session(workdir, "old question about parsers", "old answer")
    other = previous_session(workdir, "unrelated topic", "other answer")
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/resume")
        picker = await screen_of(pilot, app, ResumeScreen)
        await wait_until(pilot, lambda: len(picker.shown) == 2)
        await pilot.press(*"parsers")
        await wait_until(pilot, lambda: len(picker.shown) == 1)
        assert picker.shown[0].path == old
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.session_file == str(old.resolve()))
        await wait_until(pilot, lambda: [u.text for u in app.query(UserView)] == ["old question about parsers"])
        assert [m["role"] for m in app.session.messages] == ["user", "assistant"]
        assert other.exists()
        # The next prompt continues the resumed file.
        faux.set_responses([faux_assistant([faux_text("continued")])])
        await prompt(pilot, app, "more please")
        users = user_entries(old)
        assert [text_of(e) for e in users] == ["old question about parsers", "more please"]


async def test_delete_needs_confirmation_and_rename_appends_session_info(faux: Any, workdir: Path) -> None:
    keep = previous_session(workdir, "keep me", "a")
    doomed = previous_session(workdir, "delete me", "b")
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/resume")
        picker = await screen_of(pilot, app, ResumeScreen)
        await pilot.press(*"delete")
        await wait_until(pilot, lambda: len(picker.shown) == 1 and picker.shown[0].path == doomed)
        await pilot.press("ctrl+d", "n")  # declined: nothing happens
        await pilot.pause()
        assert doomed.exists() and picker.mode == "browse"
        await pilot.press("ctrl+d")
        assert "Delete session?" in str(picker.query_one("#resume-status").render())
        await pilot.press("y")
        await wait_until(pilot, lambda: not doomed.exists())
        await wait_until(pilot, lambda: [i.path for i in picker.sessions] == [keep])
        await pilot.press(*["backspace"] * len("delete"))
        await wait_until(pilot, lambda: [i.path for i in picker.shown] == [keep])
        await pilot.press("ctrl+r", *"My Name", "enter")
        await wait_until(pilot, lambda: bool(picker.sessions) and picker.sessions[0].name == "My Name")
        assert entries(keep)[-1] == {**entries(keep)[-1], "type": "session_info", "name": "My Name"}
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ResumeScreen))


async def test_the_open_session_cannot_be_deleted(faux: Any, workdir: Path) -> None:
    current = previous_session(workdir, "I am open", "yes")
    app = make_app(stored_session(faux, workdir, SessionManager.open(current)), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/resume")
        picker = await screen_of(pilot, app, ResumeScreen)
        await wait_until(pilot, lambda: len(picker.shown) == 1)
        await pilot.press("ctrl+d", "y")
        await pilot.pause()
        assert current.exists()
        assert "Cannot delete the currently active session" in str(picker.query_one("#resume-status").render())


async def test_resume_requested_opens_the_picker_at_start(faux: Any, workdir: Path) -> None:
    previous_session(workdir, "from yesterday", "ok")
    session = stored_session(faux, workdir)
    session.resume_requested = True
    app = make_app(session, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        picker = await screen_of(pilot, app, ResumeScreen)
        await wait_until(pilot, lambda: len(picker.shown) == 1)
        await pilot.press("enter")
        await wait_until(pilot, lambda: [u.text for u in app.query(UserView)] == ["from yesterday"])


async def _two_turns(pilot: Pilot[Any], app: Any, faux: Any) -> None:
    faux.set_responses([faux_assistant([faux_text("answer one")]), faux_assistant([faux_text("answer two")])])
    await prompt(pilot, app, "first question")
    await prompt(pilot, app, "second question")


async def _select_row(pilot: Pilot[Any], tree: TreeScreen, text: str) -> None:
    for _ in range(len(tree.rows)):
        if tree.current is not None and tree.current.text == text:
            return
        await pilot.press("up")
    raise AssertionError(f"row {text!r} not found in {[r.text for r in tree.rows]}")


async def test_tree_to_an_earlier_user_message_branches_the_next_prompt(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _two_turns(pilot, app, faux)
        path = app.session.session_file
        second = user_entries(path)[1]
        await send(pilot, app, "/tree")
        tree = await screen_of(pilot, app, TreeScreen)
        assert [r.text for r in tree.rows] == [
            "user: first question", "assistant: answer one", "user: second question", "assistant: answer two",
        ]  # fmt: skip
        assert tree.current is not None and tree.current.text == "assistant: answer two"
        body = str(tree.query_one("#tree-body").render())
        assert "› • assistant: answer two" in body and "(4/4)" in body
        await _select_row(pilot, tree, "user: second question")
        await pilot.press("enter")
        choice = await screen_of(pilot, app, PickerScreen)
        assert choice.title_text == "Summarize branch?"
        await pilot.press("enter")  # No summary
        await wait_until(pilot, lambda: app.editor.text == "second question")
        assert [m["role"] for m in app.session.messages] == ["user", "assistant"]
        assert [u.text for u in app.query(UserView)] == ["first question"]
        faux.set_responses([faux_assistant([faux_text("answer two, again")])])
        await prompt(pilot, app, "second question, edited")
        edited = user_entries(path)[-1]
        assert text_of(edited) == "second question, edited"
        assert edited["parentId"] == second["parentId"]  # a sibling of the old message: same file, new branch
        assert app.session.session_file == path


async def test_tree_with_summary_records_a_branch_summary(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _two_turns(pilot, app, faux)
        faux.set_responses([faux_assistant([faux_text("## Goal\nexplored the second question")])])
        await send(pilot, app, "/tree")
        tree = await screen_of(pilot, app, TreeScreen)
        await _select_row(pilot, tree, "assistant: answer one")
        await pilot.press("enter")
        await screen_of(pilot, app, PickerScreen)
        await pilot.press("down", "enter")  # Summarize
        path = app.session.session_file
        await wait_until(pilot, lambda: any(e["type"] == "branch_summary" for e in entries(path)))
        summary = next(e for e in entries(path) if e["type"] == "branch_summary")
        assert "explored the second question" in summary["summary"]
        answer_one = next(e for e in entries(path) if e["type"] == "message" and "answer one" in str(e["message"]))
        assert summary["parentId"] == answer_one["id"] == summary["fromId"]
        await wait_until(pilot, lambda: app.session.messages[-1]["role"] == "branchSummary")
        assert app.editor.text == ""


async def test_fork_creates_a_new_file_with_history_before_the_message(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _two_turns(pilot, app, faux)
        original = app.session.session_file
        await send(pilot, app, "/fork")
        picker = await screen_of(pilot, app, PickerScreen)
        assert [item.label for item in picker.items] == ["second question", "first question"]
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.session_file != original)
        await wait_until(pilot, lambda: app.editor.text == "second question")
        forked = app.session.session_file
        assert is_file(forked) and is_file(original)
        lines = entries(forked)
        assert lines[0]["parentSession"] == original
        assert [text_of(e) for e in user_entries(forked)] == ["first question"]
        assert [u.text for u in app.query(UserView)] == ["first question"]


async def test_clone_copies_the_branch_into_a_new_file(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _two_turns(pilot, app, faux)
        original = app.session.session_file
        await send(pilot, app, "/clone")
        await wait_until(pilot, lambda: app.session.session_file != original)
        clone = app.session.session_file
        assert [text_of(e) for e in user_entries(clone)] == ["first question", "second question"]
        assert entries(clone)[0]["parentSession"] == original


async def test_session_commands_are_completed_and_refused_without_storage(faux: Any, workdir: Path) -> None:
    from conftest import make_session

    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        names = {name for name, _ in app.commands.completion_entries()}
        assert {"resume", "tree", "fork", "clone", "new", "session"} <= names
        await send(pilot, app, "/fork")
        await pilot.pause()
        assert not isinstance(app.screen, PickerScreen)
        await wait_until(pilot, lambda: any("in memory only" in str(n.render()) for n in app.query(Notice)))


async def test_escape_during_branch_summary_leaves_the_tree_unchanged(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _two_turns(pilot, app, faux)
        path = app.session.session_file
        leaf = app.session.store.manager.get_leaf_id()
        faux.tokens_per_second = 5
        faux.set_responses([faux_assistant([faux_text("a very slow summary " * 50)])])
        await send(pilot, app, "/tree")
        tree = await screen_of(pilot, app, TreeScreen)
        await _select_row(pilot, tree, "user: first question")
        await pilot.press("enter")
        await screen_of(pilot, app, PickerScreen)
        await pilot.press("down", "enter")
        await screen_of(pilot, app, SummarizingScreen)
        await pilot.press("escape")
        reopened = await screen_of(pilot, app, TreeScreen)  # back in the tree, at the same entry
        assert reopened is not tree and reopened.current is not None
        assert reopened.current.text == "user: first question"
        assert any("Branch summarization cancelled" in str(n.render()) for n in app.query(Notice))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        assert app.session.store.manager.get_leaf_id() == leaf
        assert not any(e["type"] == "branch_summary" for e in entries(path))
        assert len(app.session.messages) == 4 and app.editor.text == ""


async def test_named_only_filter(faux: Any, workdir: Path) -> None:
    named = previous_session(workdir, "named one", "a")
    previous_session(workdir, "anonymous", "b")
    SessionManager.open(named).append_session_info("Parser work")
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/resume")
        picker = await screen_of(pilot, app, ResumeScreen)
        await wait_until(pilot, lambda: len(picker.shown) == 2)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: [i.path for i in picker.shown] == [named])
        assert "Parser work" in str(picker.query_one(OptionList).get_option_at_index(0).prompt)


async def test_new_session_name_export_copy_with_a_real_session(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _two_turns(pilot, app, faux)
        path = app.session.session_file

        def notices() -> str:
            return "\n".join(str(n.render()) for n in app.query(Notice))

        await send(pilot, app, "/name Parser work")
        await wait_until(pilot, lambda: "Session name set: Parser work" in notices())
        assert entries(path)[-1]["type"] == "session_info" and entries(path)[-1]["name"] == "Parser work"
        await send(pilot, app, "/session")
        await wait_until(pilot, lambda: f"File: {path}" in notices())
        assert "User: 2\nAssistant: 2" in notices() and app.session.session_id in notices()
        await send(pilot, app, "/copy")
        await wait_until(pilot, lambda: app.clipboard == "answer two")
        html = workdir / "out.html"
        await send(pilot, app, f"/export {html}")
        await wait_until(pilot, lambda: f"exported to: {html}" in notices())
        assert "second question" in html.read_text()
        branch = workdir / "branch.jsonl"
        await send(pilot, app, f"/export {branch}")
        await wait_until(pilot, lambda: f"exported to: {branch}" in notices())
        assert [text_of(e) for e in user_entries(branch)] == ["first question", "second question"]
        await send(pilot, app, "/new")
        await wait_until(pilot, lambda: app.session.session_file != path)
        assert app.session.messages == [] and not list(app.query(UserView))


def test_tree_rows_draw_connectors_below_a_branch_point(workdir: Path) -> None:
    from pi_cli.modes.interactive.screens.tree import flatten

    manager = SessionManager.in_memory(workdir)
    manager.append_model_change("faux", "faux-1")
    first = manager.append_message({"role": "user", "content": "one", "timestamp": 1})
    manager.append_message({"role": "user", "content": "two a", "timestamp": 2})
    manager.append_message({"role": "user", "content": "three a", "timestamp": 3})
    manager.branch(first)
    manager.append_thinking_level_change("high")  # hidden: its connector moves to the next row
    manager.append_message({"role": "user", "content": "two b", "timestamp": 4})
    manager.append_message({"role": "user", "content": "three b", "timestamp": 5})
    path = {e["id"] for e in manager.iter_branch()}
    rows = [(r.prefix, r.text, r.on_path) for r in flatten(manager.get_tree(), path)]
    assert rows == [
        ("", "user: one", True),
        ("├─ ", "user: two a", False),
        ("│  ", "user: three a", False),
        ("└─ ", "user: two b", True),
        ("   ", "user: three b", True),
    ]


async def test_tab_lists_sessions_of_all_projects(faux: Any, workdir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "other-project"
    elsewhere.mkdir()
    foreign = previous_session(elsewhere, "work in another project", "a")
    local = previous_session(workdir, "work here", "b")
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/resume")
        picker = await screen_of(pilot, app, ResumeScreen)
        await wait_until(pilot, lambda: [i.path for i in picker.shown] == [local])
        await pilot.press("tab")
        await wait_until(pilot, lambda: {i.path for i in picker.shown} == {local, foreign})
        assert str(elsewhere) in str(picker.query_one(OptionList).get_option_at_index(0).prompt) + str(
            picker.query_one(OptionList).get_option_at_index(1).prompt
        )


async def test_custom_summary_instructions_reach_the_model(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _two_turns(pilot, app, faux)
        faux.set_responses([faux_assistant([faux_text("summary with focus")])])
        await send(pilot, app, "/tree")
        tree = await screen_of(pilot, app, TreeScreen)
        await _select_row(pilot, tree, "assistant: answer one")
        await pilot.press("enter")
        await screen_of(pilot, app, PickerScreen)
        await pilot.press("down", "down", "enter")
        await screen_of(pilot, app, InstructionsScreen)
        await pilot.press("escape")  # back to the choice
        await screen_of(pilot, app, PickerScreen)
        await pilot.press("down", "down", "enter")
        await screen_of(pilot, app, InstructionsScreen)
        await pilot.press(*"keep the parser notes", "enter")
        path = app.session.session_file
        await wait_until(pilot, lambda: any(e["type"] == "branch_summary" for e in entries(path)))
        sent = json.dumps(faux.requests[-1].context["messages"])
        assert "Additional focus: keep the parser notes" in sent


async def test_tree_edge_cases(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _two_turns(pilot, app, faux)

        def notices() -> str:
            return "\n".join(str(n.render()) for n in app.query(Notice))

        await send(pilot, app, "/tree")
        await screen_of(pilot, app, TreeScreen)
        await pilot.press("enter")  # the current leaf
        await wait_until(pilot, lambda: "Already at this point" in notices())
        # Escape on "Summarize branch?" returns to the tree with the same entry selected.
        await send(pilot, app, "/tree")
        tree = await screen_of(pilot, app, TreeScreen)
        await _select_row(pilot, tree, "user: first question")
        await pilot.press("enter")
        await screen_of(pilot, app, PickerScreen)
        await pilot.press("escape")
        again = await screen_of(pilot, app, TreeScreen)
        assert again.current is not None and again.current.text == "user: first question"
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        # With branchSummary.skipPrompt there is no question; text already in the editor is kept.
        app.session.settings.branch_summary.skip_prompt = True
        app.editor.load_text("draft in progress")
        await app.commands.run("/tree")  # typing it would replace the draft
        tree = await screen_of(pilot, app, TreeScreen)
        await _select_row(pilot, tree, "user: second question")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Navigated to selected point" in notices())
        assert [m["role"] for m in app.session.messages] == ["user", "assistant"]
        assert app.editor.text == "draft in progress"


async def test_cancelling_the_start_picker_quits(faux: Any, workdir: Path) -> None:
    previous_session(workdir, "from yesterday", "ok")
    session = stored_session(faux, workdir)
    session.resume_requested = True
    app = make_app(session, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await screen_of(pilot, app, ResumeScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.is_running)
    assert app.return_value == 0


async def test_delete_confirms_with_enter_and_escape_cancels(faux: Any, workdir: Path) -> None:
    doomed = previous_session(workdir, "short lived", "a")
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/resume")
        picker = await screen_of(pilot, app, ResumeScreen)
        await wait_until(pilot, lambda: len(picker.shown) == 1)
        await pilot.press("ctrl+d", "escape")
        await pilot.pause()
        assert doomed.exists() and isinstance(app.screen, ResumeScreen) and picker.mode == "browse"
        await pilot.press("ctrl+d", "enter")
        await wait_until(pilot, lambda: not doomed.exists() and picker.sessions == [])
        assert isinstance(app.screen, ResumeScreen)  # still open: Enter confirmed, it did not open anything


async def test_extension_can_cancel_or_summarise_tree_navigation(faux: Any, workdir: Path) -> None:
    """``session_before_tree`` in the TUI: a cancel leaves the branch ("Navigation cancelled"),
    an extension summary is recorded without a model call and ``session_tree`` follows."""
    from pi_cli.extensions import ExtensionRunner
    from pi_cli.extensions.api import ExtensionAPI
    from pi_cli.session.assembly import SessionParts

    runner = ExtensionRunner(str(workdir))
    api = ExtensionAPI(runner, "tree-ext.py")
    answers: list[dict[str, Any]] = [{"cancel": True}, {"summary": {"summary": "from the extension"}}]
    trees: list[dict[str, Any]] = []
    api.on("session_before_tree", lambda event, ctx: answers.pop(0))
    api.on("session_tree", lambda event, ctx: trees.append(event))
    session = stored_session(faux, workdir, parts=SessionParts(extensions=runner))
    app = make_app(session, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await _two_turns(pilot, app, faux)
        leaf = session.store.manager.get_leaf_id()
        calls = faux.call_count
        for _ in range(2):
            await send(pilot, app, "/tree")
            tree = await screen_of(pilot, app, TreeScreen)
            await _select_row(pilot, tree, "assistant: answer one")
            await pilot.press("enter")
            await screen_of(pilot, app, PickerScreen)
            await pilot.press("down", "enter")  # Summarize
            await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
            if answers:  # the first round was cancelled by the extension
                cancelled = lambda: any("Navigation cancelled" in str(n.render()) for n in app.query(Notice))  # noqa: E731
                await wait_until(pilot, cancelled)
                assert session.store.manager.get_leaf_id() == leaf and trees == []
        await wait_until(pilot, lambda: len(trees) == 1)
        summary = next(e for e in entries(session.session_file) if e["type"] == "branch_summary")
        assert summary["summary"] == "from the extension" and summary["fromHook"] is True
        assert trees[0]["summaryEntry"]["id"] == summary["id"] and trees[0]["fromExtension"] is True
        assert faux.call_count == calls
        await wait_until(pilot, lambda: app.session.messages[-1]["role"] == "branchSummary")
