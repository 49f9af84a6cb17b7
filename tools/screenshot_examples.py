"""Screenshots of the shipped extension examples as a person sees them: the real ``pi`` TUI in tmux.

Each scene starts ``pi -e example:NAME`` in a throwaway project against the fake LLM server (so the
model's tool calls are scripted), types what a person would type, waits for what they would wait
for, captures the pane with its colours and turns the ANSI text into SVG with rich (PNG through the
converter ``tools/screenshots.py`` uses) under ``screenshots/example_<scene>.{svg,png}``.

Run: ``python tools/screenshot_examples.py [--only todo ...] [--out screenshots]``. Needs tmux.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from fake_llm_server import FakeLLMServer  # noqa: E402
from screenshot_inline import ansi_to_svg  # noqa: E402
from tui_terminal import Pane  # noqa: E402

WIDTH, HEIGHT = 100, 34


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


@dataclass
class Scene:
    """``example`` loaded with ``-e``; the model's ``turns``; ``steps`` type and wait in the pane."""

    example: str
    turns: list[dict[str, Any]]
    steps: Callable[[Pane], None]
    title: str
    files: dict[str, str] = field(default_factory=dict)


def prompt(text: str, wait: str) -> Callable[[Pane], None]:
    def steps(pane: Pane) -> None:
        pane.type(text)
        time.sleep(0.2)
        pane.key("Enter")
        pane.wait_text(wait, timeout=30)

    return steps


SCENES: dict[str, Scene] = {
    "todo": Scene(
        "todo",
        [
            call("todo", action="add", text="port the snake example"),
            call("todo", action="add", text="write the tmux screenshots"),
            call("todo", action="toggle", id=1),
            call("todo", action="list"),
            {"text": "Two todos: the snake port is done, the screenshots are next."},
        ],
        prompt("plan the work as todos", "screenshots are next"),
        "pi -e example:todo — tool renderers",
    ),
    "question": Scene(
        "question",
        [
            call(
                "question",
                question="Which database should the new service use?",
                options=[
                    {"label": "PostgreSQL", "description": "what the other services run"},
                    {"label": "SQLite", "description": "one file, no server"},
                ],
            ),
            {"text": "Going with PostgreSQL."},
        ],
        prompt("pick a database for me", "Which database should the new service use?"),
        "pi -e example:question — a custom component as a tool's dialog",
    ),
}


def capture(scene: Scene, python: str) -> str:
    """Run ``scene`` in tmux and return the visible pane with its escape codes."""
    server = FakeLLMServer().start_in_thread()
    try:
        server.add_turns(scene.turns)
        with tempfile.TemporaryDirectory() as tmp:
            home, agent, project = Path(tmp) / "home", Path(tmp) / "agent", Path(tmp) / "project"
            for folder in (home, agent, project):
                folder.mkdir()
            for name, text in scene.files.items():
                (project / name).write_text(text)
            models = {"providers": {"fake": {"baseUrl": server.openai_base_url, "api": "openai-completions",
                                             "apiKey": "sk-fake", "models": [{"id": "fake-model"}]}}}  # fmt: skip
            (agent / "models.json").write_text(json.dumps(models))
            env = {"TERM": "xterm-256color", "HOME": str(home), "PI_CODING_AGENT_DIR": str(agent), "PI_OFFLINE": "1",
                   "PATH": str(Path(python).parent) + ":/usr/bin:/bin", "LANG": "C.UTF-8"}  # fmt: skip
            argv = [
                python,
                "-m",
                "pi_cli",
                "--model",
                "fake/fake-model",
                "--no-session",
                "-e",
                f"example:{scene.example}",
            ]
            with Pane(argv, env, project, width=WIDTH, height=HEIGHT) as pane:
                pane.wait_text("fake-model", timeout=60)
                time.sleep(0.3)
                scene.steps(pane)
                time.sleep(0.5)  # the last frame settles
                return pane.screen_ansi()
    finally:
        server.stop_thread()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", nargs="*", choices=sorted(SCENES))
    parser.add_argument("--out", default=str(ROOT / "screenshots"))
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("screenshot_examples: tmux is not installed", file=sys.stderr)
        return 1
    from screenshots import to_png

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.only or list(SCENES):
        scene = SCENES[name]
        svg_path = out / f"example_{name}.svg"
        svg_path.write_text(ansi_to_svg(capture(scene, sys.executable), scene.title), encoding="utf-8")
        tool = to_png(svg_path, out / f"example_{name}.png")
        print(f"{svg_path}  png: {tool or 'skipped (install cairosvg or rsvg-convert)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
