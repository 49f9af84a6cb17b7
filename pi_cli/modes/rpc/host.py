"""What RPC command handlers see of the server (:class:`pi_cli.modes.rpc.server.RpcServer`).

The handler modules take this Protocol rather than the server class, so the server can import them
without an import cycle.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession


class CommandHost(Protocol):
    """The session, a way to answer out of order (after a prompt's preflight) and to run a
    coroutine in the background."""

    @property
    def session(self) -> AgentSession: ...

    def respond(self, obj: dict[str, Any]) -> None: ...

    def spawn(self, coro: Any) -> asyncio.Task[None]: ...
