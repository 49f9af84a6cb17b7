"""/rewind in the TUI: pick a message, see what files would change, restore files and conversation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_session_screens import SIZE, prompt, screen_of, send, stored_session, wait_until

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.screens.picker import PickerScreen
from pi_cli.modes.interactive.widgets.messages import UserView


async def test_rewind_restores_files_and_conversation(faux: Any, workdir: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        faux.set_responses([faux_assistant([faux_text("answer one")]), faux_assistant([faux_text("answer two")])])
        await prompt(pilot, app, "first question")
        (workdir / "made.txt").write_text("made by a tool\n")  # as bash would
        (workdir / "hello.txt").unlink()
        await prompt(pilot, app, "second question")
        await send(pilot, app, "/rewind")
        picker = await screen_of(pilot, app, PickerScreen)
        assert [(i.label, i.detail) for i in picker.items] == [
            ("second question", "files checkpointed"), ("first question", "files checkpointed")
        ]  # fmt: skip
        await pilot.press("down", "enter")  # first question
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen is not picker)
        modes = app.screen
        assert [i.key for i in modes.items] == ["both", "files", "conversation"]
        assert modes.items[0].detail == "files: 1 created, 1 deleted"
        # the files themselves, as the README promises (issue 33 item 13), on the screen
        assert modes.note.splitlines() == [
            "Files to restore:",
            f"  {'restored (deleted since)':24} hello.txt",
            f"  {'deleted (created since)':24} made.txt",
        ]
        shown = str(modes.query_one("#picker-note").render())
        assert "made.txt" in shown and "hello.txt" in shown
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.editor.text == "first question")
        assert (workdir / "hello.txt").read_text() == "hello\n" and not (workdir / "made.txt").exists()
        await wait_until(pilot, lambda: [u.text for u in app.query(UserView)] == [])
        assert app.session.messages == []


async def test_tree_offers_to_restore_files(faux: Any, workdir: Path) -> None:
    from test_session_screens import _select_row

    from pi_cli.modes.interactive.screens.tree import TreeScreen

    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        faux.set_responses([faux_assistant([faux_text("answer one")]), faux_assistant([faux_text("answer two")])])
        await prompt(pilot, app, "first question")
        await prompt(pilot, app, "second question")
        (workdir / "made.txt").write_text("after the second question\n")
        await send(pilot, app, "/tree")
        tree = await screen_of(pilot, app, TreeScreen)
        await _select_row(pilot, tree, "user: second question")
        await pilot.press("enter")
        summary = await screen_of(pilot, app, PickerScreen)
        assert summary.title_text == "Summarize branch?"
        await pilot.press("enter")  # No summary
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen is not summary)
        offer = app.screen
        assert offer.title_text == "Restore files to this point?"
        assert offer.items[0].detail == "files: 1 deleted"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not (workdir / "made.txt").exists())
        assert app.editor.text == "second question"


def test_a_long_file_list_is_cut_with_a_count() -> None:
    from pi_cli.modes.interactive.slash.rewind import files_note

    note = files_note({"modified": [f"f{n}.py" for n in range(20)]})
    assert note.splitlines()[0] == "Files to restore:" and note.splitlines()[-1] == "  … and 8 more"
    assert len(note.splitlines()) == 14
    assert files_note({}) == "Files: no changes to restore"
