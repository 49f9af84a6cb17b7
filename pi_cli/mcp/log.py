"""``<agent dir>/mcp.log``: server stderr, logging notifications and connection events.

Lines are ``<time> [<server>] <level> <logger>: <message>`` (pi's format); stderr lines use the
level ``stderr``. Nothing of this ever reaches the TUI. The file moves to ``mcp.log.1`` once it
grows past 5 MB. A log that cannot be written is dropped silently: logging never breaks a session.
The last lines of each server's stderr are kept in memory so ``/mcp`` and ``pi mcp list`` can show
why a server failed.
"""

from __future__ import annotations

import collections
import contextlib
import os
import time
from pathlib import Path

MAX_BYTES = 5 * 1024 * 1024
_TAIL = 20


class McpLog:
    """Appends to one log file; keeps each server's recent stderr lines."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._tails: dict[str, collections.deque[str]] = {}

    def write(self, server: str, level: str, message: str, logger: str | None = None) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime())
        where = f" {logger}" if logger else ""
        line = f"{stamp} [{server}] {level}{where}: {message.rstrip()}\n"
        if self.path is None:
            return
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size > MAX_BYTES:
                os.replace(self.path, self.path.with_name(self.path.name + ".1"))
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)

    def stderr(self, server: str, line: str) -> None:
        self._tails.setdefault(server, collections.deque(maxlen=_TAIL)).append(line.rstrip())
        self.write(server, "stderr", line)

    def stderr_tail(self, server: str) -> list[str]:
        return list(self._tails.get(server, ()))
