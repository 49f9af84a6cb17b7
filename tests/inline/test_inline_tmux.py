"""A person's view of inline mode: run ``pi --inline`` in tmux, type, read the pane.

Skipped where tmux is not installed. Uses the offline demo model, so no key or network is needed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

KEY_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY")


def _pane(name: str) -> str:
    return subprocess.run(
        ["tmux", "capture-pane", "-p", "-J", "-S", "-200", "-t", name], capture_output=True, text=True, check=False
    ).stdout


def _wait_for(name: str, needle: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = _pane(name)
        if needle in text:
            return text
        time.sleep(0.2)
    raise AssertionError(f"{needle!r} never appeared; pane was:\n{text}")


@pytest.mark.parametrize(("width", "term"), [(100, "xterm-256color"), (40, "xterm-256color"), (80, "dumb")])
def test_type_a_prompt_and_read_the_answer(tmp_path: Path, width: int, term: str) -> None:
    name = f"pi-inline-{uuid.uuid4().hex[:8]}"
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hi\n")
    exit_file = tmp_path / "exit"
    env_unset = " ".join(f"-u {var}" for var in KEY_VARS)
    command = (
        f"cd {work} && env {env_unset} TERM={term} PI_CODING_AGENT_DIR={tmp_path / 'agent'} PI_OFFLINE=1 "
        f"{sys.executable} -m pi_cli --inline; echo $? > {exit_file}"
    )
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", str(width), "-y", "30", command], check=True)
    try:
        _wait_for(name, "›")
        subprocess.run(["tmux", "send-keys", "-t", name, "list the files here", "Enter"], check=True)
        pane = _wait_for(name, "notes.txt")
        assert "offline demo" in pane
        subprocess.run(["tmux", "send-keys", "-t", name, "C-d"], check=True)
        deadline = time.monotonic() + 10
        while not exit_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert exit_file.read_text().strip() == "0"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True, check=False)


async def test_not_a_terminal_points_to_print_mode(capsys: pytest.CaptureFixture[str]) -> None:
    from pi_cli.modes.inline import run_inline

    # Under pytest stdout is captured, so it is not a terminal: inline mode must refuse cleanly.
    code = await run_inline(session=None, initial_messages=[])
    assert code == 1
    assert "use -p" in capsys.readouterr().err
