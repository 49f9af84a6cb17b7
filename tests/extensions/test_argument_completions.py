"""pi's ``getArgumentCompletions`` on an extension command: after ``/name `` the editor offers the
command's own items for the argument typed so far, in the TUI and inline alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.prompts import argument_completions
from pi_cli.modes.completion import argument_completions as editor_items
from pi_cli.modes.inline.completion import InlineCompleter

ENVS = ("dev", "staging", "prod")


def deploy_items(prefix: str) -> list[dict[str, str]] | None:
    items = [{"value": env, "label": env, "description": f"deploy to {env}"} for env in ENVS if env.startswith(prefix)]
    return items or None


def runner_with_commands(tmp_path: Path) -> ExtensionRunner:
    runner = ExtensionRunner(str(tmp_path))
    pi = ExtensionAPI(runner, "deploy.py")
    # pi's shape (an options object, camelCase) and the Python keyword form
    pi.register_command(
        "deploy", {"description": "Deploy", "handler": lambda a, c: None, "getArgumentCompletions": deploy_items}
    )
    pi.register_command("plain", lambda a, c: None, "no completer")
    pi.register_command("broken", lambda a, c: None, get_argument_completions=lambda prefix: 1 / 0)
    pi.register_command("strings", lambda a, c: None, get_argument_completions=lambda prefix: ["one", "two", 3])
    return runner


def test_items_come_from_the_command_and_bad_answers_give_none(tmp_path: Path) -> None:
    runner = runner_with_commands(tmp_path)
    errors: list[dict[str, Any]] = []
    runner.on_error = errors.append
    assert [i["value"] for i in argument_completions(runner, "deploy", "")] == ["dev", "staging", "prod"]
    assert argument_completions(runner, "deploy", "st") == [
        {"value": "staging", "label": "staging", "description": "deploy to staging"}
    ]
    assert argument_completions(runner, "deploy", "x") == []  # None from the completer
    assert argument_completions(runner, "plain", "") == [] and argument_completions(runner, "nope", "") == []
    assert argument_completions(runner, "broken", "") == [] and [e["event"] for e in errors] == [
        "getArgumentCompletions"
    ]
    assert [i["label"] for i in argument_completions(runner, "strings", "")] == ["one", "two"]
    assert runner.commands["deploy"].description == "Deploy"


def test_the_editor_replaces_only_the_argument(tmp_path: Path) -> None:
    runner = runner_with_commands(tmp_path)

    def complete(name: str, prefix: str) -> list[dict[str, str]]:
        return argument_completions(runner, name, prefix)

    items = editor_items("/deploy pr", complete)
    assert [(i.start, i.end, i.value, i.kind) for i in items] == [(8, 10, "prod", "argument")]
    assert editor_items("/deploy", complete) == []  # still the command name: the command list answers
    assert editor_items("/deploy a\nb", complete) == []
    completer = InlineCompleter(tmp_path, list, complete)
    found = list(completer.get_completions(Document("/deploy s"), CompleteEvent()))
    assert [(c.text, c.start_position) for c in found] == [("staging", -1)]


async def test_tui_menu_offers_the_argument_items(faux: Any, tmp_path: Path) -> None:
    from pi_cli.modes.interactive import make_app
    from pi_cli.session.assembly import SessionParts, build_session

    runner = runner_with_commands(tmp_path)
    session = build_session(cwd=tmp_path, parts=SessionParts(extensions=runner), system_prompt="t", model=faux.model())
    app = make_app(session, keymap={})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"/deploy", "space", "s")
        await pilot.pause()
        assert app.menu.is_open and [i.value for i in app.menu.items] == ["staging"]
        await pilot.press("tab")
        assert app.editor.text == "/deploy staging"
