"""What extensions need of the session they serve: :class:`ExtensionHost`.

Declared here, below the session layer, and satisfied by ``pi_cli.session.AgentSession``; the
session's assembly hands it to :meth:`ExtensionRunner.bind <pi_cli.extensions.runner.ExtensionRunner.bind>`
once the session exists. Until then the runner has no host and actions that need one say so.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from pi_cli.agent.agent import Agent
from pi_cli.ai.types import Model
from pi_cli.sandbox.protocol import ToolSandbox


class EntryWriter(Protocol):
    """The part of the session store extensions write to."""

    def append_custom_entry(self, custom_type: str, data: Any = None) -> None: ...


class ToolInfoSource(Protocol):
    """Tools that live outside the extension runner (MCP servers'), for ``pi.get_all_tools()``."""

    def tool_infos(self) -> list[dict[str, Any]]: ...


class ExtensionHost(Protocol):
    """The session as extensions see it (``pi.*`` actions and ``ctx``)."""

    @property
    def agent(self) -> Agent: ...

    @property
    def store(self) -> EntryWriter: ...

    @property
    def mcp(self) -> ToolInfoSource | None: ...

    @property
    def sandbox(self) -> ToolSandbox | None: ...

    @property
    def is_streaming(self) -> bool: ...

    @property
    def messages(self) -> list[dict[str, Any]]: ...

    @property
    def model(self) -> Model | None: ...

    @property
    def thinking_level(self) -> str: ...

    @property
    def session_file(self) -> str | None: ...

    @property
    def session_id(self) -> str: ...

    def subscribe(self, listener: Callable[[dict[str, Any]], Any]) -> Callable[[], None]: ...

    def steer(self, text: str, images: list[Any] | None = None) -> None: ...

    def follow_up(self, text: str, images: list[Any] | None = None) -> None: ...

    async def prompt(
        self, text: str, images: list[Any] | None = None, streaming_behavior: str | None = None
    ) -> None: ...

    def add_custom_message(
        self, message: dict[str, Any], trigger_turn: bool = False
    ) -> Coroutine[Any, Any, None] | None: ...

    def set_model(self, model: Model) -> None: ...

    def set_thinking_level(self, level: str) -> str: ...
