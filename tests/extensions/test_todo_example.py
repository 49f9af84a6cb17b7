"""The ``todo`` example (pi's): a tool whose list follows the branch, drawn by its own
``render_call`` / ``render_result`` in the theme's colours."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from extensions.test_examples import session_with, tool_results
from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call
from pi_cli.extensions.rendering import ExtensionTheme, RenderContext, RenderOptions


async def test_todo_example_keeps_the_list_and_draws_it(faux: Any, tmp_path: Path) -> None:
    calls = [
        faux_tool_call("todo", {"action": "add", "text": "write tests"}),
        faux_tool_call("todo", {"action": "add", "text": "ship"}),
        faux_tool_call("todo", {"action": "toggle", "id": 1}),
        faux_tool_call("todo", {"action": "toggle"}),
        faux_tool_call("todo", {"action": "list"}),
    ]
    faux.set_responses([faux_assistant([call]) for call in calls] + [faux_assistant([faux_text("done")])])
    session, runner, recorder = session_with(faux, tmp_path, "todo")
    await runner.start()
    await session.prompt("plan")
    texts = [text for text, _ in tool_results(session)]
    assert texts == ["Added todo #1: write tests", "Added todo #2: ship", "Todo #1 completed",
                     "Error: id required for toggle", "[x] #1: write tests\n[ ] #2: ship"]  # fmt: skip
    renderer = runner.renderer_for("todo")
    assert renderer is not None
    results = [m for m in session.messages if m.get("role") == "toolResult"]
    title = renderer.call({"action": "add", "text": "ship"}, RenderContext())
    assert title is not None and "todo" in title[0] and '"ship"' in title[0]
    drawn = renderer.result(results[-1], RenderOptions(), RenderContext())
    assert drawn is not None
    plain = [Console().render_str(line).plain for line in drawn]
    assert "2 todo(s):" in plain[0] and "#1" in plain[1] and "ship" in plain[2]
    error = renderer.result(results[3], RenderOptions(), RenderContext())
    assert error is not None and "Error: id required" in error[0]
    await runner.run_command(runner.commands["todos"], "")  # print mode: no view, as pi
    assert recorder.notes[-1] == ("/todos requires interactive mode", "error")


def test_todo_rendering_is_coloured_and_collapses_long_lists() -> None:
    from pi_cli.extensions.examples.rendering.todo import render_result

    theme = ExtensionTheme({"success": "#00ff00", "accent": "#0000ff"})
    todos = [{"id": i, "text": f"item {i}", "done": i == 1} for i in range(1, 8)]
    result = {"content": [], "details": {"action": "list", "todos": todos, "nextId": 8}}
    collapsed = render_result(result, RenderOptions(), theme, RenderContext()).split("\n")
    assert len(collapsed) == 7 and "... 2 more" in collapsed[-1] and "\x1b[38;2;0;255;0m✓" in collapsed[1]
    expanded = render_result(result, RenderOptions(expanded=True), theme, RenderContext()).split("\n")
    assert len(expanded) == 8 and "item 7" in expanded[-1]


async def test_todo_cards_in_the_tui_are_drawn_by_the_example(faux: Any, tmp_path: Path) -> None:
    from extensions.test_tui_ui import SIZE, make_app, wait_until
    from pi_cli.extensions.examples.rendering.todo import register
    from pi_cli.modes.interactive.widgets.tool_card import ToolCard

    faux.set_responses(
        [
            faux_assistant([faux_tool_call("todo", {"action": "add", "text": "buy milk"})]),
            faux_assistant([faux_text("added")]),
        ]
    )
    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        await app.session.prompt("add it")
        await wait_until(pilot, lambda: any(c.state == "done" for c in app.query(ToolCard)))
        await pilot.pause()
        card = app.query_one(ToolCard)
        rows = "\n".join(card.render_line(y).text for y in range(card.size.height))
        assert 'todo add "buy milk"' in rows and "✓ Added #1 buy milk" in rows
        assert "Added todo #1: buy milk" not in rows  # the default output is replaced


async def test_a_resumed_todo_card_is_drawn_by_the_example(tmp_path: Path) -> None:
    from textual.app import App, ComposeResult

    from pi_cli.extensions import ExtensionAPI, ExtensionRunner
    from pi_cli.extensions.examples.rendering.todo import register
    from pi_cli.modes.interactive.widgets.messages import AssistantView
    from pi_cli.modes.interactive.widgets.tool_card import ToolCard

    runner = ExtensionRunner(str(tmp_path))
    register(ExtensionAPI(runner, "todo.py"))
    call = {"type": "toolCall", "id": "c1", "name": "todo", "arguments": {"action": "add", "text": "milk"}}
    message = {"role": "assistant", "content": [call], "stopReason": "toolUse"}
    todos = [{"id": 1, "text": "milk", "done": False}]
    result = {"role": "toolResult", "toolCallId": "c1", "toolName": "todo", "isError": False,
              "content": [{"type": "text", "text": "Added todo #1: milk"}],
              "details": {"action": "add", "todos": todos, "nextId": 2}}  # fmt: skip

    class Host(App[None]):
        def tool_renderer(self, name: str) -> Any:
            return runner.renderer_for(name)

        def compose(self) -> ComposeResult:
            yield AssistantView(message, {"c1": result})

    app = Host()
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        card = app.query_one(ToolCard)
        rows = "\n".join(card.render_line(y).text for y in range(card.size.height))
        assert "✓ Added #1 milk" in rows and "Added todo #1" not in rows


async def test_todos_command_opens_the_list_view_until_escape(faux: Any, tmp_path: Path) -> None:
    from extensions.test_tui_ui import SIZE, make_app, screen_text, wait_until
    from pi_cli.extensions.examples.rendering.todo import register
    from pi_cli.modes.interactive.extension_ui.custom import ComponentSheet

    faux.set_responses(
        [
            faux_assistant([faux_tool_call("todo", {"action": "add", "text": "buy milk"})]),
            faux_assistant([faux_tool_call("todo", {"action": "toggle", "id": 1})]),
            faux_assistant([faux_tool_call("todo", {"action": "add", "text": "bake bread"})]),
            faux_assistant([faux_text("added")]),
        ]
    )
    app, runner = make_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        await app.session.prompt("add them")
        app.editor.load_text("/todos")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ComponentSheet))
        await pilot.pause()
        view = app.screen.view
        text = "\n".join(view.render_line(y).text for y in range(view.size.height))
        assert "Todos" in text and "1/2 completed" in text and "✓ #1 buy milk" in text and "○ #2 bake bread" in text
        await pilot.press("x")  # other keys do nothing
        assert isinstance(app.screen, ComponentSheet)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        assert "Press Escape to close" not in screen_text(app)
