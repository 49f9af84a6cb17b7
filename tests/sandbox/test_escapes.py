"""Real Landlock: commands that try to leave the sandbox, and the controls that must keep working.

Each escape runs through the bash tool with a ``workspace`` sandbox whose project, temp dir and
"outside" folder are private temp folders (the real /tmp is outside too), and must leave the
outside folder exactly as it was. Secrets live in a fake HOME.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from pi_cli.sandbox.controller import Sandbox
from pi_cli.sandbox.policy import SandboxPolicy
from pi_cli.tools.shell.bash import BashTool, BashToolError

from .conftest import SECRETS, Places, needs_landlock

pytestmark = needs_landlock


def sandbox_for(places: Places, mode: str = "workspace", **policy: object) -> Sandbox:
    return Sandbox(SandboxPolicy(mode=mode, **policy), str(places.project), temp_dir=str(places.temp))  # type: ignore[arg-type]


@pytest.fixture
def sandbox(places: Places) -> Iterator[Sandbox]:
    box = sandbox_for(places)
    yield box
    box.close()


async def run(tool: BashTool, command: str) -> tuple[bool, str]:
    """(succeeded, text) of one bash call (a non-zero exit is an error result, as pi 1.6)."""
    try:
        result = await tool.execute("call", {"command": command})
    except BashToolError as exc:
        return False, str(exc)
    return not result.is_error, result.content[0]["text"]  # type: ignore[typeddict-item]


ESCAPES = {
    "redirect": "echo pwned > {out}/PWNED",
    "append": "echo pwned >> {out}/keep.txt",
    "python": "python3 -c \"open('{out}/PWNED', 'w').write('x')\"",
    "cp": "cp inside.txt {out}/PWNED",
    "tee": "echo x | tee {out}/PWNED",
    "mkdir": "mkdir {out}/newdir",
    "rm": "rm -f {out}/keep.txt",
    "rm -r": "rm -rf {out}/sub",
    "mv out of": "mv {out}/keep.txt ./stolen.txt",
    "mv into": "mv inside.txt {out}/moved.txt",
    "truncate": "truncate -s 0 {out}/keep.txt",
    "hard link": "ln {out}/keep.txt ./hard && echo x >> ./hard",
    "symlink in project": "ln -s {out} ./link && echo pwned > ./link/PWNED",
    "symlink file": "ln -s {out}/keep.txt ./lk && echo pwned >> ./lk",
    "real tmp": "echo x > /tmp/pi-sandbox-escape-$$ && mv /tmp/pi-sandbox-escape-$$ {out}/PWNED",
    "dd": "dd if=/dev/zero of={out}/keep.txt bs=1 count=1 conv=notrunc",
    "sed -i": "sed -i s/outside/pwned/ {out}/keep.txt",
    "subshell": "(cd {out} && touch PWNED)",
    "bash -c": "bash -c 'echo x > {out}/PWNED'",
    "exec redirect": "exec 3>{out}/PWNED; echo x >&3",
    "find -exec": "find {out} -name keep.txt -exec rm {{}} \\;",
    "setsid grandchild": "setsid sh -c 'echo x > {out}/PWNED' ; true",
}


@pytest.mark.parametrize("name", list(ESCAPES))
async def test_escape_leaves_outside_unchanged(places: Places, sandbox: Sandbox, name: str) -> None:
    before = places.snapshot()
    tool = BashTool(str(places.project), sandbox=sandbox)
    await run(tool, ESCAPES[name].format(out=places.outside))
    assert places.snapshot() == before
    assert not any(name.startswith("pi-sandbox-escape-") for name in os.listdir("/tmp"))


async def test_background_child_after_the_call_is_still_confined(places: Places, sandbox: Sandbox) -> None:
    before = places.snapshot()
    tool = BashTool(str(places.project), sandbox=sandbox)
    command = f"nohup sh -c 'sleep 0.2; echo x > {places.outside}/LATE; touch done' >/dev/null 2>&1 &"
    ok, _ = await run(tool, command)
    assert ok
    deadline = time.monotonic() + 10
    while not (places.project / "done").exists() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert (places.project / "done").exists()  # the child ran, inside the sandbox
    assert places.snapshot() == before


async def test_reading_the_secrets_fails_and_the_rest_of_home_reads(places: Places, sandbox: Sandbox) -> None:
    tool = BashTool(str(places.project), sandbox=sandbox)
    for rel, secret in SECRETS.items():
        ok, text = await run(tool, f"cat ~/{rel}")
        assert not ok and secret not in text, rel
    ok, text = await run(tool, "cat ~/notes.txt && ls ~ && python3 -c 'import os; print(len(os.listdir(\"/\")))'")
    assert ok and "readable note" in text
    ok, text = await run(tool, "grep -r SECRET ~ 2>/dev/null; tar c ~/.ssh 2>&1 | head -c 300")
    assert "SECRET-" not in text


async def test_tcp_connect_is_refused(places: Places, sandbox: Sandbox) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted: list[object] = []
    server.settimeout(5)

    def accept() -> None:
        try:
            accepted.append(server.accept())
        except OSError:
            pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    tool = BashTool(str(places.project), sandbox=sandbox)
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), 3)"
    ok, text = await run(tool, f'{sys.executable} -c "{code}"')
    server.close()
    thread.join(6)
    assert not ok and "Permission denied" in text
    assert not accepted
    assert "[Sandbox" in text and "network" in text


async def test_the_agent_process_is_out_of_reach(places: Places, sandbox: Sandbox) -> None:
    tool = BashTool(str(places.project), sandbox=sandbox)
    pid = os.getpid()
    _, text = await run(tool, f"kill -0 {pid} && echo SIGNALLED; head -c 8 /proc/{pid}/mem && echo READMEM")
    assert "SIGNALLED" not in text and "READMEM" not in text


async def test_project_and_temp_dir_stay_writable(places: Places, sandbox: Sandbox) -> None:
    tool = BashTool(str(places.project), sandbox=sandbox)
    command = (
        "mkdir -p a/b && echo one > a/b/f && mv a/b/f a/g && cp a/g h && ln -s h l && rm -r a"
        f" && echo t > {places.temp}/t && cat h l {places.temp}/t && git init -q repo && echo ok"
    )
    ok, text = await run(tool, command)
    assert ok, text
    assert (places.project / "h").read_text() == "one\n" and (places.temp / "t").exists()
    assert "[Sandbox" not in text


async def test_read_only_mode_blocks_the_project_too(places: Places) -> None:
    box = sandbox_for(places, "read-only")
    try:
        tool = BashTool(str(places.project), sandbox=box)
        ok, text = await run(tool, "echo x > new.txt")
        assert not ok and not (places.project / "new.txt").exists()
        assert "[Sandbox (read-only" in text and "new.txt" in text
        ok, text = await run(tool, "cat inside.txt && echo x > /dev/null")
        assert ok and "inside file" in text
    finally:
        box.close()


async def test_off_is_pi(places: Places) -> None:
    box = sandbox_for(places, "off")
    assert box.confinement() is None
    plain = BashTool(str(places.project))
    boxed = BashTool(str(places.project), sandbox=box)
    target = places.outside / "written.txt"
    for tool in (plain, boxed):
        ok, text = await run(tool, f"echo hi > {target} && cat {target}")
        assert ok and text == "hi\n"


async def test_writable_setting_opens_a_folder(places: Places) -> None:
    box = sandbox_for(places, writable=(str(places.outside / "sub"),))
    try:
        tool = BashTool(str(places.project), sandbox=box)
        ok, _ = await run(tool, f"echo x > {places.outside}/sub/new.txt")
        assert ok and (places.outside / "sub" / "new.txt").exists()
        ok, _ = await run(tool, f"echo x > {places.outside}/nope.txt")
        assert not ok and not (places.outside / "nope.txt").exists()
    finally:
        box.close()


async def test_a_new_entry_in_home_is_readable_after_a_rebuild(places: Places, sandbox: Sandbox) -> None:
    tool = BashTool(str(places.project), sandbox=sandbox)
    first = sandbox.confinement()
    (places.home / "later.txt").write_text("later\n")
    ok, text = await run(tool, "cat ~/later.txt")
    assert ok and "later" in text
    assert sandbox.confinement() is not first
