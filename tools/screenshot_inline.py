"""Render inline mode (``pi --inline``) as a person sees it, to ``screenshots/inline.{svg,png}``.

Inline mode writes into the terminal's own scrollback, so the only honest picture is a real
terminal: this runs the real ``pi --inline`` in tmux on the offline demo model inside a throwaway
project, types a prompt and a ``!`` command, captures the pane with its colours and turns the ANSI
text into SVG with rich (PNG through the converter ``tools/screenshots.py`` uses).

Run: ``python tools/screenshot_inline.py [--out screenshots]``. Needs tmux.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

WIDTH, HEIGHT = 100, 34
KEY_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def _wait_for(session: str, needle: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if needle in _tmux("capture-pane", "-p", "-t", session):
            return
        time.sleep(0.2)
    raise SystemExit(f"screenshot_inline: {needle!r} never appeared on screen")


def capture_ansi() -> str:
    """Run the scripted session in tmux and return the visible pane with its escape codes."""
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / "src").mkdir(parents=True)
        (project / "README.md").write_text("# demo project\n")
        (project / "src" / "app.py").write_text("print('hello')\n")
        name = f"pi-shot-{uuid.uuid4().hex[:6]}"
        unset = " ".join(f"-u {var}" for var in KEY_VARS)
        command = (
            f"cd {project} && env {unset} HOME={tmp} PI_CODING_AGENT_DIR={tmp}/agent PI_OFFLINE=1 "
            f"TERM=xterm-256color {sys.executable} -m pi_cli --inline"
        )
        _tmux("new-session", "-d", "-s", name, "-x", str(WIDTH), "-y", str(HEIGHT), command)
        try:
            _wait_for(name, "›")
            _tmux("send-keys", "-t", name, "what files are in this project?", "Enter")
            _wait_for(name, "A real model would now")
            _tmux("send-keys", "-t", name, "!cat src/app.py", "Enter")
            _wait_for(name, "print('hello')")
            time.sleep(0.5)
            return _tmux("capture-pane", "-e", "-p", "-t", name)
        finally:
            subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True, check=False)


def ansi_to_svg(ansi: str, title: str) -> str:
    from rich.console import Console
    from rich.text import Text

    console = Console(record=True, width=WIDTH + 2, file=open(os.devnull, "w"), force_terminal=True)  # noqa: SIM115
    console.print(Text.from_ansi(ansi.rstrip("\n")), soft_wrap=True)
    return console.export_svg(title=title)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", default=str(ROOT / "screenshots"))
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("screenshot_inline: tmux is not installed", file=sys.stderr)
        return 1
    from screenshots import to_png

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    svg_path = out / "inline.svg"
    svg_path.write_text(ansi_to_svg(capture_ansi(), "pi --inline"), encoding="utf-8")
    tool = to_png(svg_path, out / "inline.png")
    print(f"{svg_path}  png: {tool or 'skipped (install cairosvg or rsvg-convert)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
