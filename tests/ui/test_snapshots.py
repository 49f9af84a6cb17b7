"""SVG snapshots of the main states (pytest-textual-snapshot; ``--snapshot-update`` to accept)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import scenes


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    for name in ("HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE"):
        monkeypatch.setenv(name, "")  # recorded so the scene's settings are undone afterwards
    return home


@pytest.mark.parametrize("name", sorted(scenes.SCENES))
def test_snapshot(name: str, home: Path, snap_compare: Any) -> None:
    app, run_before = scenes.SCENES[name](home)
    assert snap_compare(app, run_before=run_before, terminal_size=scenes.SIZE)
