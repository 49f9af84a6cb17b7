"""What the subagent machinery needs of a session: :class:`SessionLike`.

Satisfied by :class:`~pi_cli.session.agent_session.AgentSession` (a parent and each child are
one), declared here so this package never imports the session it is a part of.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from pi_cli.ai.types import Model
from pi_cli.session.events import SessionListener


class SessionLike(Protocol):
    """A session a subagent call reads or runs (see the module docstring)."""

    cwd: Path

    @property
    def model(self) -> Model | None: ...

    @property
    def session_file(self) -> str | None: ...

    @property
    def is_streaming(self) -> bool: ...

    @property
    def messages(self) -> list[dict[str, Any]]: ...

    def message_view(self) -> Sequence[dict[str, Any]]: ...

    def subscribe(self, listener: SessionListener) -> Callable[[], None]: ...

    async def prompt(self, text: str) -> None: ...

    async def abort(self) -> None: ...

    async def dispose(self) -> None: ...

    def get_session_stats(self) -> dict[str, Any]: ...

    def get_last_assistant_text(self) -> str | None: ...
