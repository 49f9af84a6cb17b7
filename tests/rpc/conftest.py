from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli.pi_harness import FakeLLMServer, PiEnv


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    srv = FakeLLMServer([])
    srv.start_in_thread()
    try:
        yield srv
    finally:
        srv.stop_thread()


@pytest.fixture
def pi(tmp_path: Path, server: FakeLLMServer) -> PiEnv:
    return PiEnv(tmp_path, server)
