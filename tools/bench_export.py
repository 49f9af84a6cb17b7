"""Time the HTML export of a big session, and (with Chromium) opening the page.

The session is the TUI resume bench's (``tools/tui_workloads.py``: 20,000 entries, ~57 MB); the
export is the one ``/export`` writes (all branches, the viewer, the dark theme's colours).
Prints the median of ``--repeat`` runs: export seconds, page size, and Chromium's time to load
the page, run the viewer and paint the first screen (``--screenshot``, a whole process, beside a
blank page's, so Chromium's own start can be taken off).

Run: ``python tools/bench_export.py [--entries 20000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from tui_workloads import write_session  # noqa: E402

from pi_cli.resources.themes import builtin_themes  # noqa: E402
from pi_cli.store.export_html import export_file_to_html  # noqa: E402


def _shoot(browser: str, page: Path) -> None:
    """Chromium loads ``page``, runs its scripts and paints the first screen."""
    shot = page.with_suffix(".png")
    argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}", "--window-size=1200,800"]
    subprocess.run([*argv, page.as_uri()], capture_output=True, check=True, timeout=300)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    theme = builtin_themes()["dark"]
    colors = {**theme.colors, **theme.export}
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    with tempfile.TemporaryDirectory() as folder:
        source = write_session(Path(folder), "/bench/project", args.entries)
        size_mb = source.stat().st_size / 2**20
        exports: list[float] = []
        opens: list[float] = []
        baselines: list[float] = []
        target = Path(folder) / "page.html"
        for _ in range(args.repeat):
            start = time.perf_counter()
            export_file_to_html(source, target, theme=colors)
            exports.append(time.perf_counter() - start)
            if browser is not None:
                start = time.perf_counter()
                _shoot(browser, target)
                opens.append(time.perf_counter() - start)
                blank = Path(folder) / "blank.html"
                blank.write_text("<!DOCTYPE html><title>blank</title>")
                start = time.perf_counter()
                _shoot(browser, blank)
                baselines.append(time.perf_counter() - start)
        page_mb = target.stat().st_size / 2**20
    print(f"session: {args.entries} entries, {size_mb:.1f} MB; page {page_mb:.1f} MB")
    print(f"export (median of {args.repeat}): {statistics.median(exports):.2f} s  (goal <= 3 s)")
    if opens:
        shown, blank = statistics.median(opens), statistics.median(baselines)
        print(
            f"Chromium screenshot of the page, whole process (median): {shown:.2f} s; of a blank page {blank:.2f} s;"
            f" the page's own share {shown - blank:.2f} s  (goal <= 2 s)"
        )
    else:
        print("Chromium: not installed, page load not measured")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
