"""The write tool."""

from __future__ import annotations

import asyncio
import os

import pytest
from tool_helpers import read_bytes, text_of

from pi_cli.agent.types import AgentTool
from pi_cli.tools import write as write_module


async def test_creates_parents_and_reports_the_path(tools: dict[str, AgentTool], cwd: str) -> None:
    result = await tools["write"].execute("t", {"path": "a/b/c.txt", "content": "hello"}, None, None)
    assert text_of(result) == "Successfully wrote to a/b/c.txt"  # pi 1.6.0 dropped the byte count
    assert read_bytes(os.path.join(cwd, "a/b/c.txt")) == b"hello"
    result = await tools["write"].execute("t", {"path": "u.txt", "content": "é😀"}, None, None)
    assert text_of(result) == "Successfully wrote to u.txt"
    assert read_bytes(os.path.join(cwd, "u.txt")) == "é😀".encode()


async def test_overwrites_atomically_without_leftovers(tools: dict[str, AgentTool], cwd: str) -> None:
    await tools["write"].execute("t", {"path": "f.txt", "content": "one"}, None, None)
    await tools["write"].execute("t", {"path": "@f.txt", "content": "two"}, None, None)
    assert read_bytes(os.path.join(cwd, "f.txt")) == b"two"
    assert os.listdir(cwd) == ["f.txt"]


async def test_writing_a_directory_fails(tools: dict[str, AgentTool], cwd: str) -> None:
    os.mkdir(os.path.join(cwd, "d"))
    with pytest.raises(IsADirectoryError, match="it is a directory"):
        await tools["write"].execute("t", {"path": "d", "content": "x"}, None, None)


async def test_parallel_writes_and_edit_do_not_interleave(tools: dict[str, AgentTool], cwd: str) -> None:
    contents = [f"version {i}\n" * 2000 for i in range(8)]
    await asyncio.gather(
        *(tools["write"].execute(str(i), {"path": "w.txt", "content": c}, None, None) for i, c in enumerate(contents))
    )
    assert read_bytes(os.path.join(cwd, "w.txt")).decode() in contents


async def test_os_errors_become_one_line_errors(
    tools: dict[str, AgentTool], cwd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def denied(path: str, data: bytes) -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(write_module, "atomic_write_bytes", denied)
    with pytest.raises(OSError, match=r"^Could not write locked/f\.txt: Permission denied$"):
        await tools["write"].execute("t", {"path": "locked/f.txt", "content": "x"}, None, None)
