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
