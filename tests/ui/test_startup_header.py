"""The start header lists what was loaded: context files, skills, prompts and extensions (as pi)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from pi_cli.modes.interactive.startup import startup_header


def test_loaded_extensions_are_listed_by_where_they_came_from(tmp_path: Path) -> None:
    runner = SimpleNamespace(sources=[str(tmp_path / ".pi" / "extensions" / "gate.py"), "example:word_count"])
    session = SimpleNamespace(resources=None, extensions=runner)
    header = startup_header(session, tmp_path, {})  # type: ignore[arg-type]
    assert "Extensions: .pi/extensions/gate.py, example:word_count" in header.resources


def test_no_extensions_no_line(tmp_path: Path) -> None:
    header = startup_header(SimpleNamespace(resources=None, extensions=None), tmp_path, {})  # type: ignore[arg-type]
    assert not any(line.startswith("Extensions") for line in header.resources)
