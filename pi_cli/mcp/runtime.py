"""What a session holds when MCP is on: the manager, its notices, and the tool set it contributes.

The session (a higher layer) creates it only when :func:`pi_cli.mcp.config.has_mcp_config` says a
file exists, so a session without MCP imports nothing of this package but ``config``. It then:

* calls :meth:`McpRuntime.start` once an event loop runs (connections go on in the background);
* merges :meth:`tools` into the agent's tools whenever ``on_tools_changed`` fires;
* calls :meth:`restore` with the branch's messages after resume, fork, ``/tree`` or a new session,
  so tools that ``tool_search`` loaded on that branch are declared again;
* calls :meth:`close` at shutdown (stops every server).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pi_cli.mcp.config import load_mcp_config
from pi_cli.mcp.log import McpLog
from pi_cli.mcp.manager import McpManager
from pi_cli.mcp.tools import TOOL_SEARCH_NAME


class McpRuntime:
    """One session's MCP servers and the tools they add."""

    def __init__(self, manager: McpManager) -> None:
        self.manager = manager
        self.on_tools_changed: Callable[[], None] | None = None
        self._started = False
        manager.on_change = self._changed

    @classmethod
    def load(cls, cwd: Path, agent_dir: Path, trusted: bool) -> McpRuntime:
        """Read the config files (the project one only when ``trusted``); connects nothing yet."""
        config = load_mcp_config(agent_dir, cwd, trusted)
        return cls(McpManager(config, cwd, McpLog(agent_dir / "mcp.log")))

    @property
    def notices(self) -> list[str]:
        """Configuration problems, one line each (shown once after start-up)."""
        return [f"Warning: MCP: {line}" for line in self.manager.errors]

    def start(self) -> None:
        if not self._started:
            self._started = True
            self.manager.start()

    def tools(self) -> list[Any]:
        """The MCP tools to declare now (direct, loaded deferred, ``tool_search``)."""
        return self.manager.active_tools()

    def restore(self, messages: Iterable[Any]) -> None:
        """Re-declare the tools ``tool_search`` loaded in ``messages`` (replaces the loaded set)."""
        self.manager.loaded = set(loaded_tool_names(messages))
        self._changed()

    def _changed(self) -> None:
        if self.on_tools_changed is not None:
            self.on_tools_changed()

    async def close(self) -> None:
        await self.manager.close()


def loaded_tool_names(messages: Iterable[Any]) -> list[str]:
    """Names in ``details.loaded`` of the ``tool_search`` results among ``messages`` (pi's record)."""
    names: list[str] = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "toolResult":
            continue
        if message.get("toolName") != TOOL_SEARCH_NAME or message.get("isError"):
            continue
        details = message.get("details")
        loaded = details.get("loaded") if isinstance(details, dict) else None
        if isinstance(loaded, list):
            names.extend(n for n in loaded if isinstance(n, str) and n not in names)
    return names
