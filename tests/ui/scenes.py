"""Deterministic app states shared by the snapshot tests and ``tools/screenshots.py``.

Each scene builds a real app over a real AgentSession with the faux provider and returns it with
a ``run_before(pilot)`` coroutine that drives it into the state to capture. Home is faked so the
footer shows ``~/project``; the spinner and cursor blink are frozen.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar

from pi_cli.agent.types import AgentToolResult
from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_thinking, faux_tool_call, register_faux_provider

Scene = tuple[Any, Callable[[Any], Awaitable[None]]]
SIZE = (100, 32)


class SlowTool:
    """A tool that prints two lines of output, then waits (until aborted or 10 s pass)."""

    name = "bash"
    label = "bash"
    description = "Run a command"
    execution_mode = None
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {"command": {"type": "string"}}}

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(self, tool_call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        if on_update is not None:
            output = "collected 42 items\n\ntests/test_api.py ....."
            on_update(AgentToolResult(content=[{"type": "text", "text": output}]))
        if signal is not None:
            try:
                await asyncio.wait_for(signal.wait(), timeout=10)
            except TimeoutError:
                pass
        return AgentToolResult(content=[{"type": "text", "text": "aborted"}])


def _prepare(home: Path) -> Path:
    project = home / "project"
    project.mkdir(parents=True, exist_ok=True)
    (home / "agent").mkdir(exist_ok=True)
    os.environ["HOME"] = str(home)
    os.environ["PI_CODING_AGENT_DIR"] = str(home / "agent")
    os.environ["PI_OFFLINE"] = "1"
    return project


def _app(
    home: Path,
    responses: list[Any],
    tools: list[Any] | None = None,
    permissions: str | None = None,
    extend: Callable[[Any], None] | None = None,
) -> tuple[Any, Any]:
    from pi_cli.modes.interactive import make_app
    from pi_cli.session.assembly import SessionParts, build_session

    project = _prepare(home)
    faux = register_faux_provider(models=["claude-sonnet-4-5", "gpt-5"])
    faux.set_responses(responses)
    parts = extend(project) if extend is not None else SessionParts()
    if permissions is not None:
        from pi_cli.permissions.gate import gate_for_session
        from pi_cli.permissions.trust import is_project_trusted

        trusted = is_project_trusted(project)
        parts.permissions = gate_for_session(project, mode=permissions, settings_mode=None, project_trusted=trusted)
    session = build_session(cwd=project, parts=parts, system_prompt="scene", model=faux.model(), tools=tools or [])
    session.models.extra_models = list(faux.models)
    app = make_app(session, keymap={})
    return app, faux


async def _freeze(pilot: Any) -> None:
    app = pilot.app
    app.editor.cursor_blink = False
    app.working.freeze()
    await app.pump.drain()
    await pilot.pause()


async def _wait(pilot: Any, condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("scene did not reach its state")
        await pilot.pause(0.02)


def idle(home: Path) -> Scene:
    app, _ = _app(home, [])

    async def run_before(pilot: Any) -> None:
        await _freeze(pilot)

    return app, run_before


ANSWER = (
    "I'll run the test suite first to see what fails.\n\n"
    "The `api` module has **two** entry points:\n\n- `serve()` starts the server\n- `check()` validates config\n"
)


def streaming_tool(home: Path, queued: bool = False) -> Scene:
    reply = faux_assistant(
        [
            faux_thinking("The user wants tests run."),
            faux_text(ANSWER),
            faux_tool_call("bash", {"command": "pytest -q tests/"}, id="call-1"),
        ]
    )
    app, _ = _app(home, [reply, faux_assistant([faux_text("done")])], [SlowTool()])

    async def run_before(pilot: Any) -> None:
        from pi_cli.modes.interactive.widgets.tool_card import ToolCard

        app.editor.load_text("run the tests and fix what fails")
        await pilot.press("enter")
        await _wait(pilot, lambda: any(c.output for c in app.query(ToolCard)))
        if queued:
            app.session.steer("only the api tests, please")
            app.session.follow_up("then update the changelog")
            app.refresh_queue()
            app.editor.set_text("and keep the old")
        await _freeze(pilot)

    return app, run_before


def queued_messages(home: Path) -> Scene:
    return streaming_tool(home, queued=True)


def light_theme(home: Path) -> Scene:
    """The streaming state under ``theme: light`` (cards, thinking, footer must stay legible)."""
    app, run_before = streaming_tool(home)
    app.theme = "textual-light"
    return app, run_before


FJORD = {  # a custom theme file's content (pi's format): cold blues, warm headings
    "name": "fjord",
    "vars": {"ice": "#88c0d0", "sea": "#5e81ac", "night": "#2e3440", "deep": "#3b4252", "snow": "#eceff4"},
    "colors": {
        "accent": "ice",
        "border": "sea",
        "borderAccent": "ice",
        "text": "snow",
        "muted": "#a3b1c6",
        "success": "#a3be8c",
        "error": "#bf616a",
        "warning": "#ebcb8b",
        "selectedBg": "deep",
        "mdHeading": "#d08770",
        "mdCode": "ice",
        "mdLink": "sea",
        "syntaxKeyword": "#81a1c1",
        "syntaxString": "#a3be8c",
    },
    "export": {"pageBg": "night", "cardBg": "deep"},
}


def custom_theme(home: Path) -> Scene:
    """The streaming state under a custom theme file (``~/.pi/agent/themes/fjord.json``)."""
    from pi_cli.modes.interactive.theming import apply_theme
    from pi_cli.resources.themes import builtin_themes, parse_theme

    app, run_before = streaming_tool(home)
    builtins = builtin_themes()
    apply_theme(app, parse_theme(FJORD, "fjord.json", {True: builtins["dark"], False: builtins["light"]}))
    return app, run_before


def _picture_png(width: int = 48, height: int = 32) -> bytes:
    """A small RGBA PNG: a dusk gradient, a sun, transparent corners (built with zlib)."""
    import struct
    import zlib

    def pixel(x: int, y: int) -> bytes:
        if min(x, width - 1 - x) + min(y, height - 1 - y) < 3:
            return bytes(4)  # transparent corner: the card's background shows
        if (x - 30) ** 2 + (y - 12) ** 2 < 36:
            return bytes([255, 200, 60, 255])
        sky = y * 255 // height
        return bytes([40 + sky // 2, 60 + sky // 3, 160 - sky // 2, 255])

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    raw = b"".join(b"\0" + b"".join(pixel(x, y) for x in range(width)) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def image_read(home: Path) -> Scene:
    """A ``read`` of a PNG: the picture drawn in the tool card with half blocks."""
    from pi_cli.tools import create_all_tools

    project = _prepare(home)
    (project / "sunset.png").write_bytes(_picture_png())
    replies = [
        faux_assistant([faux_tool_call("read", {"path": "sunset.png"}, id="call-1")]),
        faux_assistant([faux_text("A sun low over a blue gradient.")]),
    ]
    app, _ = _app(home, replies, [create_all_tools(project)["read"]])

    async def run_before(pilot: Any) -> None:
        app.editor.load_text("what is in sunset.png?")
        await pilot.press("enter")
        await _wait(pilot, lambda: not app.running and len(app.session.messages) >= 4)
        await _freeze(pilot)

    return app, run_before


def model_picker(home: Path) -> Scene:
    app, _ = _app(home, [])

    async def run_before(pilot: Any) -> None:
        await pilot.press("ctrl+l")
        await pilot.pause()
        await _freeze(pilot)

    return app, run_before


def error(home: Path) -> Scene:
    failed = faux_assistant(
        [faux_text("Let me check")], stop_reason="error", error_message="429 Too Many Requests: rate limit exceeded"
    )
    app, _ = _app(home, [failed])
    app.session.set_auto_retry_enabled(False)

    async def run_before(pilot: Any) -> None:
        app.editor.load_text("summarise the README")
        await pilot.press("enter")
        await _wait(pilot, lambda: not app.running)
        await _freeze(pilot)

    return app, run_before


def approval(home: Path) -> Scene:
    """``--permissions ask``: the dialog before a bash command runs."""
    reply = faux_assistant(
        [
            faux_text("The build directory is stale; I'll clear it and rebuild."),
            faux_tool_call("bash", {"command": "rm -rf build/ && make -j4"}, id="call-1"),
        ]
    )
    app, _ = _app(home, [reply, faux_assistant([faux_text("done")])], [SlowTool()], permissions="ask")

    async def run_before(pilot: Any) -> None:
        from pi_cli.modes.interactive.screens.approval import ApprovalScreen

        app.editor.load_text("rebuild from scratch")
        await pilot.press("enter")
        await _wait(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await _freeze(pilot)

    return app, run_before


def _plan_extensions(project: Path) -> Any:
    """The stats example plus a plan widget, registered in process (no file paths in the header)."""
    from pi_cli.extensions import ExtensionRunner
    from pi_cli.extensions.api import ExtensionAPI
    from pi_cli.extensions.examples import stats
    from pi_cli.session.assembly import SessionParts

    runner = ExtensionRunner(str(project))
    stats.register(ExtensionAPI(runner, "example:stats"))

    def plan(pi: Any) -> None:
        def show(event: dict[str, Any], ctx: Any) -> None:
            ctx.ui.set_widget("plan", ["Plan (1/3)", "  ✓ read the failing test", "  → fix serve() config check"])
            ctx.ui.set_status("mode", "plan mode")

        pi.on("session_start", show)

    plan(ExtensionAPI(runner, "plan.py"))
    return SessionParts(extensions=runner)


def extensions(home: Path) -> Scene:
    """Extension status line under the footer and a widget above the editor, after one answer."""
    app, _ = _app(home, [faux_assistant([faux_text("The config check is in `check()`.")])], extend=_plan_extensions)

    async def run_before(pilot: Any) -> None:
        app.editor.load_text("where is the config check?")
        await pilot.press("enter")
        await _wait(pilot, lambda: not app.running and "stats" in app.session.extensions.ui.statuses)
        await _wait(pilot, lambda: app.extension_ui.status.text.startswith("plan mode Σ"))
        await _freeze(pilot)

    return app, run_before


def _question_extension(project: Path) -> Any:
    """pi's ``question`` example, registered in process."""
    from pi_cli.extensions import ExtensionRunner
    from pi_cli.extensions.api import ExtensionAPI
    from pi_cli.extensions.examples.components import question
    from pi_cli.session.assembly import SessionParts

    runner = ExtensionRunner(str(project))
    question.register(ExtensionAPI(runner, "example:question"))
    return SessionParts(extensions=runner)


def custom_component(home: Path) -> Scene:
    """An extension's ``ctx.ui.custom`` component (the question example) in the editor's place."""
    ask = {
        "question": "Which database should the tests use?",
        "options": [{"label": "SQLite", "description": "in memory, fastest"}, {"label": "Postgres in Docker"}],
    }
    reply = faux_assistant([faux_text("Before I write the fixtures:"), faux_tool_call("question", ask, id="q-1")])
    app, _ = _app(home, [reply, faux_assistant([faux_text("ok")])], extend=_question_extension)

    async def run_before(pilot: Any) -> None:
        from pi_cli.modes.interactive.extension_ui.custom import ComponentSheet

        await _wait(pilot, lambda: app.session.extensions.started)
        app.editor.load_text("set up test fixtures")
        await pilot.press("enter")
        await _wait(pilot, lambda: isinstance(app.screen, ComponentSheet))
        await pilot.press("down")
        await _freeze(pilot)

    return app, run_before


SCENES: dict[str, Callable[[Path], Scene]] = {
    "custom_component": custom_component,
    "extensions": extensions,
    "approval": approval,
    "idle": idle,
    "streaming_tool": streaming_tool,
    "queued_messages": queued_messages,
    "light_theme": light_theme,
    "custom_theme": custom_theme,
    "model_picker": model_picker,
    "error": error,
    "image_read": image_read,
}
