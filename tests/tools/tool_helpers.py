"""Helpers imported by the tool tests (a uniquely named module: tests/tools has no __init__.py)."""

from __future__ import annotations

import os

from pi_cli.agent.types import AgentToolResult


def text_of(result: AgentToolResult) -> str:
    """The text of a result whose first block is text."""
    assert result.content and result.content[0]["type"] == "text"
    return result.content[0]["text"]  # type: ignore[typeddict-item]


def write_file(directory: str, name: str, content: str | bytes) -> str:
    path = os.path.join(directory, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(content, bytes) else "w"
    with open(path, mode, **({} if isinstance(content, bytes) else {"newline": ""})) as handle:
        handle.write(content)
    return path


def has_content(path: str) -> bool:
    """True once ``path`` exists and holds more than whitespace (a command wrote its pid)."""
    return os.path.exists(path) and bool(read_bytes(path).strip())


def read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()
