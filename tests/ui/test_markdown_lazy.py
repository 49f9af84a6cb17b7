"""A long answer renders its last screenful first and the rest later, with the same result."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from pi_cli.modes.interactive.markdown import PieceRenderer, palette_for
from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown

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

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).anchor()  # follow the bottom, as the transcript does


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
        pieces = widget._stream.pieces
        renderer = PieceRenderer(pieces, palette_for(app.current_theme))
        for number, piece in enumerate(pieces):
            assert number or not piece.gap
            eager.extend(strip.text.rstrip() for strip in renderer.render(number, width))
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


async def test_rows_kept_through_growth_match_a_fresh_render() -> None:
    # A growing answer keeps its cached rows above the change through each relayout; every
    # visible row must still be what a render from scratch gives.
    widget = StreamingMarkdown()
    app = Host(widget)
    code = "".join(f"x_{n} = {n}  # line {n}\n" for n in range(80))
    text = f"Intro paragraph.\n\n```python\n{code}```\n\nDone.\n"
    async with app.run_test(size=(60, 20)) as pilot:
        for start in range(0, len(text), 37):
            await widget.append(text[start : start + 37])
            await pilot.pause()
            if start % (37 * 8) == 0:
                region = widget.size.region
                cached = [strip.text for strip in widget.render_lines(region)]
                widget._styles_cache.clear()
                assert [strip.text for strip in widget.render_lines(region)] == cached
        await widget.finish()
        await pilot.pause()
        assert widget.size.height > 80


async def test_text_read_above_the_end_stays_put_while_the_answer_settles() -> None:
    table = "Table {n}:\n\n| name | value |\n|---|---|\n| a{n} | {n} |\n| b{n} | {n} |"
    tables = "\n\n".join(table.format(n=n) for n in range(150))
    widget = StreamingMarkdown(tables, finished=True)  # drawn with more rows than the source has
    app = Host(widget)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        scroller = app.query_one(VerticalScroll)
        scroller.anchor(False)
        scroller.scroll_to(y=scroller.max_scroll_y - 200, animate=False, immediate=True)
        await pilot.pause()
        assert not widget.settled
        top = int(scroller.scroll_y)

        def shown() -> list[str]:
            return [widget.render_line(top + y).text.rstrip() for y in range(5)]

        before, start = shown(), top
        await _settle(pilot, widget)
        top = int(scroller.scroll_y)
        assert top != start  # the estimates above were off, so the view had to move ...
        assert shown() == before  # ... and it did, by as much: the same rows are in view
