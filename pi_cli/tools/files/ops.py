"""Where ``read``, ``write`` and ``edit`` get and put file text, when not straight from the disk.

An editor hosting pi_cli (ACP's ``fs/read_text_file`` / ``fs/write_text_file``) knows files the
disk does not: unsaved buffers. A tool with ``file_ops`` set asks it first; ``None`` from
``read_text`` or ``False`` from ``write_text`` means "not handled", and the tool uses the disk as
usual. Paths are absolute.
"""

from __future__ import annotations

from typing import Protocol


class FileOps(Protocol):
    async def read_text(self, path: str) -> str | None:
        """The file's current text, or None to read it from disk."""

    async def write_text(self, path: str, content: str) -> bool:
        """Write the text; False to let the tool write the disk itself."""
