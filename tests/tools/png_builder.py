"""PNG files built in tests with zlib, with a chosen filter type per row (a reference encoder).

The filters are applied byte by byte exactly as the PNG specification writes them, so the
decoder under test (which undoes them along diagonals, many bytes at once) is checked against
an independent, obviously correct implementation.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_rows(data: bytes, width: int, height: int, bpp: int, types: Sequence[int]) -> bytes:
    """``data`` (rows of ``width * bpp`` bytes) filtered, row r with ``types[r % len(types)]``."""
    out = bytearray()
    previous = bytes(width * bpp)
    for r in range(height):
        row = data[r * width * bpp : (r + 1) * width * bpp]
        kind = types[r % len(types)]
        out.append(kind)
        for i, value in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            predictor = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]
            out.append((value - predictor) & 0xFF)
        previous = row
    return bytes(out)


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def build_png(
    width: int,
    height: int,
    colour: int,
    data: bytes,
    *,
    depth: int = 8,
    types: Sequence[int] = (0,),
    palette: bytes = b"",
    alpha: bytes = b"",
    interlace: int = 0,
) -> bytes:
    """A PNG of ``data`` (unfiltered samples, rows top to bottom)."""
    bpp = CHANNELS[colour] * depth // 8
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    body = chunk(b"IHDR", header)
    if palette:
        body += chunk(b"PLTE", palette)
    if alpha:
        body += chunk(b"tRNS", alpha)
    raw = filter_rows(data, width, height, bpp, types)
    body += chunk(b"IDAT", zlib.compress(raw))
    return b"\x89PNG\r\n\x1a\n" + body + chunk(b"IEND", b"")
