"""One ``subagent`` call: its children run (at most the session's limit at once), report
progress, and end — all of them at once when the parent's run is aborted.

Each child is built by the session's child factory, given its task as its prompt, and watched
through its session's events (:class:`~pi_cli.session.subagents.progress.ChildProgress`). While
a child runs, :data:`~pi_cli.agent.tool_exec.current_agent` names it and its cwd, so a dialog
opened for one of its calls (the approval gate's, the sandbox's) says which child asks, and the
gate judges its relative paths from the child's folder.

Progress reaches the parent as partial results of the call (``tool_execution_update`` events),
throttled: at most one per :data:`UPDATE_INTERVAL_S` while something changes, and a heartbeat
every :data:`HEARTBEAT_S` while a child runs (its elapsed time moves on). A partial result's
text is :func:`~pi_cli.session.subagents.display.progress_text`; its ``details`` are
``{"mode": "single" | "parallel", "results": [child, …]}``.

The parent's abort signal aborts every running child at once (each ends its tool processes the
way an aborted session does), children not started yet are skipped, and the call returns what
each had: its answer so far, status ``aborted``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.agent.tool_exec import AgentScope, current_agent
from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.errors import PiError
from pi_cli.session.subagents.display import progress_text, result_text
from pi_cli.session.subagents.progress import ChildProgress

if TYPE_CHECKING:
    from pi_cli.resources.agents import AgentDefinition
    from pi_cli.session.subagents.host import SessionLike

UPDATE_INTERVAL_S = 0.1
HEARTBEAT_S = 1.0


def _one_line(exc: BaseException) -> str:
    """A child's failure as one line (a PiError's own message, else the exception's type too)."""
    if isinstance(exc, PiError):
        return " ".join(str(exc).removeprefix("Error: ").split())
    return " ".join(f"{type(exc).__name__}: {exc}".split())


@dataclass(frozen=True, slots=True)
class ChildRequest:
    """What a child is built for: the agent, its task, where it works, the call's ``model``
    override (or None) and its label (the agent's name, ``#2`` … for repeats in one call)."""

    agent: AgentDefinition
    task: str
    cwd: Path
    model: str | None
    label: str


@dataclass(slots=True)
class ChildRun:
    """One child of a call: what it was asked, how it is doing, and its session once built."""

    request: ChildRequest
    progress: ChildProgress
    session: SessionLike | None = None
    aborting: asyncio.Task[None] | None = field(default=None, repr=False)


class SubagentCall:
    """The children of one call (see the module docstring)."""

    def __init__(
        self,
        requests: list[ChildRequest],
        spawn: Callable[[ChildRequest], Awaitable[SessionLike]],
        slots: asyncio.Semaphore,
        on_update: OnUpdate | None,
        on_child: Callable[[int, SessionLike], None] | None = None,
    ) -> None:
        self.mode = "single" if len(requests) == 1 else "parallel"
        self.children = [
            ChildRun(r, ChildProgress(r.agent, r.label, r.task, str(r.cwd))) for r in requests
        ]  # fmt: skip
        self._spawn = spawn
        self._slots = slots
        self._on_update = on_update
        self._on_child = on_child
        self._aborted = False
        self._timer: asyncio.TimerHandle | None = None
        self._last_update = 0.0
        self._done = False

    # -- running -----------------------------------------------------------------------------

    async def run(self, signal: AbortSignal | None) -> AgentToolResult:
        """Run every child; returns the call's result (never raises for a child's failure)."""
        if signal is not None and signal.aborted:
            self._abort_all()
        remove = signal.add_callback(self._abort_all) if signal is not None else None
        heartbeat = asyncio.ensure_future(self._heartbeat()) if self._on_update is not None else None
        try:
            self._update(now=True)
            await asyncio.gather(*(self._run_child(index, child) for index, child in enumerate(self.children)))
        finally:
            self._done = True
            if remove is not None:
                remove()
            if heartbeat is not None:
                heartbeat.cancel()
            if self._timer is not None:
                self._timer.cancel()
            for child in self.children:  # an abort still settling (the child's run has ended)
                if child.aborting is not None:
                    with contextlib.suppress(Exception):
                        await child.aborting
        return self.result()

    async def _run_child(self, index: int, child: ChildRun) -> None:
        progress = child.progress
        async with self._slots:
            if self._aborted:
                progress.skip()
                return
            progress.start()
            self._update(now=True)
            try:
                session = await self._spawn(child.request)
            except Exception as exc:  # one child that cannot be built must not sink the others
                progress.fail(_one_line(exc))
                self._update(now=True)
                return
            child.session = session
            progress.attach(session)
            if self._on_child is not None:
                self._on_child(index, session)
            try:
                await self._prompt(child, session)
            except Exception as exc:  # never let one child's failure leave the others unawaited
                progress.fail(_one_line(exc))

    async def _prompt(self, child: ChildRun, session: SessionLike) -> None:
        progress = child.progress

        def listen(event: dict[str, Any]) -> None:
            if self._aborted and child.aborting is None and session.is_streaming:
                child.aborting = asyncio.ensure_future(session.abort())  # a run that began after the abort
            if progress.on_event(event):
                self._update()

        unsubscribe = session.subscribe(listen)
        token = current_agent.set(AgentScope(child.request.label, str(child.request.cwd)))
        prompted = False
        try:
            if not self._aborted:
                prompted = True
                await session.prompt(child.request.task)
        except Exception as exc:  # a refused prompt (no key, …) or a bug: this child's error line
            progress.fail(_one_line(exc))
        finally:
            current_agent.reset(token)
            unsubscribe()
            progress.finish(session, aborted=child.aborting is not None or not prompted)
            await session.dispose()
            self._update(now=True)

    def _abort_all(self) -> None:
        """The parent's abort: every running child at once; the ones not started are skipped."""
        self._aborted = True
        for child in self.children:
            session = child.session
            if session is not None and child.aborting is None and session.is_streaming:
                child.aborting = asyncio.ensure_future(session.abort())

    # -- progress ----------------------------------------------------------------------------

    def details(self) -> dict[str, Any]:
        now = int(time.time() * 1000)
        return {"mode": self.mode, "results": [child.progress.to_json(now) for child in self.children]}

    def _update(self, now: bool = False) -> None:
        """A partial result now (``now``: something a front end shows at once changed), else
        within :data:`UPDATE_INTERVAL_S` of the previous one."""
        if self._on_update is None or self._done:
            return
        wait = UPDATE_INTERVAL_S - (time.monotonic() - self._last_update)
        if now or wait <= 0:
            self._flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(wait, self._flush)

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._on_update is None or self._done:
            return
        self._last_update = time.monotonic()
        details = self.details()
        self._on_update(AgentToolResult(content=[{"type": "text", "text": progress_text(details)}], details=details))

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            if any(child.progress.status == "running" for child in self.children):
                self._update()

    def result(self) -> AgentToolResult:
        """The call's result: one labelled section per child, and the details."""
        details = self.details()
        text = result_text(details["results"], [child.progress.answer for child in self.children])
        return AgentToolResult(content=[{"type": "text", "text": text}], details=details)
