"""Replacing a JSON config file atomically (settings.json, auth.json).

The new content goes to a temp file in the same directory, which is then renamed over the target,
so a crash or a full disk leaves the old file or the new one, never a torn mix.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_json_atomic(path: Path, data: dict[str, Any], *, ensure_ascii: bool = False) -> None:
    """Write ``data`` as 2-space-indented JSON plus a newline; the parent directory must exist.

    The file ends up 0600: mkstemp creates the temp file that way, so even a secret is never
    readable by others, not even briefly. A symlinked file (dotfiles kept in a repository) is
    written through the link, so the link survives.
    """
    path = path.resolve() if path.is_symlink() else path
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=ensure_ascii)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
