"""Terminal safety: escape sequences in model text and tool output never reach a terminal.

A hostile corpus (cursor moves, OSC 52 clipboard writes, title changes, OSC 8 ``file://`` links,
C1 controls, DCS/APC strings) goes through each sanitizer, the inline renderer, print mode on a
TTY and the TUI. Print mode writes the model's text unchanged when stdout is a pipe or a file (a
script may want the exact bytes) and neutralised when it is a terminal.
"""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_cli.tools.sanitize import strip_control_sequences

from .faults import FakeLLMServer, make_env, server
from .hostile import CORPUS, PIECES, VISIBLE, assert_inert

__all__ = ["server"]

# One sanitiser is left (modes/safe_text.py and modes/interactive/sanitize.py were folded into it);
# the table stays so that a second one, if it ever appears, is held to the same corpus.
SANITIZERS: dict[str, Callable[[str], str]] = {
    "tools.sanitize.strip_control_sequences": strip_control_sequences,
}


@pytest.mark.parametrize("name", list(SANITIZERS))
@pytest.mark.parametrize("piece", list(PIECES))
def test_each_sanitizer_neutralises_each_piece(name: str, piece: str) -> None:
    out = SANITIZERS[name](f"A{PIECES[piece]}Z")
    assert_inert(out)
    assert (out.startswith("A") and out.endswith("Z")) or piece == "unterminated"


@pytest.mark.parametrize("name", list(SANITIZERS))
def test_each_sanitizer_keeps_the_visible_text(name: str) -> None:
    out = SANITIZERS[name](CORPUS)
    assert_inert(out)
    for text in VISIBLE:
        assert text in out, (text, out)
    for payload in ("pwned", "owned", "/etc/passwd", "cm0gLXJmIH4K"):  # OSC bodies go with their sequence
        assert payload not in out, (payload, out)


def test_inline_renderer_emits_only_colour_codes() -> None:
    from rich.console import Console

    from pi_cli.modes.inline import render

    blocks = [
        render.user_block(CORPUS),
        render.assistant_text_block(CORPUS),
        render.thinking_block(CORPUS),
        render.tool_block("bash", {"command": CORPUS}, {"content": [{"type": "text", "text": CORPUS}]}, False),
        render.error_block(CORPUS),
        render.bash_run_block(CORPUS, CORPUS, 1, False),
    ]
    for block in blocks:
        buffer = io.StringIO()
        Console(file=buffer, force_terminal=True, color_system="truecolor", width=100).print(block)
        assert_inert(buffer.getvalue(), allow_sgr=True)


# --- print mode -------------------------------------------------------------------------------


def _read_pty(fd: int, proc: subprocess.Popen[bytes], timeout: float = 20) -> bytes:
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    return out


def test_print_mode_neutralises_model_text_on_a_terminal(tmp_path: Path, server: FakeLLMServer) -> None:
    server.add_turns([{"text": CORPUS}, {"status": 500, "body": {"error": {"message": "bad " + PIECES["osc52"]}}}])
    env = make_env(tmp_path, server)
    for expect_error in (False, True):
        primary, secondary = pty.openpty()
        proc = subprocess.Popen(
            env.args("-p", "hi"), stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary, cwd=env.cwd, env=env.env
        )
        os.close(secondary)
        try:
            out = _read_pty(primary, proc).decode("utf-8", errors="replace")
            code = proc.wait(10)
        finally:
            os.close(primary)
        assert code == (1 if expect_error else 0), out
        assert_inert(out.replace("\r\n", "\n"), allow_sgr=True)
        assert ("bad" in out) if expect_error else all(t.split("\t")[0] in out for t in VISIBLE)


def test_print_mode_keeps_exact_bytes_when_piped(tmp_path: Path, server: FakeLLMServer) -> None:
    server.add_turns([{"text": CORPUS}])
    result = make_env(tmp_path, server).run("-p", "hi")
    assert result.returncode == 0 and result.stdout == CORPUS + "\n"


# --- TUI ----------------------------------------------------------------------------------------


def _tui_session(cwd: Path, faux: Any) -> Any:
    from pi_cli.agent.agent import Agent
    from pi_cli.session.agent_session import AgentSession
    from pi_cli.store.entry_messages import convert_to_llm
    from pi_cli.tools import create_all_tools

    agent = Agent(
        system_prompt="test",
        model=faux.model(),
        tools=[create_all_tools(str(cwd))["bash"]],
        convert_to_llm=convert_to_llm,
    )
    return AgentSession(agent=agent, cwd=cwd)


async def test_tui_shows_hostile_text_and_tool_output_inert(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call, register_faux_provider
    from pi_cli.modes.interactive import make_app
    from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown
    from pi_cli.modes.interactive.widgets.tool_card import ToolCard

    work = tmp_path / "work"
    work.mkdir()
    (work / "evil.txt").write_text(CORPUS)
    faux = register_faux_provider(models=["faux-1"])
    try:
        faux.set_responses(
            [
                faux_assistant([faux_tool_call("bash", {"command": "cat evil.txt"})]),
                faux_assistant([faux_text(CORPUS)]),
            ]
        )
        app = make_app(_tui_session(work, faux), keymap={})
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press(*"hi", "enter")
            deadline = time.monotonic() + 30
            while app.running or not list(app.query(StreamingMarkdown)):
                assert time.monotonic() < deadline
                await pilot.pause(0.02)
            await app.pump.drain()
            await pilot.pause()
            for card in app.query(ToolCard):
                assert_inert(str(card.output))
                assert "before" in str(card.output)
            for view in app.query(StreamingMarkdown):
                assert_inert(view.source)
            screen = app.export_screenshot()
            assert "before" in screen and "after" in screen
            assert "\x1b" not in screen and "&#27;" not in screen and "\x07" not in screen
    finally:
        faux.unregister()


def test_json_lines_escape_control_characters(tmp_path: Path, server: FakeLLMServer) -> None:
    # json/rpc output is a protocol for programs: C0 controls and ESC travel as \\u escapes, so no
    # sequence can act on a terminal that shows it. DEL and C1 stay raw, as JSON.stringify leaves them
    # (pi's byte-exact format); UTF-8 terminals do not act on C1 code points.
    server.add_turns([{"text": CORPUS}])
    result = make_env(tmp_path, server).run("--mode", "json", "hi")
    assert result.returncode == 0
    assert_inert(result.stdout, c0_only=True)
    end = [json.loads(line) for line in result.stdout.splitlines()][-2]  # before agent_settled
    assert end["type"] == "agent_end" and end["messages"][-1]["content"][0]["text"] == CORPUS
