"""Fixtures for the MCP tests: an isolated agent dir, and the hand-written test server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SERVER = str(Path(__file__).with_name("mcp_test_server.py"))


@pytest.fixture
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "agent"
    path.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(path))
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / ".pi").mkdir(parents=True)
    return path


def stdio_entry(*flags: str, **extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [SERVER, *flags], **extra}


def write_config(path: Path, servers: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


@pytest.fixture
def http_server(request: pytest.FixtureRequest) -> Iterator[str]:
    """The test server over streamable HTTP on 127.0.0.1:<free port>; yields its URL.

    Parametrize indirectly with extra flags (``--flaky``, ``--forgetful``)."""
    flags = list(getattr(request, "param", []))
    proc = subprocess.Popen([sys.executable, SERVER, "--http", *flags], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait()
