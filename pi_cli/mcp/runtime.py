"""What a session holds when MCP is on: servers on their own event loop, and the tools they add.

The session (a higher layer) creates it only when :func:`pi_cli.mcp.probe.has_mcp_config` says a
file exists, so a session without MCP imports nothing of this package but ``config``.

The servers live on a private event loop in a daemon thread, started at once by :meth:`start`.
Connecting therefore begins at session start in every mode (before the mode's own loop exists),
and a slow, chatty or dead server never holds up the prompt or the TUI. Tools, ``tool_search``
and ``/mcp`` actions reach that loop through :meth:`run`; aborting a call cancels it there.

The runtime is one of the agent's turn hooks (:class:`pi_cli.agent.hooks.TurnHook`), put in the
agent's hook chains by the session's assembly:

* :meth:`McpRuntime.before_run`: before each run the agent's tools become its non-MCP tools plus
  :meth:`tools`; the first run waits up to :data:`DIRECT_WAIT_S` for servers with ``direct`` tools
  (pi does the same); tools ``tool_search`` loaded on the current branch (``details.loaded`` of
  its results) are declared again, so they survive resume, fork and ``/tree``;
* :meth:`McpRuntime.next_turn`: after each turn a changed MCP tool set reaches the next model
  call, so tools loaded by ``tool_search`` are callable at once.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import fnmatch
import threading
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any, TypeVar

from pi_cli.agent.agent import Agent
from pi_cli.agent.types import AgentContext, NextTurnUpdate, TurnContext
from pi_cli.ai.abort import AbortSignal
from pi_cli.mcp.config import McpConfig, load_mcp_config, mcp_namespace
from pi_cli.mcp.errors import McpError
from pi_cli.mcp.log import McpLog
from pi_cli.mcp.manager import McpManager
from pi_cli.mcp.tools import TOOL_SEARCH_NAME, McpTool, ToolSearchTool
from pi_cli.sandbox.protocol import ToolSandbox

DIRECT_WAIT_S = 10.0
_CLOSE_WAIT_S = 3.0
_JOIN_WAIT_S = 1.0  # the loop's own clean-up after close
T = TypeVar("T")


def is_mcp_tool(tool: Any) -> bool:
    return isinstance(tool, McpTool | ToolSearchTool)


class McpRuntime:
    """One session's MCP servers and the tools they add."""

    def __init__(
        self,
        config: McpConfig,
        cwd: Path,
        log: McpLog,
        selection: list[str] | None = None,
        sandbox: ToolSandbox | None = None,
    ) -> None:
        self.manager = McpManager(
            config, cwd, log, self._changed, runner=self.run, selection=selection, sandbox=sandbox
        )
        self.on_tools_changed: Callable[[], None] | None = None
        self._snapshot: list[Any] = []
        self._infos: list[dict[str, Any]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        self._waited_direct = False
        self._scanned: tuple[int, int] = (0, 0)  # (id, length) of the message list last scanned
        self._agent: Agent | None = None  # the agent of the last run (its tools follow the servers')

    @classmethod
    def load(
        cls,
        cwd: Path,
        agent_dir: Path,
        trusted: bool,
        extra: Iterable[Any] = (),
        selection: list[str] | None = None,
        sandbox: ToolSandbox | None = None,
    ) -> McpRuntime:
        """Read the config files (the project one only when ``trusted``), plus ``extra`` server
        configs (e.g. an ACP client's, which win over a file's of the same name); ``selection`` is
        the ``--tools`` list, when given (see ``McpManager._selected``); stdio servers start inside
        ``sandbox`` (unless their entry opts out). Connects nothing yet."""
        config = load_mcp_config(agent_dir, cwd, trusted)
        config.servers.update({server.name: server for server in extra})
        return cls(config, cwd, McpLog(agent_dir / "mcp.log"), selection, sandbox)

    @property
    def notices(self) -> list[str]:
        """Configuration problems, one line each (shown once after start-up)."""
        return [f"Warning: MCP: {line}" for line in self.manager.errors]

    # --- the private loop -------------------------------------------------------------------

    def start(self) -> None:
        """Start the MCP thread and connect every enabled server in the background."""
        if self._thread is not None:
            return
        loop = self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        def main() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.call_soon(self.manager.start)
            loop.run_forever()
            # Stopped by close_sync: end what is left (readers, waits) and close the loop here, or
            # the interpreter's exit destroys pending tasks with a "Task was destroyed" line each.
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            with contextlib.suppress(Exception):
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

        self._thread = threading.Thread(target=main, name="mcp", daemon=True)
        self._thread.start()
        ready.wait(5)
        atexit.register(self.close_sync)

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        if self._loop is None:
            self.start()
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    async def run(self, coro: Coroutine[Any, Any, T], signal: AbortSignal | None = None) -> T:
        """Await ``coro`` on the MCP loop from any other loop; ``signal`` cancels it there."""
        future = self.submit(coro)

        def cancel() -> None:
            future.cancel()

        remove = signal.add_callback(cancel) if signal is not None else None
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if signal is not None and signal.aborted and future.cancelled():
                raise McpError("Operation aborted") from None
            raise
        finally:
            if remove is not None:
                remove()

    def close_sync(self) -> None:
        """Stop every server (stdin closed, SIGTERM, SIGKILL) and the thread; safe to call twice."""
        if self._closed or self._loop is None:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            self.submit(self.manager.close()).result(_CLOSE_WAIT_S)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(_JOIN_WAIT_S)

    async def close(self) -> None:
        await asyncio.to_thread(self.close_sync)

    # --- tools --------------------------------------------------------------------------------

    def _changed(self) -> None:
        """On the MCP loop: take a new snapshot of the tools to declare (read by other threads)."""
        self._snapshot = self.manager.active_tools()
        self._infos = [
            {"name": t.name, "description": t.description, "annotations": dict(t.annotations), "exposure": exposure}
            for t, exposure in self.manager.all_tools()
        ]
        if self.on_tools_changed is not None:
            self.on_tools_changed()

    def tools(self) -> list[Any]:
        """The MCP tools to declare now (direct, loaded deferred, ``tool_search``)."""
        if not self._snapshot and self._loop is None:
            return self.manager.active_tools()
        return list(self._snapshot)

    def tool_infos(self) -> list[dict[str, Any]]:
        """Every tool of the connected servers, for ``pi.get_all_tools()``: name, description, the
        server's annotations (``readOnlyHint`` …) and the effective exposure."""
        return list(self._infos)

    async def _restore(self, names: list[str], replace: bool) -> None:
        self.manager.loaded = set(names) if replace else self.manager.loaded | set(names)
        self._changed()

    async def sync_loaded(self, messages: list[Any]) -> None:
        """Declare again what ``tool_search`` loaded in ``messages`` (the current branch)."""
        key = (id(messages), len(messages))
        same_list = key[0] == self._scanned[0] and key[1] >= self._scanned[1]
        start = self._scanned[1] if same_list else 0
        self._scanned = key
        names = loaded_tool_names(messages[start:])
        if names or not same_list:
            await self.run(self._restore(names, replace=not same_list))

    def _servers_to_wait_for(self) -> list[str]:
        """Servers whose tools the next request must declare: those with ``direct`` tools (first run
        only) and those with tools loaded on this branch, while they are still connecting."""
        first, self._waited_direct = not self._waited_direct, True
        loaded = {name.split("__")[1] for name in self.manager.loaded if name.count("__") >= 2}
        out = []
        for name, state in self.manager.servers.items():
            if not state.config.enabled or state.status != "connecting":
                continue
            if (first and _has_direct(state.config)) or mcp_namespace(name) in loaded:
                out.append(name)
        return out

    async def tools_named(self, patterns: Iterable[str]) -> list[McpTool]:
        """The tools whose names match ``patterns`` (``mcp__server__tool``, ``*`` globs allowed),
        whatever their exposure but hidden, for a subagent whose ``tools`` name them: servers those
        patterns can match that are still connecting are waited for (up to :data:`DIRECT_WAIT_S`).
        The servers are this runtime's; a child never starts its own."""
        wanted = [p for p in patterns if p.startswith("mcp__")]
        return await self.run(self._named(wanted)) if wanted else []

    async def _named(self, wanted: list[str]) -> list[McpTool]:
        """On the MCP loop (the servers' state lives there): :meth:`tools_named`'s work."""
        servers = [p.split("__")[1] or "*" for p in wanted]  # the server part of each pattern
        waiting = [
            name
            for name, state in self.manager.servers.items()
            if state.config.enabled
            and state.status == "connecting"
            and any(fnmatch.fnmatchcase(mcp_namespace(name), server) for server in servers)
        ]
        if waiting:
            await self.manager.wait_ready(waiting, DIRECT_WAIT_S)
        tools = [tool for tool, exposure in self.manager.all_tools() if exposure != "hidden"]
        chosen = [tool for pattern in wanted for tool in tools if fnmatch.fnmatchcase(tool.name, pattern)]
        return list(dict.fromkeys(chosen))

    # --- the agent's turn hook ---------------------------------------------------------------

    async def before_run(self, agent: Agent) -> None:
        """Before a run: re-declare what ``tool_search`` loaded on this branch, wait for servers
        whose tools the request must carry, and give the agent the current MCP tools."""
        await self.sync_loaded(agent.state.messages)
        wait = self._servers_to_wait_for()
        if wait:
            await self.run(self.manager.wait_ready(wait, DIRECT_WAIT_S))
        self._agent = agent
        agent.state.tools = [t for t in agent.state.tools if not is_mcp_tool(t)] + self.tools()

    async def next_turn(self, turn: TurnContext, signal: AbortSignal | None) -> NextTurnUpdate | None:
        """After a turn: a changed MCP tool set (``tool_search`` loaded some) for the next request."""
        context = turn.context
        current = [t for t in context.tools if is_mcp_tool(t)]
        wanted = self.tools()
        if [t.name for t in current] == [t.name for t in wanted]:
            return None
        tools = [t for t in context.tools if not is_mcp_tool(t)] + wanted
        if self._agent is not None:
            self._agent.state.tools = [t for t in self._agent.state.tools if not is_mcp_tool(t)] + wanted
        return NextTurnUpdate(context=AgentContext(context.system_prompt, context.messages, tools))


def _has_direct(config: Any) -> bool:
    return bool(config.exposure == "direct" or "direct" in config.tool_exposure.values())


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
