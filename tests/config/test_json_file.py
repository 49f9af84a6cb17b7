"""Atomic JSON config writes: content, permissions, and symlinked files kept as links."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from pi_cli.config.json_file import write_json_atomic


def test_writes_indented_json_with_private_mode(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    write_json_atomic(target, {"theme": "light"})
    assert json.loads(target.read_text()) == {"theme": "light"}
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no temp file left behind


def test_symlinked_file_is_written_through_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text("{}")
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    write_json_atomic(link, {"quietStartup": True})
    assert link.is_symlink()
    assert json.loads(real.read_text()) == {"quietStartup": True}
