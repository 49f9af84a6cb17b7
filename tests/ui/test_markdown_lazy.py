"""A long answer renders its last screenful first and the rest later, with the same result."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown, render_piece

TEXT = "\n\n".join(
    f"## Part {n}\n\nParagraph {n} with **bold** words, `code` and enough text to wrap once or twice "
    f"on a narrow screen.\n\n- item {n}a\n- item {n}b\n\n```python\nvalue_{n} = {n}\n```"
    for n in range(60)
)


class Host(App[None]):
    def __init__(self, widget: StreamingMarkdown) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield self.widget


def _rows(widget: StreamingMarkdown) -> list[str]:
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]


async def _settle(pilot: Any, widget: StreamingMarkdown) -> None:
    for _ in range(200):
        if widget.settled:
            break
        await pilot.pause(0.05)
    await pilot.pause()


async def test_a_long_finished_answer_settles_to_the_eager_rendering() -> None:
    widget = StreamingMarkdown(TEXT, finished=True)
    app = Host(widget)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert widget.piece_count > 3
        assert not widget.settled  # only the bottom was rendered for the first frame
        await _settle(pilot, widget)
        assert widget.settled
        width = widget.content_region.width
        eager: list[str] = []
        for number, piece in enumerate(widget._stream.pieces):
            strips = render_piece(app.console, piece, width)
            assert number or not piece.gap
            eager.extend(strip.text.rstrip() for strip in strips)
        assert _rows(widget) == eager
        assert widget.size.height == len(eager)


async def test_a_burst_while_streaming_keeps_the_bottom_exact() -> None:
    widget = StreamingMarkdown()
    app = Host(widget)
    async with app.run_test(size=(80, 24)) as pilot:
        await widget.append(TEXT[:20_000])
        await pilot.pause()
        assert not widget.settled
        await widget.append(TEXT[20_000:] + "\n\nTHE-END")
        await widget.finish()
        await pilot.pause()
        rows = _rows(widget)
        assert rows[-1].strip() == "THE-END"
        await _settle(pilot, widget)
        assert widget.settled
        settled = _rows(widget)
        assert settled[-1].strip() == "THE-END"
        assert sum("## Part" in row or row.strip().startswith("Part ") for row in settled) == 60
