"""Images in tool results drawn by the terminal through kitty's Unicode placeholders.

Where kitty's graphics protocol is in use (forced here with ``PI_IMAGE_PROTOCOL=kitty``), a card
shows a read PNG as placeholder cells (U+10EEEE coloured with the image id, marked with row and
column) and carries the pixels, zlib-compressed RGBA, in a zero-width control segment at the
start of the image's last row.
"""

from __future__ import annotations

import base64
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from test_app import SIZE, ask
from test_tool_images import RED, WHITE, quad_app
from textual.geometry import Region

from pi_cli.modes.interactive.widgets.kitty_image import KittyImage
from pi_cli.modes.interactive.widgets.tool_card import ToolCard
from pi_cli.modes.interactive.widgets.tool_image import HALF_BLOCK
from pi_cli.modes.terminal_images import (
    DIACRITICS,
    PLACEHOLDER,
    kitty_upload,
    placeholder_color,
    tui_image_protocol,
)
from pi_cli.tools.files.raster import Raster

_UPLOAD = re.compile(r"\x1b_Ga=t,f=32,o=z,s=(\d+),v=(\d+),i=(\d+),q=2,m=0;([A-Za-z0-9+/=]*)\x1b\\")
_PLACE = re.compile(r"\x1b_Ga=p,U=1,i=(\d+),c=(\d+),r=(\d+),q=2\x1b\\")


def test_the_tui_uses_kitty_placeholders_only_where_kitty_draws() -> None:
    assert tui_image_protocol({"TERM": "xterm-kitty"}) == "kitty"
    assert tui_image_protocol({"TERM_PROGRAM": "ghostty"}) == "kitty"
    assert tui_image_protocol({"TERM_PROGRAM": "iTerm.app"}) is None  # no placeholders: half blocks
    assert tui_image_protocol({"TERM": "xterm-kitty", "TMUX": "/tmp/t"}) is None  # tmux drops them
    assert tui_image_protocol({"PI_IMAGE_PROTOCOL": "kitty", "TMUX": "/tmp/t"}) == "kitty"
    assert tui_image_protocol({"TERM": "xterm-kitty"}, show_images=False) is None
    assert len(DIACRITICS) == 297 and DIACRITICS[:2] == "\u0305\u030d" and DIACRITICS[-1] == "\U0001d244"


def test_uploads_are_chunked_and_wrapped_for_tmux() -> None:
    data = bytes(range(256)) * 40  # 10,240 bytes: 13,656 base64 characters, four chunks
    plain = kitty_upload(data, 16, 16, 4242)
    assert plain.count("\x1b_G") == 4 and plain.count("m=1;") == 3 and plain.count("m=0;") == 1
    assert plain.startswith("\x1b_Ga=t,f=32,o=z,s=16,v=16,i=4242,q=2,m=1;")
    joined = "".join(re.findall(r";([A-Za-z0-9+/=]*)\x1b\\", plain))
    assert base64.b64decode(joined) == data
    wrapped = kitty_upload(data, 16, 16, 4242, tmux=True)
    assert wrapped.count("\x1bPtmux;") == 4 and "\x1b\x1b_G" in wrapped


def test_the_picture_fits_the_width_with_cells_twice_as_tall_as_wide() -> None:
    picture = KittyImage(Raster(120, 60, bytes(4) * 7200), 60, 24)
    assert picture.grid(80) == (20, 5)  # 120 px at 6 per cell; 20 x 10 half cells
    assert picture.grid(10) == (10, 2)  # a narrower card: fewer cells, aspect kept
    console = Console(width=80, record=True, color_system="truecolor")
    console.print(picture)
    rows = console.export_text().splitlines()
    assert len(rows) == 5 and all(row.count(PLACEHOLDER) == 20 for row in rows)


async def test_a_read_png_is_drawn_by_the_terminal(faux: Any, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_IMAGE_PROTOCOL", "kitty")
    monkeypatch.delenv("TMUX", raising=False)
    app = quad_app(faux, workdir)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "look")
        card = app.query_one(ToolCard)
        strips = card.render_lines(Region(0, 0, card.size.width, card.size.height))  # what the screen gets
        rows = [strip for strip in strips if PLACEHOLDER in strip.text]
        assert rows and not any(HALF_BLOCK in strip.text for strip in strips)
        # 8x8 pixels: two cells wide (6 pixels a cell), one row; every cell names its row and column.
        assert [row.text.count(PLACEHOLDER) for row in rows] == [2]
        cells = [seg for seg in rows[0] if PLACEHOLDER in seg.text]
        assert cells[0].text.startswith(PLACEHOLDER + DIACRITICS[0] + DIACRITICS[0])
        assert {strip.cell_length for strip in strips} == {card.size.width}, [
            s.cell_length for s in strips
        ]  # zero-width upload
        controls = "".join(seg.text for seg in rows[0] if seg.control)  # with the first visible row
        width, height, image_id, payload = _UPLOAD.search(controls).groups()  # type: ignore[union-attr]
        assert _PLACE.search(controls).groups() == (image_id, "2", "1")  # type: ignore[union-attr]
        color = cells[0].style.color.get_truecolor()  # type: ignore[union-attr]
        assert tuple(color) == placeholder_color(int(image_id))
        rgba = zlib.decompress(base64.b64decode(payload))
        assert (int(width), int(height)) == (8, 8) and len(rgba) == 8 * 8 * 4
        assert tuple(rgba[:3]) == RED and tuple(rgba[-4:-1]) == WHITE  # the pixels, not a placeholder
