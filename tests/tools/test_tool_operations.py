"""pi's pluggable tool operations (``create_read_tool(cwd, operations=...)`` and siblings, and
``user_bash`` answered with ``{"operations": ...}``): the built-in tools do their work through an
extension's backend — here an in-memory "remote" — with the same results as on the local disk."""

from __future__ import annotations

import asyncio
import base64
import struct
import zlib
from typing import Any

import pytest
from tool_helpers import text_of

from pi_cli.ai.abort import AbortController
from pi_cli.tools import (
    create_bash_tool,
    create_edit_tool,
    create_local_bash_operations,
    create_read_tool,
    create_write_tool,
)

CWD = "/project"


class RemoteFiles:
    """A remote file system as pi's Read/Write/EditOperations (async, camelCase as pi's examples)."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.dirs: list[str] = []

    async def readFile(self, path: str) -> bytes:
        if path not in self.files:
            raise FileNotFoundError(f"remote: no such file {path}")
        return self.files[path]

    async def writeFile(self, path: str, content: str) -> None:
        self.files[path] = content.encode()

    async def access(self, path: str) -> None:
        if path not in self.files:
            raise FileNotFoundError(f"remote: cannot access {path}")

    def mkdir(self, path: str) -> None:  # sync works too
        self.dirs.append(path)


def png(width: int, height: int) -> bytes:
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


async def test_read_comes_from_the_backend_with_the_usual_rules() -> None:
    remote = RemoteFiles(
        {"/project/a.txt": b"one\ntwo\nthree\n", "/project/pic.png": png(2, 2), "/project/bin": b"ab\x00cd"}
    )
    read = create_read_tool(CWD, operations=remote)
    assert text_of(await read.execute("1", {"path": "a.txt"})) == "one\ntwo\nthree\n"
    paged = text_of(await read.execute("2", {"path": "a.txt", "offset": 2, "limit": 1}))
    assert paged.startswith("two") and "Use offset=3 to continue" in paged
    image = await read.execute("3", {"path": "pic.png"})
    assert image.content[1]["type"] == "image"
    assert base64.b64decode(image.content[1]["data"]) == remote.files["/project/pic.png"]  # type: ignore[typeddict-item]
    with pytest.raises(ValueError, match="binary file"):
        await read.execute("4", {"path": "bin"})
    with pytest.raises(FileNotFoundError, match="remote: cannot access /project/missing"):
        await read.execute("5", {"path": "missing"})
    with pytest.raises(ValueError, match="beyond end of file"):
        await read.execute("6", {"path": "a.txt", "offset": 99})


async def test_write_and_edit_go_to_the_backend() -> None:
    remote = RemoteFiles({"/project/src/m.py": b"x = 1\ny = 2\n"})
    write = create_write_tool(CWD, operations=remote)
    assert text_of(await write.execute("1", {"path": "new/f.txt", "content": "hello"})) == (
        "Successfully wrote to new/f.txt"
    )
    assert remote.files["/project/new/f.txt"] == b"hello" and remote.dirs == ["/project/new"]
    edit = create_edit_tool(CWD, operations=remote)
    result = await edit.execute("2", {"path": "src/m.py", "edits": [{"oldText": "y = 2", "newText": "y = 3"}]})
    assert remote.files["/project/src/m.py"] == b"x = 1\ny = 3\n"
    assert "-2 y = 2" in result.details["diff"] and "+2 y = 3" in result.details["diff"]  # type: ignore[index]
    with pytest.raises(FileNotFoundError):
        await edit.execute("3", {"path": "gone.py", "edits": [{"oldText": "a", "newText": "b"}]})


def test_a_spec_without_the_needed_calls_is_refused_naming_them() -> None:
    with pytest.raises(TypeError, match="missing read_file"):
        create_read_tool(CWD, operations={"access": lambda p: None})
    with pytest.raises(TypeError, match="missing exec"):
        create_bash_tool(CWD, operations={})


class RemoteShell:
    """pi's BashOperations as a dict of one async ``exec``."""

    def __init__(self, chunks: list[str | bytes], code: int | None = 0, hang: bool = False) -> None:
        self.calls: list[tuple[str, str]] = []
        self.chunks, self.code, self.hang = chunks, code, hang

    def spec(self) -> dict[str, Any]:
        async def exec(command: str, cwd: str, *, on_data: Any, signal: Any, timeout: Any, env: Any) -> Any:
            self.calls.append((command, cwd))
            for chunk in self.chunks:
                on_data(chunk)
                await asyncio.sleep(0)
            if self.hang:
                await asyncio.sleep(60)
            return {"exitCode": self.code}

        return {"exec": exec}


async def test_bash_runs_through_the_backend_and_reports_like_a_local_shell() -> None:
    shell = RemoteShell(["hello ", b"remote\n"])
    bash = create_bash_tool(CWD, operations=shell.spec(), command_prefix="source ~/.profile")
    updates: list[Any] = []
    result = await bash.execute("1", {"command": "echo hi"}, None, updates.append)
    assert text_of(result) == "hello remote\n" and result.is_error is None
    assert shell.calls == [("source ~/.profile\necho hi", CWD)] and updates
    failing = create_bash_tool(CWD, operations=RemoteShell(["oops\n"], code=3).spec())
    result = await failing.execute("2", {"command": "false"})
    assert result.is_error and text_of(result).endswith("Command exited with code 3")


async def test_bash_backend_timeout_and_abort_end_the_call() -> None:
    slow = create_bash_tool(CWD, operations=RemoteShell(["partial\n"], hang=True).spec())
    with pytest.raises(RuntimeError, match=r"partial\n+Command timed out after 0.2 seconds"):
        await slow.execute("1", {"command": "sleep", "timeout": 0.2})
    controller = AbortController()
    task = asyncio.ensure_future(slow.execute("2", {"command": "sleep"}, controller.signal))
    await asyncio.sleep(0.05)
    controller.abort()
    with pytest.raises(RuntimeError, match="Command aborted"):
        await asyncio.wait_for(task, 5)


async def test_local_bash_operations_wrap_this_machines_shell(tmp_path: Any) -> None:
    local = create_local_bash_operations()
    seen: list[Any] = []
    answer = await local.exec("echo local; exit 4", str(tmp_path), on_data=seen.append)
    assert answer == {"exitCode": 4} and "".join(seen) == "local\n"
    wrapped = create_bash_tool(str(tmp_path), operations=local)
    assert text_of(await wrapped.execute("1", {"command": "printf wrapped"})) == "wrapped"
