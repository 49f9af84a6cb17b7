"""Conformance-to-pi-0.73.1 tests: shapes observed from the real pi, asserted without it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _isolated_agent_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path_factory.mktemp("agent")))
    monkeypatch.setenv("PI_OFFLINE", "1")
    yield


from cli.pi_harness import pi, server  # noqa: E402  (the subprocess harness shared with tests/cli)

__all__ = ["pi", "server"]
