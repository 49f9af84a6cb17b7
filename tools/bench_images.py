"""``python tools/bench_images.py``: decode + draw of a 1024x768 RGBA PNG in a TUI tool card.

What a ``read`` of a screenshot costs the TUI once (it is cached after): base64 decode, the pure
Python PNG decoder (pi_cli/tools/files/png.py), the shrink to a 60-column cell grid, and the half
block lines of the card. Two images: every row Paeth-filtered (the slowest filter, what
photos get) and a screenshot-like mix (mostly Up, a quarter Paeth). Their filtered bytes are
seeded noise — the decoder's cost depends on the filters and the size, not on the picture — so no
image file is needed. Median of seven runs each (and the best run); the budget is 100 ms.
"""

from __future__ import annotations

import base64
import random
import statistics
import struct
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_cli.modes.interactive.widgets.tool_image import HalfBlockImage, clear_cache, decoded  # noqa: E402

NAME = "images"
BUDGET = "decode + draw of a 1024x768 RGBA PNG in a card <= 100 ms (median)"
WIDTH, HEIGHT = 1024, 768
RUNS = 7
LIMIT_MS = 100.0
# Filter types per row of a screenshot as Chromium writes it (tally of screenshots/*.png).
SCREENSHOT_MIX = [2] * 70 + [4] * 25 + [1] * 3 + [3, 0]


def _png(types: list[int]) -> bytes:
    rng = random.Random(1)
    row = WIDTH * 4
    raw = b"".join(bytes([types[r % len(types)]]) + rng.randbytes(row) for r in range(HEIGHT))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def measure(types: list[int]) -> tuple[float, float, float]:
    """Median decode ms, median draw ms and the best total over RUNS, the cache cleared before
    each run (the best shows the cost without other processes' load on a shared machine)."""
    data = base64.b64encode(_png(types)).decode("ascii")
    decode_ms: list[float] = []
    draw_ms: list[float] = []
    for _ in range(RUNS):
        clear_cache()
        start = time.perf_counter()
        picture = decoded(data, "image/png", 60)
        middle = time.perf_counter()
        assert picture is not None
        HalfBlockImage(picture, 60, lambda: (30, 30, 30)).lines(120)
        end = time.perf_counter()
        decode_ms.append((middle - start) * 1000)
        draw_ms.append((end - middle) * 1000)
    best = min(d + r for d, r in zip(decode_ms, draw_ms, strict=True))
    return statistics.median(decode_ms), statistics.median(draw_ms), best


def run() -> list[tuple[str, str, str, bool]]:
    rows = []
    for label, types in (("every row Paeth", [4]), ("screenshot mix", SCREENSHOT_MIX)):
        decode, draw, best = measure(types)
        total = decode + draw
        figure = f"{total:.1f} ms (decode {decode:.1f} + draw {draw:.1f}; best {best:.1f})"
        rows.append((f"1024x768 RGBA, {label}", figure, f"<= {LIMIT_MS:.0f} ms", total <= LIMIT_MS))
    return rows


if __name__ == "__main__":
    for name, value, budget, ok in run():
        print(f"{name:<36} {value:<40} {budget} {'ok' if ok else 'OVER'}")
