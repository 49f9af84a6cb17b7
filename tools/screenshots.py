"""Render the TUI's main states from the real app to SVG and PNG in ``screenshots/``.

The states are the snapshot-test scenes (``tests/ui/scenes.py``): idle, streaming with a tool
card, queued messages, model picker, error. PNGs come from cairosvg when it is installed
(``pip install cairosvg``), else ``rsvg-convert`` or ImageMagick ``convert``. The SVGs ask for
"Fira Code"; it is swapped for an installed monospace face first so columns line up.

Run: ``python tools/screenshots.py [--out screenshots] [--only NAME ...]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "ui"))
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

MONO = "DejaVu Sans Mono"
SYMBOLS = "DejaVu Sans"  # has the braille block (the working spinner) that the mono face lacks
BRAILLE = re.compile("([\u2800-\u28ff]+)")
PNG_WIDTH = 1400


async def capture(name: str, home: Path) -> str:
    import scenes

    app, run_before = scenes.SCENES[name](home)
    async with app.run_test(size=scenes.SIZE) as pilot:
        await run_before(pilot)
        svg: str = app.export_screenshot(title=f"pi — {name.replace('_', ' ')}")
        await app.session.abort() if app.running else None
    return svg


def with_symbol_font(svg: str) -> str:
    """Wrap braille runs in a ``tspan`` set in a face that has them.

    SVG renderers draw each text run in one font without per-glyph fallback, so the spinner
    came out as a box; the terminal keeps its braille, only the picture needs this."""
    return BRAILLE.sub(lambda m: f'<tspan style="font-family: {SYMBOLS}">{m.group(1)}</tspan>', svg)


def to_png(svg_path: Path, png_path: Path) -> str | None:
    """Convert; returns the converter used, or None if none is available."""
    text = with_symbol_font(svg_path.read_text(encoding="utf-8").replace("Fira Code", MONO))
    try:
        import cairosvg  # type: ignore[import-not-found, import-untyped, unused-ignore]

        cairosvg.svg2png(bytestring=text.encode(), write_to=str(png_path), output_width=PNG_WIDTH)
        return "cairosvg"
    except ImportError:
        pass
    with tempfile.NamedTemporaryFile("w", suffix=".svg", delete=False, encoding="utf-8") as handle:
        handle.write(text)
        temp = handle.name
    try:
        if shutil.which("rsvg-convert"):
            subprocess.run(["rsvg-convert", "-w", str(PNG_WIDTH), "-o", str(png_path), temp], check=True)
            return "rsvg-convert"
        if shutil.which("convert"):
            subprocess.run(["convert", "-density", "150", temp, str(png_path)], check=True)
            return "convert"
    finally:
        os.unlink(temp)
    return None


def main(argv: list[str] | None = None) -> int:
    import scenes

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", default=str(ROOT / "screenshots"))
    parser.add_argument("--only", nargs="*", choices=sorted(scenes.SCENES))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.only or list(scenes.SCENES):
        with tempfile.TemporaryDirectory() as tmp:
            saved = {k: os.environ.get(k) for k in ("HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE")}
            try:
                svg = asyncio.run(capture(name, Path(tmp)))
            finally:
                for key, value in saved.items():
                    if value is None:
                        os.environ.pop(key, None)
                    else:
                        os.environ[key] = value
        svg_path = out / f"{name}.svg"
        svg_path.write_text(svg, encoding="utf-8")
        tool = to_png(svg_path, out / f"{name}.png")
        print(f"{svg_path}  png: {tool or 'skipped (install cairosvg or rsvg-convert)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
