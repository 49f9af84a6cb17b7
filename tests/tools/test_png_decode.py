"""The pure-Python PNG decoder and the reduction to a cell grid (pi_cli/tools/files/png.py, raster.py).

PNGs are built here with zlib and a byte-by-byte reference filter (png_builder), for every
colour type, both bit depths and every filter type, including bands longer than the decoder's
wavefront band and random data that exercises each branch of Paeth.
"""

from __future__ import annotations

import random
import struct
import zlib

import pytest
from png_builder import build_png, chunk, filter_rows

from pi_cli.tools.files.png import PngError, decode_png, png_header, unfilter
from pi_cli.tools.files.raster import Raster, cell_grid, downscale

ALL_FILTERS = (0, 1, 2, 3, 4)


def _random_bytes(count: int, seed: int) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(count))


@pytest.mark.parametrize("bpp", [1, 2, 3, 4, 6, 8])
@pytest.mark.parametrize("kind", ALL_FILTERS)
def test_unfilter_undoes_each_filter_type(bpp: int, kind: int) -> None:
    width, height = 13, 7
    data = _random_bytes(width * height * bpp, seed=bpp * 10 + kind)
    assert unfilter(filter_rows(data, width, height, bpp, [kind]), width, height, bpp) == data


def test_unfilter_mixed_filters_across_bands() -> None:
    # More rows than one wavefront band (192), so a band starts from the row above it.
    width, height, bpp = 9, 450, 4
    data = _random_bytes(width * height * bpp, seed=7)
    rng = random.Random(3)
    types = [rng.choice(ALL_FILTERS) for _ in range(height)]
    assert unfilter(filter_rows(data, width, height, bpp, types), width, height, bpp) == data


def test_unfilter_smooth_data_with_paeth_ties() -> None:
    # Gradients make a, b and c equal or close, where Paeth's tie rules decide.
    width, height, bpp = 40, 30, 3
    data = bytes((x // 7 + y // 5) % 256 for y in range(height) for x in range(width * bpp))
    assert unfilter(filter_rows(data, width, height, bpp, [4, 3]), width, height, bpp) == data


def test_unfilter_refuses_an_unknown_filter_type() -> None:
    with pytest.raises(PngError, match="filter type 5"):
        unfilter(b"\x05\x00\x00\x00", 1, 1, 3)


def test_rgba_8_bit() -> None:
    pixels = bytes([255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 10, 20, 30, 40])
    image = decode_png(build_png(2, 2, 6, pixels, types=(4, 1)))
    assert (image.width, image.height) == (2, 2)
    assert image.rgba == pixels


def test_rgb_8_bit_is_opaque() -> None:
    pixels = bytes([1, 2, 3, 4, 5, 6])
    image = decode_png(build_png(2, 1, 2, pixels, types=(3,)))
    assert image.rgba == bytes([1, 2, 3, 255, 4, 5, 6, 255])


def test_gray_and_gray_alpha() -> None:
    assert decode_png(build_png(2, 1, 0, bytes([0, 200]), types=(1,))).rgba == bytes([0, 0, 0, 255, 200, 200, 200, 255])
    image = decode_png(build_png(1, 2, 4, bytes([90, 10, 30, 250]), types=(2,)))
    assert image.rgba == bytes([90, 90, 90, 10, 30, 30, 30, 250])


def test_palette_with_alpha_table() -> None:
    palette = bytes([255, 0, 0, 0, 255, 0, 0, 0, 255])
    image = decode_png(build_png(3, 1, 3, bytes([2, 0, 1]), palette=palette, alpha=bytes([128])))
    assert [image.pixel(x, 0) for x in range(3)] == [(0, 0, 255, 255), (255, 0, 0, 128), (0, 255, 0, 255)]


def test_16_bit_keeps_the_high_byte() -> None:
    samples = struct.pack(">6H", 0xFF00, 0x0102, 0x8081, 0x1234, 0xABCD, 0x0001)
    image = decode_png(build_png(2, 1, 2, samples, depth=16, types=(4,)))
    assert image.rgba == bytes([0xFF, 0x01, 0x80, 255, 0x12, 0xAB, 0x00, 255])


def test_16_bit_rgba_with_every_filter() -> None:
    width, height = 5, 5
    samples = _random_bytes(width * height * 8, seed=11)
    image = decode_png(build_png(width, height, 6, samples, depth=16, types=ALL_FILTERS))
    assert image.rgba == samples[0::2]


def test_split_image_data_chunks_are_joined() -> None:
    png = build_png(4, 4, 0, bytes(range(16)), types=(2,))
    at = png.index(b"IDAT") - 4
    (length,) = struct.unpack(">I", png[at : at + 4])
    body = png[at + 8 : at + 8 + length]
    split = png[:at] + chunk(b"IDAT", body[:5]) + chunk(b"IDAT", body[5:]) + png[at + 12 + length :]
    assert decode_png(split).rgba[0::4] == bytes(range(16))


@pytest.mark.parametrize(
    ("png", "message"),
    [
        (b"GIF89a", "no IHDR"),
        (build_png(2, 2, 0, bytes(4), interlace=1), "interlaced"),
        (build_png(2, 2, 0, bytes(1), depth=4), "not supported"),
    ],
)
def test_unsupported_input_raises(png: bytes, message: str) -> None:
    with pytest.raises(PngError, match=message):
        decode_png(png)


def test_truncated_data_raises() -> None:
    png = build_png(8, 8, 2, bytes(192))
    at = png.index(b"IDAT") - 4
    cut = png[:at] + chunk(b"IDAT", zlib.compress(b"\x00" * 10)) + chunk(b"IEND", b"")
    with pytest.raises(PngError, match="shorter"):
        decode_png(cut)


def test_huge_images_are_refused_before_inflating() -> None:
    # A header claiming 100000 x 100000 over a tiny body: refused from IHDR alone.
    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 6, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"") + chunk(b"IEND", b"")
    assert png_header(png)[:2] == (100_000, 100_000)
    with pytest.raises(PngError, match="more than"):
        decode_png(png)
    with pytest.raises(PngError, match="more than"):
        decode_png(build_png(4, 4, 0, bytes(16)), max_pixels=15)


def test_cell_grid_keeps_aspect_and_bounds() -> None:
    assert cell_grid(1024, 768, 60, 30) == (60, 45)  # 45 pixel rows: 23 cell rows
    assert cell_grid(10, 4, 60, 30) == (10, 4)  # never enlarged
    assert cell_grid(100, 1000, 60, 10) == (2, 20)  # height-bound: 2 * 10 pixel rows
    assert cell_grid(0, 5, 60, 30) == (0, 0)


def test_downscale_averages_each_box() -> None:
    # 4x2 -> 2x1: each target pixel is the mean of a 2x2 box, per channel, alpha too.
    rows = [
        (0, 0, 0, 255),
        (100, 0, 0, 255),
        (0, 0, 0, 0),
        (0, 0, 0, 0),
        (0, 100, 0, 255),
        (100, 100, 0, 255),
        (0, 0, 200, 255),
        (0, 0, 200, 255),
    ]
    image = Raster(4, 2, bytes(v for pixel in rows for v in pixel))
    small = downscale(image, 2, 1)
    assert small.pixel(0, 0) == (50, 50, 0, 255)
    assert small.pixel(1, 0) == (0, 0, 100, 127)


def test_downscale_uneven_and_tall_boxes() -> None:
    # 7 columns into 3 and 600 rows into 2 (300-row boxes need 32-bit sums).
    width, height = 7, 600
    image = Raster(width, height, bytes([200, 100, 50, 255]) * (width * height))
    small = downscale(image, 3, 2)
    assert {small.pixel(x, y) for x in range(3) for y in range(2)} == {(200, 100, 50, 255)}
    assert downscale(image, width, height) is image
    with pytest.raises(ValueError):
        downscale(image, 8, 1)
