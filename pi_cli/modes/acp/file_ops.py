"""read/write/edit through the editor (ACP ``fs/read_text_file`` / ``fs/write_text_file``).

Bound to the session's built-in tools when the client says it offers them and the ``acp.clientFs``
setting is on (default). The editor answers from its buffers, unsaved changes included, and a
write lands in the editor (which can show and undo it). Anything the client refuses falls back to
the disk, so a file the editor cannot see is still read or written.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from acp import RequestError

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

_log = logging.getLogger(__name__)


class AcpFileOps:
    """:class:`~pi_cli.tools.files.ops.FileOps` over one ACP connection and session."""

    def __init__(self, conn: Callable[[], Any], session_id: str, *, read: bool, write: bool) -> None:
        self._conn = conn
        self._session_id = session_id
        self._read = read
        self._write = write

    async def read_text(self, path: str) -> str | None:
        if not self._read:
            return None
        try:
            response = await self._conn().read_text_file(session_id=self._session_id, path=path)
        except (RequestError, ConnectionError) as exc:
            _log.info("fs/read_text_file failed for %s (%s); reading the disk", path, exc)
            return None
        content = getattr(response, "content", None)
        return content if isinstance(content, str) else None

    async def write_text(self, path: str, content: str) -> bool:
        if not self._write:
            return False
        try:
            await self._conn().write_text_file(session_id=self._session_id, path=path, content=content)
        except (RequestError, ConnectionError) as exc:
            _log.info("fs/write_text_file failed for %s (%s); writing the disk", path, exc)
            return False
        return True


def bind_client_fs(session: AgentSession, conn: Callable[[], Any], session_id: str, capabilities: Any) -> bool:
    """Give the session's read/write/edit tools the client's file system; True when bound."""
    fs = getattr(capabilities, "fs", None)
    read, write = bool(getattr(fs, "read_text_file", False)), bool(getattr(fs, "write_text_file", False))
    enabled = session.settings.acp.client_fs
    if not (read or write) or not enabled:
        return False
    ops = AcpFileOps(conn, session_id, read=read, write=write)
    bound = False
    for tool in session.agent.state.tools:
        if getattr(tool, "name", None) in ("read", "write", "edit") and hasattr(tool, "file_ops"):
            tool.file_ops = ops
            bound = True
    return bound
