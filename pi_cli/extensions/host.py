"""What extensions need of the session they serve: :class:`ExtensionHost`.

Declared here, below the session layer, and satisfied by ``pi_cli.session.AgentSession``; the
session's assembly hands it to :meth:`ExtensionRunner.bind <pi_cli.extensions.runner.ExtensionRunner.bind>`
once the session exists. Until then the runner has no host and actions that need one say so.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.agent.agent import Agent
from pi_cli.ai.types import Model
from pi_cli.sandbox.protocol import ToolSandbox

if TYPE_CHECKING:
    from pi_cli.resources.themes import ThemeCatalog


class SessionReader(Protocol):
    """The session manager's reads that ``ctx.session_manager`` exposes (pi_cli.store's
    SessionManager satisfies it); entries are pi's JSON-shaped dicts."""

    cwd: str

    @property
    def session_dir(self) -> Any: ...

    def get_header(self) -> dict[str, Any]: ...

    def get_entries(self) -> list[dict[str, Any]]: ...

    def get_entry(self, entry_id: str) -> dict[str, Any] | None: ...

    def get_branch(self, from_id: str | None = None) -> list[dict[str, Any]]: ...

    def get_tree(self) -> list[Any]: ...

    def get_leaf_id(self) -> str | None: ...

    def get_leaf_entry(self) -> dict[str, Any] | None: ...

    def get_label(self, entry_id: str) -> str | None: ...

    def get_session_name(self) -> str | None: ...

    def build_context(self) -> Any: ...


class EntryWriter(Protocol):
    """The part of the session store extensions write to (and read through ``manager``, None for
    a session kept in memory without a manager)."""

    @property
    def manager(self) -> SessionReader | None: ...

    def header(self) -> dict[str, Any]: ...

    def append_custom_entry(self, custom_type: str, data: Any = None) -> dict[str, Any] | None: ...

    def append_label_change(self, target_id: str, label: str | None) -> None: ...


class ToolInfoSource(Protocol):
    """Tools that live outside the extension runner (MCP servers'), for ``pi.get_all_tools()``."""

    def tool_infos(self) -> list[dict[str, Any]]: ...


class ExtensionHost(Protocol):
    """The session as extensions see it (``pi.*`` actions and ``ctx``)."""

    @property
    def themes(self) -> ThemeCatalog: ...

    def save_theme(self, name: str) -> None:
        """Save ``name`` as the user's ``theme`` setting (``ctx.ui.set_theme``)."""

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

    def emit_nowait(self, event: dict[str, Any]) -> None: ...

    def steer(self, text: str, images: list[Any] | None = None) -> None: ...

    def follow_up(self, text: str, images: list[Any] | None = None) -> None: ...

    async def prompt(
        self, text: str, images: list[Any] | None = None, streaming_behavior: str | None = None
    ) -> None: ...

    def add_custom_message(
        self, message: dict[str, Any], trigger_turn: bool = False
    ) -> Coroutine[Any, Any, None] | None: ...

    def set_model(self, model: Model, persist: bool = True) -> None: ...

    def set_thinking_level(self, level: str, persist: bool = True) -> str: ...

    # -- session control (issue 31): names, usage, commands and session-file operations -----------

    @property
    def session_name(self) -> str | None: ...

    def set_session_name(self, name: str) -> None: ...

    def context_usage(self) -> dict[str, Any] | None: ...

    def get_commands(self) -> list[dict[str, Any]]: ...

    async def compact_now(self, custom_instructions: str | None = None) -> dict[str, Any]: ...

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]: ...

    async def reload(self) -> list[str]:
        """``/reload``: resources and extensions loaded again; returns the problem lines."""

    async def switch_session(self, path: str) -> dict[str, Any]: ...

    async def fork(self, entry_id: str) -> dict[str, Any]: ...

    async def navigate_tree(self, target_id: str, **options: Any) -> Any: ...

    def set_tool_prompts(self, snippets: dict[str, str], guidelines: dict[str, list[str]]) -> None: ...

    def add_resource_paths(self, skill_paths: list[str], prompt_paths: list[str]) -> list[str]: ...
