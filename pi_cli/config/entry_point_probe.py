"""Does any installed distribution declare an entry point in a group? Cheaply, at start-up.

``importlib.metadata`` costs over 100 ms to import on a loaded machine, too much for every start.
This reads the ``entry_points.txt`` of each ``*.dist-info``/``*.egg-info`` on ``sys.path`` (a few
ms) and caches the answer in a small JSON file keyed by the mtimes of the ``sys.path`` folders,
which change whenever a distribution is installed or removed; a cache hit is a few stats.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path


def _scan(header: str) -> bool:
    for base in sys.path:
        try:
            names = os.listdir(base or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(base, name, "entry_points.txt"), encoding="utf-8") as handle:
                    if header in handle.read():
                        return True
            except OSError:
                continue
    return False


def _stamp() -> dict[str, int]:
    stamp: dict[str, int] = {}
    for base in sys.path:
        with contextlib.suppress(OSError):
            stamp[base] = os.stat(base or ".").st_mtime_ns
    return stamp


def has_entry_points(group: str, cache_file: Path | None = None) -> bool:
    """True when some distribution on ``sys.path`` declares ``[group]`` entry points."""
    stamp = _stamp()
    key = f"{group}"
    if cache_file is not None:
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            cached = json.loads(cache_file.read_text(encoding="utf-8"))
            if cached["stamp"] == stamp and key in cached["groups"]:
                return bool(cached["groups"][key])
    found = _scan(f"[{group}]")
    if cache_file is not None:
        with contextlib.suppress(OSError):
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache_file.with_suffix(".tmp")
            tmp.write_text(json.dumps({"stamp": stamp, "groups": {key: found}}), encoding="utf-8")
            os.replace(tmp, cache_file)
    return found
