"""pi's ``ctx.ui.add_autocomplete_provider``: a provider stacked on the built-in completion answers
its own syntax (here ``#123`` issues, sync and async) and hands everything else down, in the TUI
and inline alike; a no-op without a terminal UI."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from extensions.test_tui_ui import SIZE, make_app, wait_until
from pi_cli.extensions import ExtensionRunner
from pi_cli.modes.completion import BuiltinProvider, stack, suggest, to_completions
from pi_cli.modes.inline.completion import InlineCompleter

ISSUES = {"2983": "custom @ autocomplete providers", "2753": "reload stale settings"}


def issues_provider(current: Any, delay: float | None = None) -> dict[str, Any]:
    """pi's github-issue-autocomplete shape: ``#digits`` before the cursor, else the one below."""

    def answer(lines: list[str], line: int, col: int, options: Any) -> Any:
        before = lines[line][:col]
        token = before.rsplit(" ", 1)[-1]
        if not token.startswith("#"):
            return current.get_suggestions(lines, line, col, options)
        items = [
            {"value": f"#{n}", "label": f"#{n}", "description": title}
            for n, title in ISSUES.items()
            if n.startswith(token[1:])
        ]
        return {"prefix": token, "items": items}

    if delay is None:
        return {"getSuggestions": answer, "triggerCharacters": ["#"]}

    async def later(lines: list[str], line: int, col: int, options: Any) -> Any:
        await asyncio.sleep(delay)
        return answer(lines, line, col, options)

    return {"get_suggestions": later}


def test_the_stack_answers_its_syntax_and_hands_the_rest_down(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    base = BuiltinProvider(lambda: [("hotkeys", "keys")], lambda name, prefix: [], tmp_path)
    failures: list[BaseException] = []
    top = stack([issues_provider, lambda current: 1 / 0], base, failures.append)
    text = "fix #27"
    items = to_completions(suggest(top, text, len(text)), len(text))
    assert [(i.start, i.end, i.value, i.description) for i in items] == [(4, 7, "#2753", "reload stale settings")]
    assert [i.value for i in to_completions(suggest(top, "/hot", 4), 4)] == ["/hotkeys "]
    paths = to_completions(suggest(top, "see @sr", 7), 7)
    assert [(i.value, i.kind) for i in paths] == [("@src/", "path")]  # built-in items keep their kind
    assert to_completions(suggest(top, "plain", 5), 5) == [] and len(failures) == 1
    assert base.apply_completion(["fix #27 now"], 0, 7, {"value": "#2753"}, "#27") == {
        "lines": ["fix #2753 now"],
        "cursorLine": 0,
        "cursorCol": 9,
    }


def test_without_a_terminal_ui_it_is_a_no_op(tmp_path: Path) -> None:
    ExtensionRunner(str(tmp_path)).context().ui.add_autocomplete_provider(issues_provider)


async def test_tui_menu_shows_sync_and_async_provider_items(faux: Any, tmp_path: Path) -> None:
    def register(pi: Any) -> None:
        pi.on("session_start", lambda event, ctx: ctx.ui.add_autocomplete_provider(issues_provider))

    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started and bool(app.editor.provider_factories()))
        await pilot.press(*"fix", "space", "number_sign", "2", "9")
        await wait_until(pilot, lambda: app.menu.is_open)
        assert [i.value for i in app.menu.items] == ["#2983"]
        await pilot.press("tab")
        assert app.editor.text == "fix #2983"
        app.editor.load_text("")
        runner.context().ui.add_autocomplete_provider(lambda current: issues_provider(current, delay=0.05))
        await pilot.press("number_sign")
        await wait_until(pilot, lambda: app.menu.is_open and len(app.menu.items) == 2)
        app.editor.load_text("")
        await pilot.press("slash", "h", "o", "t")  # handed down to the built-in commands
        await wait_until(pilot, lambda: app.menu.is_open and app.menu.items[0].value == "/hotkeys ")


async def test_inline_completer_asks_the_providers(tmp_path: Path) -> None:
    factories: list[Any] = [lambda current: issues_provider(current, delay=0.01)]
    completer = InlineCompleter(tmp_path, lambda: [("hotkeys", "keys")], None, lambda: factories)
    found = [c async for c in completer.get_completions_async(Document("see #2"), CompleteEvent())]
    assert [(c.text, c.start_position) for c in found] == [("#2983", -2), ("#2753", -2)]
    commands = [c async for c in completer.get_completions_async(Document("/ho"), CompleteEvent())]
    assert [c.text for c in commands] == ["/hotkeys"]
