"""The transcript's scrollbar draws the same cells as Textual's, from reused strips."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_app import SIZE, ask, long_answer_app
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from pi_cli.modes.interactive.widgets.scrollbar import LightScrollBar


def _cells(lines: list[Strip]) -> list[list[tuple[str, Any]]]:
    """Each row as (character, style) per cell, however the strips are cut into segments."""
    return [[(char, segment.style) for segment in line for char in segment.text] for line in lines]


async def test_the_light_scrollbar_draws_textuals_cells_at_every_position(faux: Any, workdir: Path) -> None:
    app = long_answer_app(faux, workdir)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app)
        transcript = app.transcript
        bar = transcript.vertical_scrollbar
        assert isinstance(bar, LightScrollBar) and bar.display
        height = bar.size.height
        seen = set()
        for y in (0, 1, 7, transcript.max_scroll_y // 3, transcript.max_scroll_y // 2, transcript.max_scroll_y):
            transcript.scroll_to(y=y, animate=False, immediate=True)
            await pilot.pause()
            for crop in (Region(0, 0, 1, height), Region(0, 3, 1, 5)):
                ours = bar.render_lines(crop)
                textuals = ScrollBar.render_lines(bar, crop)
                assert _cells(ours) == _cells(textuals), (y, crop)
            seen.add(tuple(map(tuple, _cells(bar.render_lines(Region(0, 0, 1, height))))))
        assert len(seen) >= 4  # the thumb moved: the comparison covered different bars
