"""Images in tool results drawn in the TUI with half blocks (pi_cli/modes/interactive/widgets/tool_image.py).

A real session reads a PNG with the ``read`` tool; the card must show the picture as ``▀`` cells
whose foreground is the upper pixel and background the lower one, and keep a placeholder line
naming type and size for what it cannot draw (JPEG, a broken PNG, images turned off).
"""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path
from typing import Any

from conftest import make_session
from rich.console import Console
from test_app import SIZE, ask, settle

from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call
from pi_cli.config.settings import Settings, TerminalSettings
from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.widgets.tool_card import ToolCard
from pi_cli.modes.interactive.widgets.tool_image import HALF_BLOCK, HalfBlockImage, decoded, half_block_lines
from pi_cli.tools.files.raster import Raster

RED, BLUE, GREEN, WHITE = (255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 255, 255)


def _png(width: int, height: int, pixel: Any) -> bytes:
    """An 8-bit RGB PNG (filter None on every row) whose (x, y) pixel is ``pixel(x, y)``."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    raw = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def _quadrants(x: int, y: int) -> tuple[int, int, int]:
    """Red top-left, blue bottom-left, green top-right, white bottom-right (8x8 pixels)."""
    if x < 4:
        return RED if y < 4 else BLUE
    return GREEN if y < 4 else WHITE


def _read_session(faux: Any, workdir: Path, name: str, settings: Settings | None = None) -> Any:
    from pi_cli.tools import create_all_tools

    faux.set_responses([faux_assistant([faux_tool_call("read", {"path": name})]), faux_assistant([faux_text("seen")])])
    from pi_cli.session.assembly import build_session

    tools = [create_all_tools(workdir)["read"]]
    if settings is None:
        return make_session(faux, workdir, tools)
    return build_session(cwd=workdir, system_prompt="test", model=faux.model(None), tools=tools, settings=settings)


def quad_app(faux: Any, workdir: Path, settings: Settings | None = None) -> Any:
    """An app whose model reads ``quad.png``: 8x8 pixels in four coloured quadrants."""
    (workdir / "quad.png").write_bytes(_png(8, 8, _quadrants))
    return make_app(_read_session(faux, workdir, "quad.png", settings), keymap={})


async def test_a_read_png_is_drawn_with_half_blocks(faux: Any, workdir: Path) -> None:
    app = quad_app(faux, workdir)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "look")
        card = app.query_one(ToolCard)
        strips = [card.render_line(y) for y in range(card.size.height)]
        rows = [strip for strip in strips if HALF_BLOCK in strip.text]
        # 8x8 pixels -> 8 columns by 4 cell rows; the top two rows: red over red, green over green.
        assert len(rows) == 4
        cells = [(seg.style.color.get_truecolor(), seg.style.bgcolor.get_truecolor()) for seg in rows[0]
                 if HALF_BLOCK in seg.text and seg.style and seg.style.color and seg.style.bgcolor]  # fmt: skip
        assert [tuple(c) for c in cells[0]] == [RED, RED] and [tuple(c) for c in cells[-1]] == [GREEN, GREEN]
        bottom = [seg for seg in rows[3] if HALF_BLOCK in seg.text and seg.style and seg.style.bgcolor]
        assert tuple(bottom[-1].style.color.get_truecolor()) == WHITE  # type: ignore[union-attr]
        text = "\n".join(strip.text for strip in strips)
        assert "Read image file [image/png]" in text
        assert "[image png" not in text  # drawn, so no placeholder line


async def test_a_large_png_is_decoded_on_a_worker_thread_then_drawn(faux: Any, workdir: Path) -> None:
    # 600x500 pixels: more than THREAD_PIXELS, so the card first shows the placeholder.
    from test_app import wait_until

    from pi_cli.modes.interactive.widgets.tool_image import THREAD_PIXELS, clear_cache

    assert THREAD_PIXELS < 600 * 500
    clear_cache()
    (workdir / "big.png").write_bytes(_png(600, 500, lambda x, y: RED if y < 250 else BLUE))
    app = make_app(_read_session(faux, workdir, "big.png"), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"look", "enter")
        await settle(pilot, app)
        card = app.query_one(ToolCard)

        def text() -> str:
            return "\n".join(card.render_line(y).text for y in range(card.size.height))

        await wait_until(pilot, lambda: HALF_BLOCK in text())
        assert "drawing" not in text() and "[image png" not in text()
        rows = [line for line in text().split("\n") if HALF_BLOCK in line]
        assert len(rows) == 24  # 60 columns: 50 pixel rows, capped at 24 cell rows (48 pixels)


async def test_images_off_and_undecodable_images_keep_their_placeholder(faux: Any, workdir: Path) -> None:
    app = quad_app(faux, workdir, Settings(terminal=TerminalSettings(show_images=False)))
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "look")
        card = app.query_one(ToolCard)
        text = "\n".join(card.render_line(y).text for y in range(card.size.height))
        assert HALF_BLOCK not in text
        assert "[image png 8x8, " in text


def test_a_jpeg_or_broken_png_is_a_placeholder_with_type_and_size() -> None:
    jpeg = b"\xff\xd8\xff\xc0\x00\x11\x08\x00\x30\x00\x40\x03" + bytes(100)
    card = ToolCard("c1", "read", {"path": "x.jpg"})
    card.finish(
        {"content": [{"type": "image", "data": base64.b64encode(jpeg).decode(), "mimeType": "image/jpeg"}]}, False
    )
    console = Console(width=80, record=True, color_system=None)
    console.print(card.build())
    assert "[image jpeg 64x48, 112B]" in console.export_text()
    broken = base64.b64encode(b"\x89PNG\r\n\x1a\nnot really").decode()
    assert decoded(broken, "image/png", 60) is None


def test_half_blocks_blend_alpha_over_the_background_and_pad_odd_rows() -> None:
    image = Raster(1, 3, bytes([255, 0, 0, 255, 255, 255, 255, 0, 0, 0, 255, 128]))
    lines = half_block_lines(image, (0, 0, 0))
    top, bottom = lines
    assert top[0].style is not None and top[0].style.bgcolor is not None
    assert tuple(top[0].style.bgcolor.get_truecolor()) == (0, 0, 0)  # transparent white: background
    assert bottom[0].style is not None and bottom[0].style.color is not None and bottom[0].style.bgcolor is not None
    assert tuple(bottom[0].style.color.get_truecolor()) == (0, 0, 128)  # half-transparent blue
    assert tuple(bottom[0].style.bgcolor.get_truecolor()) == (0, 0, 0)  # no fourth row: background


def test_the_picture_fits_the_width_and_is_drawn_once_per_width() -> None:
    raster = Raster(100, 50, bytes([10, 20, 30, 255]) * 5000)
    picture = HalfBlockImage(raster, 60, lambda: (0, 0, 0))
    console = Console(width=40, record=True, color_system=None)
    console.print(picture)
    lines = console.export_text().splitlines()
    assert len(lines) == 10 and {len(line) for line in lines} == {40}  # 40x20 pixels, aspect kept
    first = picture.lines(40)
    assert picture.lines(40) is first  # cached for the same width and background
