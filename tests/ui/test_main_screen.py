"""The cheaper paint path: row-cropped partial renders and the spinner riding on stream frames."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import make_session
from test_app import SIZE, ask, long_answer_app
from textual._compositor import Compositor
from textual.geometry import Region

from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.widgets.main_screen import RowCroppedCompositor
from pi_cli.modes.interactive.widgets.status import SPINNER


def _chops(
    compositor: Compositor, crop: Region, base: bool, dirty: set[int] | None = None
) -> list[list[tuple[int, str]]]:
    """The ``dirty`` rows of ``crop`` (all of them by default) as (cut, text+styles) pairs, via
    ours or via Textual's renders."""
    saved = compositor.__class__
    if base:
        compositor.__class__ = Compositor  # Textual's own _get_renders, same state
    rows = sorted(dirty) if dirty is not None else list(range(crop.y, crop.bottom))
    try:
        chops = compositor._render_chops(crop, set(rows).__contains__)
    finally:
        compositor.__class__ = saved
    return [[(cut, repr(list(strip)) if strip is not None else "") for cut, strip in chops[y].items()] for y in rows]


async def test_partial_renders_match_textuals_row_for_row(faux: Any, workdir: Path) -> None:
    app = long_answer_app(faux, workdir)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app)
        compositor = app.screen._compositor
        assert isinstance(compositor, RowCroppedCompositor)
        width, height = SIZE
        crops = [Region(0, y, width, h) for y in (0, 3, 17, height - 6, height - 2) for h in (1, 2, 5)]
        crops += [Region(2, 10, 30, 3), Region(0, 0, width, height)]
        for crop in crops:
            crop = crop.intersection(Region(0, 0, width, height))
            assert _chops(compositor, crop, base=False) == _chops(compositor, crop, base=True), crop


async def test_spinner_advances_with_stream_frames_and_its_timer_stays_quiet(faux: Any, workdir: Path) -> None:
    app = make_app(make_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        line = app.working
        line.start("Working...")
        await pilot.pause()
        assert line.text.endswith("Working... (esc to interrupt)")
        assert line.text[0] in SPINNER
        line._last = 0.0  # long ago: the next frame advances it
        before = line.text[0]
        line.pulse()
        assert line.text[0] != before
        after_pulse = line.text
        line._last = 0.0
        line._on_timer()  # a frame just carried the spinner: the timer does not repaint too
        assert line.text == after_pulse
        line._last_pulse = line._last = 0.0
        line._on_timer()  # no frames for a while: the timer animates on its own
        assert line.text != after_pulse
        line.stop()
        await pilot.pause()
        assert not line.display or "-shown" not in line.classes


async def test_only_the_dirty_rows_of_a_partial_update_are_rendered_and_match_textuals(
    faux: Any, workdir: Path
) -> None:
    app = long_answer_app(faux, workdir)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app)
        compositor = app.screen._compositor
        width, height = SIZE
        crop = Region(0, 3, width, height - 5)
        dirty = {3, 4, 17, height - 3}  # a streamed line or two and the spinner far below
        calls: list[Region] = []
        for widget in compositor.visible_widgets:
            original = widget.render_lines

            def spy(region: Region, _original: Any = original) -> Any:
                calls.append(region)
                return _original(region)

            widget.render_lines = spy  # type: ignore[method-assign]
        ours = _chops(compositor, crop, base=False, dirty=dirty)
        rendered_rows = sum(region.height for region in calls)
        calls.clear()
        textuals = _chops(compositor, crop, base=True, dirty=dirty)
        assert rendered_rows < sum(region.height for region in calls)  # Textual renders the whole crop
        assert ours == textuals
