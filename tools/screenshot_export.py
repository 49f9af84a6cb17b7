"""Screenshot an exported session page in headless Chromium: ``screenshots/export_viewer.png``.

A small two-branch session with a tool call and thinking is exported in the built-in dark theme
(or ``--theme light``) and shot at 1200×800. Needs Chromium (Debian: ``apt-get install chromium``).

Run: ``python tools/screenshot_export.py [--out screenshots] [--theme dark|light]``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pi_cli.resources.themes import builtin_themes  # noqa: E402
from pi_cli.store.export_html import render_html  # noqa: E402
from pi_cli.store.manager import SessionManager  # noqa: E402


def _text(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


def _message(role: str, **fields: object) -> dict[str, object]:
    base: dict[str, object] = {"role": role, "timestamp": 1}
    if role == "assistant":
        base |= {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                 "stopReason": "stop", "usage": {}}  # fmt: skip
    return base | fields


def sample_session(folder: Path) -> SessionManager:
    sm = SessionManager.create("/home/me/project", folder, fsync=False)
    sm.append_session_info("Fix the failing date test")
    sm.append_message(_message("user", content=[{"type": "text", "text": "The date test fails. Find out why."}]))
    sm.append_message(_message("assistant", content=[
        {"type": "thinking", "thinking": "Run the test first to see the failure."},
        {"type": "text", "text": "Running the test suite for dates."},
        {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "pytest tests/test_dates.py -q"}},
    ], stopReason="toolUse"))  # fmt: skip
    sm.append_message(_message("toolResult", toolCallId="c1", toolName="bash", isError=True, content=[
        {"type": "text", "text": "F\nE   assert parse('2026-02-30') is None\n1 failed in 0.04s"}]))  # fmt: skip
    why = "`parse` accepts 30 February: it never checks the day against the month."
    fork = sm.append_message(_message("assistant", content=_text(why)))
    sm.append_message(_message("user", content=[{"type": "text", "text": "Fix it with calendar.monthrange."}]))
    sm.append_message(_message("assistant", content=[{"type": "text", "text": "Done: days are checked."}]))
    sm.branch(fork)
    sm.append_message(_message("user", content=[{"type": "text", "text": "Fix it with datetime instead."}]))
    done = "Done: `parse` now builds a `datetime.date`, which refuses 30 February."
    sm.append_message(_message("assistant", content=_text(done)))
    return sm


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "screenshots"))
    parser.add_argument("--theme", default="dark", choices=["dark", "light"])
    args = parser.parse_args(argv)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("no Chromium installed (apt-get install chromium)", file=sys.stderr)
        return 1
    theme = builtin_themes()[args.theme]
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "page.html"
        page.write_text(render_html(sample_session(Path(folder)), theme={**theme.colors, **theme.export}))
        target = Path(args.out) / f"export_viewer{'' if args.theme == 'dark' else '_light'}.png"
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--screenshot={target}", "--window-size=1200,800", page.as_uri()],
                       check=True, capture_output=True, timeout=120)  # fmt: skip
    print(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
