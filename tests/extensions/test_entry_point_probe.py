"""The start-up entry-point probe: finds a declared group, caches by sys.path mtimes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pi_cli.config.entry_point_probe import has_entry_points


def test_probe_finds_group_and_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    dist = site / "demo-1.0.dist-info"
    dist.mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [str(site)])
    cache = tmp_path / "cache.json"
    assert has_entry_points("pi_cli.extensions", cache) is False
    (dist / "entry_points.txt").write_text("[pi_cli.extensions]\ndemo = demo_ext\n")
    assert has_entry_points("pi_cli.extensions", cache) is False  # folder mtime unchanged: cached answer
    (site / "other-2.0.dist-info").mkdir()  # an install changes the folder's mtime (set it: coarse clocks)
    os.utime(site, ns=(1, site.stat().st_mtime_ns + 10**9))
    assert has_entry_points("pi_cli.extensions", cache) is True
    assert has_entry_points("other.group", cache) is False
