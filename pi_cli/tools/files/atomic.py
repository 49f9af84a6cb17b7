"""Atomic file replacement: write a temp file in the target's directory, then rename over it.

A crash or a full disk mid-write leaves either the old file or the new one, never a torn mix.
The temp file sits in the same directory so ``os.replace`` is a same-filesystem rename. An existing
file's permission bits are kept; a symlink is followed so the link itself survives.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically. The parent directory must exist."""
    target = os.path.realpath(path)
    directory = os.path.dirname(target) or "."
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            # mkstemp creates 0600; give new files the usual umask-derived mode instead.
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
