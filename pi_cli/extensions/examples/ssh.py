"""Work on another machine over SSH (a port of pi's ``ssh`` example).

``pi -e example:ssh --ssh user@host[:/remote/path]``: ``read``, ``write``, ``edit`` and ``bash``
(and the user's ``!`` commands) run on the remote host through the tools' pluggable operations;
the system prompt names the remote folder. Without ``--ssh`` everything stays local. Needs
key-based SSH (no password prompt) and a POSIX shell with ``base64`` on the remote side.

Local paths map onto the remote folder by replacing the local working directory's prefix.
"""

from __future__ import annotations

import asyncio
import base64
import shlex
from typing import Any, NamedTuple

from pi_cli.tools import create_bash_tool, create_edit_tool, create_read_tool, create_write_tool

SSH = "ssh"  # the client program (tests put a stand-in first on PATH)


class Remote(NamedTuple):
    """The host, its working folder, and the local folder that maps onto it."""

    host: str
    cwd: str
    local_cwd: str


def remote_path(remote: Remote, local: str) -> str:
    """A local absolute path as the remote host sees it."""
    return remote.cwd + local[len(remote.local_cwd) :] if local.startswith(remote.local_cwd) else local


async def ssh_run(host: str, command: str, on_data: Any = None) -> tuple[int | None, bytes]:
    """Run ``command`` on ``host``; (exit code, stdout). stderr goes to ``on_data`` too, else is
    kept for the error. Raises naming the host when the command fails and nobody streams it."""
    process = await asyncio.create_subprocess_exec(
        SSH, host, command, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    if on_data is None:
        out, err = await process.communicate()
        if process.returncode != 0:
            raise OSError(f"ssh {host} failed ({process.returncode}): {err.decode(errors='replace').strip()}")
        return process.returncode, out

    async def pump(stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            on_data(chunk)

    assert process.stdout is not None and process.stderr is not None
    try:
        await asyncio.gather(pump(process.stdout), pump(process.stderr))
        return await process.wait(), b""
    except asyncio.CancelledError:  # aborted or timed out: the caller reports which
        process.kill()
        raise


def file_ops(remote: Remote) -> dict[str, Any]:
    """pi's Read/Write/EditOperations over SSH."""

    async def read_file(path: str) -> bytes:
        return (await ssh_run(remote.host, f"cat {shlex.quote(remote_path(remote, path))}"))[1]

    async def access(path: str) -> None:
        await ssh_run(remote.host, f"test -r {shlex.quote(remote_path(remote, path))}")

    async def write_file(path: str, content: str) -> None:
        encoded = base64.b64encode(content.encode()).decode()
        await ssh_run(remote.host, f"echo {encoded} | base64 -d > {shlex.quote(remote_path(remote, path))}")

    async def mkdir(path: str) -> None:
        await ssh_run(remote.host, f"mkdir -p {shlex.quote(remote_path(remote, path))}")

    return {"read_file": read_file, "access": access, "write_file": write_file, "mkdir": mkdir}


def shell_ops(remote: Remote) -> dict[str, Any]:
    """pi's BashOperations over SSH (pi_cli enforces the timeout and abort around it)."""

    async def exec(command: str, cwd: str, *, on_data: Any, **_: Any) -> dict[str, int | None]:
        code, _out = await ssh_run(remote.host, f"cd {shlex.quote(remote_path(remote, cwd))} && {command}", on_data)
        return {"exitCode": code}

    return {"exec": exec}


def register(pi: Any) -> None:
    pi.register_flag("ssh", "string", description="SSH remote: user@host or user@host:/path")
    state: dict[str, Remote] = {}

    def switching(name: str, local: Any, remote_tool: Any) -> dict[str, Any]:
        async def execute(call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> Any:
            remote = state.get("remote")
            tool = local if remote is None else remote_tool(remote)
            return await tool.execute(call_id, args, signal, on_update)

        return {"name": name, "label": local.label, "description": local.description,
                "parameters": local.parameters, "execute": execute}  # fmt: skip

    async def started(event: dict[str, Any], ctx: Any) -> None:
        cwd = ctx.cwd
        for name, make, ops in (
            ("read", create_read_tool, file_ops),
            ("write", create_write_tool, file_ops),
            ("edit", create_edit_tool, file_ops),
            ("bash", create_bash_tool, shell_ops),
        ):
            pi.register_tool(switching(name, make(cwd), lambda r, make=make, ops=ops: make(cwd, operations=ops(r))))
        target = pi.get_flag("ssh")
        if not target:
            return
        host, _, path = str(target).partition(":")
        if not path:
            path = (await ssh_run(host, "pwd"))[1].decode().strip()
        state["remote"] = Remote(host, path, cwd)
        ctx.ui.set_status("ssh", ctx.ui.theme.fg("accent", f"SSH: {host}:{path}"))
        ctx.ui.notify(f"SSH mode: {host}:{path}", "info")

    def user_bash(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        remote = state.get("remote")
        return None if remote is None else {"operations": shell_ops(remote)}

    def before_agent_start(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        remote = state.get("remote")
        if remote is None:
            return None
        prompt = str(event["systemPrompt"]).replace(
            f"Current working directory: {remote.local_cwd}",
            f"Current working directory: {remote.cwd} (via SSH: {remote.host})",
        )
        return {"systemPrompt": prompt}

    pi.on("session_start", started)
    pi.on("user_bash", user_bash)
    pi.on("before_agent_start", before_agent_start)
