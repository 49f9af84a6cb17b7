"""Tool cards show what a write or edit will do while the call is still streaming (as pi 1.6)."""

from __future__ import annotations

from rich.console import Console

from pi_cli.modes.interactive.widgets.tool_card import ToolCard


def _text(card: ToolCard) -> str:
    console = Console(width=80, record=True, color_system=None)
    console.print(card.build())
    return console.export_text()


def test_streaming_edit_shows_the_replacements_and_grows_with_the_arguments() -> None:
    card = ToolCard("c1", "edit", {"path": "a.py", "edits": [{"oldText": "x = 1"}]})
    assert "-x = 1" in _text(card) and "+" not in _text(card).split("a.py", 1)[1]
    card.set_args({"path": "a.py", "edits": [{"oldText": "x = 1", "newText": "x = 2\ny = 3"}]})
    text = _text(card)
    assert "-x = 1" in text and "+x = 2" in text and "+y = 3" in text


def test_streaming_write_shows_its_content() -> None:
    card = ToolCard("c2", "write", {"path": "b.txt", "content": "hello\nworld"})
    assert "hello" in _text(card) and "world" in _text(card)


async def test_a_finished_call_from_history_is_drawn_when_mounted() -> None:
    # A resumed session builds its cards finished; nothing updates them after mounting, so the
    # mount itself must draw them (they used to show as blank rows).
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll

    from pi_cli.modes.interactive.widgets.messages import AssistantView

    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "cat m.py"}}
    message = {"role": "assistant", "content": [call], "stopReason": "toolUse"}
    result = {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "isError": False,
              "content": [{"type": "text", "text": "first line\nsecond line"}]}  # fmt: skip

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield AssistantView(message, {"c1": result})

    app = Host()
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        card = app.query_one(ToolCard)
        rows = [card.render_line(y).text for y in range(card.size.height)]
        assert any("cat m.py" in row for row in rows)
        assert any("second line" in row for row in rows)
        assert not card.has_class("-pending")
