"""One session's subagents: its agents, how its children are built, and its recent calls.

:class:`SubagentRuntime` is a session part (``SessionParts.subagents`` → ``session.subagents``),
built by the session's assembly with the agent catalog and the child factory — the assembly's
:func:`~pi_cli.session.assembly.children.build_child_session`, handed in so this package never
imports the assembly — and bound to its session once that exists. The ``subagent`` tool in the
session's tool list (:class:`~pi_cli.session.subagents.tool.SubagentTool`) runs its calls here.

Front ends read :meth:`children` of a call (each child's progress and, once built, its
:class:`~pi_cli.session.agent_session.AgentSession`, whose transcript a card can show) and may
:meth:`watch` children as they are created, to follow one live.

Children run at most ``max_concurrency`` at a time per session; a child's own subagent calls
(depth 2) have their own limit, so a parent waiting on its children never starves them.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from pi_cli.session.subagents.calls import ChildRequest, ChildRun, SubagentCall
from pi_cli.session.subagents.host import SessionLike

if TYPE_CHECKING:
    from pi_cli.resources.agents import AgentCatalog, AgentDefinition

S = TypeVar("S", bound=SessionLike)  # the session type (AgentSession), parent and child alike

MAX_DEPTH = 2  # the parent is depth 0; its children 1; theirs 2, which get no subagent tool
_KEPT_CALLS = 8  # recent calls whose children stay reachable for the front ends


class ChildFactory(Protocol[S]):
    """Builds a child session of ``parent`` at ``depth`` (1 or 2); raises a
    :class:`~pi_cli.errors.PiError` with one line when it cannot (unknown model, bad cwd)."""

    def __call__(self, parent: S, request: ChildRequest, depth: int) -> Awaitable[S]: ...


ChildWatcher = Callable[[str, int, SessionLike], None]  # (toolCallId, index, child session)


class SubagentRuntime(Generic[S]):
    """See the module docstring. ``depth`` is the session's own (0 for a top-level session)."""

    def __init__(self, catalog: AgentCatalog, spawn: ChildFactory[S], max_concurrency: int = 4, depth: int = 0) -> None:
        self.catalog = catalog
        self.depth = depth
        self.max_concurrency = max(1, int(max_concurrency))
        self._spawn = spawn
        self._session: S | None = None
        self._slots: asyncio.Semaphore | None = None
        self._calls: OrderedDict[str, SubagentCall] = OrderedDict()
        self._watchers: tuple[ChildWatcher, ...] = ()

    def bind(self, session: S) -> None:
        """Serve ``session`` (called once by the assembly, after the session is built)."""
        self._session = session

    @property
    def session(self) -> S:
        if self._session is None:
            raise RuntimeError("the subagent runtime is not bound to a session yet")
        return self._session

    @property
    def slots(self) -> asyncio.Semaphore:
        """The session-wide limit on running children (made on the running loop)."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_concurrency)
        return self._slots

    def agent_named(self, name: str) -> AgentDefinition | None:
        return self.catalog.get(name)

    async def spawn(self, request: ChildRequest) -> S:
        """A child session for ``request`` (see :class:`ChildFactory`)."""
        return await self._spawn(self.session, request, self.depth + 1)

    # -- calls, for the front ends -----------------------------------------------------------

    def remember(self, call_id: str, call: SubagentCall) -> None:
        self._calls[call_id] = call
        self._calls.move_to_end(call_id)
        while len(self._calls) > _KEPT_CALLS:
            self._calls.popitem(last=False)

    def children(self, call_id: str) -> list[ChildRun]:
        """The children of the ``subagent`` call ``call_id`` (empty when unknown or forgotten)."""
        call = self._calls.get(call_id)
        return list(call.children) if call is not None else []

    def watch(self, watcher: ChildWatcher) -> Callable[[], None]:
        """Call ``watcher(tool_call_id, index, child_session)`` as each child session is built
        (before its run starts, so subscribing to it misses nothing); returns an unsubscribe."""
        self._watchers = (*self._watchers, watcher)

        def unwatch() -> None:
            self._watchers = tuple(w for w in self._watchers if w is not watcher)

        return unwatch

    def child_started(self, call_id: str, index: int, session: SessionLike) -> None:
        for watcher in self._watchers:
            try:
                watcher(call_id, index, session)
            except Exception:  # a front end's watcher must never break a run
                continue
