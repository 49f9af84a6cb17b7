"""Serialising mutations of one file.

``edit`` reads, transforms and rewrites a file; two edits of the same file running in parallel
(the agent runs a batch of tool calls concurrently) would otherwise both read the old text and the
second write would silently drop the first one's change. Every mutating tool therefore holds
:func:`file_mutation_lock` for the file's real path across its whole read-modify-write.

Locks live only while someone holds or waits for them, so the table never grows and no lock
outlives the event loop it was created on.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

_locks: dict[str, tuple[asyncio.Lock, int]] = {}


def _key(path: str) -> str:
    # The real path, so ``a.txt``, ``./a.txt`` and a symlink to it share one lock.
    return os.path.realpath(path)


@asynccontextmanager
async def file_mutation_lock(path: str) -> AsyncIterator[None]:
    """Hold the per-file mutation lock for ``path`` for the duration of the ``async with``."""
    key = _key(path)
    lock, users = _locks.get(key, (None, 0))
    if lock is None:
        lock = asyncio.Lock()
    _locks[key] = (lock, users + 1)
    try:
        async with lock:
            yield
    finally:
        lock_now, users_now = _locks[key]
        if users_now <= 1:
            del _locks[key]
        else:
            _locks[key] = (lock_now, users_now - 1)


def active_lock_count() -> int:
    """How many files currently have a lock entry (for tests)."""
    return len(_locks)
