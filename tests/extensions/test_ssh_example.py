"""pi's ``ssh`` example, ported (``pi -e example:ssh --ssh host:/path``): the tools and the user's
``!`` commands run through the tools' pluggable operations on the "remote" side. A stand-in
``ssh`` on PATH runs the command locally, so the remote folder is a temp folder the local
working directory does not contain."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from cli.pi_harness import PiEnv

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.extensions import ExtensionAPI, ExtensionRunner

from .test_print_e2e import tool_result_text

FAKE_SSH = """#!/bin/sh
echo "$1" >> "$SSH_LOG"
exec /bin/sh -c "$2"
"""


def fake_ssh(pi: PiEnv) -> tuple[Path, Path]:
    """A remote folder with a file, and the log of hosts the stand-in ``ssh`` was asked for."""
    bin_dir = pi.root / "bin"
    bin_dir.mkdir()
    ssh = bin_dir / "ssh"
    ssh.write_text(FAKE_SSH)
    ssh.chmod(ssh.stat().st_mode | stat.S_IEXEC)
    remote = pi.root / "remote"
    remote.mkdir()
    (remote / "notes.txt").write_text("remote notes\n")
    log = pi.root / "ssh.log"
    pi.env.update(PATH=f"{bin_dir}{os.pathsep}{pi.env['PATH']}", SSH_LOG=str(log))
    return remote, log


def test_tools_read_write_and_run_on_the_remote_side(pi: PiEnv) -> None:
    remote, log = fake_ssh(pi)
    assert pi.server is not None
    pi.server.add_turns(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "c1"}]},
            {"tool_calls": [{"name": "write", "arguments": {"path": "out/new.txt", "content": "made"}, "id": "c2"}]},
            {"tool_calls": [{"name": "bash", "arguments": {"command": "pwd; ls out"}, "id": "c3"}]},
            {"text": "done"},
        ]
    )
    done = pi.run("-p", "-e", "example:ssh", "--ssh", f"box:{remote}", "look around")
    assert done.returncode == 0, done.stderr
    bodies = pi.bodies()
    assert f"Current working directory: {remote} (via SSH: box)" in bodies[0]["messages"][0]["content"]
    tools = [m for m in bodies[-1]["messages"] if m["role"] == "tool"]
    texts = [t["content"] if isinstance(t["content"], str) else t["content"][0]["text"] for t in tools]
    assert texts[0] == "remote notes\n"
    assert (remote / "out" / "new.txt").read_text() == "made" and not (pi.cwd / "out").exists()
    assert texts[2].splitlines() == [str(remote), "new.txt"]
    assert set(log.read_text().split()) == {"box"}


def test_without_the_flag_everything_stays_local(pi: PiEnv) -> None:
    _remote, log = fake_ssh(pi)
    (pi.cwd / "notes.txt").write_text("local notes\n")
    assert pi.server is not None
    pi.server.add_turns([{"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "c1"}]}])
    pi.server.add_turns([{"text": "done"}])
    done = pi.run("-p", "-e", "example:ssh", "look")
    assert done.returncode == 0, done.stderr
    assert tool_result_text(pi) == "local notes\n" and not log.exists()


async def test_user_bash_runs_through_an_extensions_operations(faux: Any, tmp_path: Path) -> None:
    """pi's ``user_bash`` answer ``{"operations": ...}``: the user's ``!`` command runs on that
    backend and is recorded like a local one; a backend that fails is a failed command."""
    from pi_cli.session.assembly import SessionParts, build_session

    runs: list[tuple[str, str]] = []

    async def exec(command: str, cwd: str, *, on_data: Any, **_: Any) -> dict[str, int]:
        runs.append((command, cwd))
        if command == "boom":
            raise ConnectionError("remote host went away")
        on_data("from the backend\n")
        return {"exitCode": 0}

    runner = ExtensionRunner(str(tmp_path))
    ExtensionAPI(runner, "remote.py").on("user_bash", lambda event, ctx: {"operations": {"exec": exec}})
    session = build_session(cwd=tmp_path, parts=SessionParts(extensions=runner), system_prompt="t", model=faux.model())
    chunks: list[str] = []
    result = await session.run_bash("ls", on_chunk=chunks.append)
    assert result == {"output": "from the backend\n", "exitCode": 0, "cancelled": False, "truncated": False}
    assert runs == [("ls", str(tmp_path))] and "".join(chunks) == "from the backend\n"
    failed = await session.run_bash("boom")
    assert failed["exitCode"] == 1 and "remote host went away" in failed["output"]
    faux.set_responses([faux_assistant([faux_text("ok")])])
    assert [m["role"] for m in session.messages][-2:] == ["bashExecution", "bashExecution"]
