"""How a session runs the agent, and when a run is over: :class:`RunControl`.

A run starts from a user message (after the session's preflight) or an extension's custom
message. Extensions' ``before_agent_start`` decides the run's system prompt and extra messages
(:func:`pi_cli.extensions.prompts.before_agent_start`); the prompt holds for the whole run, its
automatic retries and compaction continuations included (pi 1.6.0). After the agent's loop
returns, the run's follow-through retries a transient error, continues after an overflow
compaction, and delivers what was queued after the agent's last queue poll; then the run settles
(``agent_settled``). The session counts as streaming (:attr:`RunControl.active`) from the
synchronous step that starts a run until the synchronous step that finds nothing left to deliver,
so a message queued at any moment in between is delivered by that run, and one submitted after
it starts the next run (issue 32).

The queues are the agent's (one state): the texts listed in ``queue_update`` events are the user
messages waiting there, announced when one is queued, cleared, or admitted by the agent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from pi_cli.agent.agent import Agent
from pi_cli.agent.types import AgentMessage
from pi_cli.ai.types import ImageContent, now_ms
from pi_cli.session.auto_compaction import AutoCompactor
from pi_cli.session.checkpointing import SessionCheckpoints
from pi_cli.session.events import EventHub
from pi_cli.session.retry import AutoRetry
from pi_cli.store.entry_messages import user_text

if TYPE_CHECKING:
    from pi_cli.extensions.runner import ExtensionRunner

Run = Coroutine[Any, Any, None]


def queued_texts(messages: Sequence[AgentMessage]) -> list[str]:
    """The texts of the queued user messages (custom messages queued by extensions are not listed)."""
    return [user_text(cast(dict[str, Any], m)) for m in messages if m.get("role") == "user"]


@dataclass(eq=False)
class RunControl:
    """One session's runs: starting them, their follow-through, settling, aborting, queueing."""

    agent: Agent
    hub: EventHub
    retry: AutoRetry
    compactor: AutoCompactor
    checkpoints: SessionCheckpoints
    extensions: ExtensionRunner | None
    after_run: Callable[[], None]  # e.g. the user's ``!`` commands held back during the run
    _busy: bool = field(default=False, init=False)
    _abort_requested: bool = field(default=False, init=False)
    _settling: asyncio.Future[None] | None = field(default=None, init=False)
    _announced: tuple[int, int] = field(default=(0, 0), init=False)  # queue lengths of the last queue_update
    # The session's own prompt while a user run may hold a before_agent_start replacement:
    # what the prompt goes back to when the run settles (None outside such a run).
    _base_prompt: str | None = field(default=None, init=False)

    @property
    def active(self) -> bool:
        """True from the start of a run (its preflight included) until it has settled."""
        return self._busy or self.agent.state.is_streaming

    # -- starting runs ---------------------------------------------------------------------------

    def start_user_run(self, message: dict[str, Any]) -> Run:
        """Mark the session busy now and return the run of a user message (to be awaited)."""
        self._busy = True
        self.compactor.overflow_attempted = False
        return self._run(self._user_run(message))

    def start_custom_run(self, message: dict[str, Any]) -> Run:
        """Mark the session busy now and return a run that starts with an extension's message."""
        self._busy = True
        return self._run(self._custom_run(message))

    async def _user_run(self, message: dict[str, Any]) -> None:
        agent, ext = self.agent, self.extensions
        messages: list[Any] = [message]
        original = self._base_prompt = agent.state.system_prompt
        try:
            if ext is not None:
                from pi_cli.extensions.prompts import before_agent_start

                decision = await before_agent_start(ext, message, original, ext.take_next_turn())
                messages.extend(decision.messages)
                if decision.system_prompt is not original:  # a handler replaced it for this run
                    agent.state.system_prompt = decision.system_prompt
            await agent.prompt(messages)
            await self._follow_through()
        finally:
            base, self._base_prompt = self._base_prompt, None
            if base is not None and agent.state.system_prompt is not base:
                agent.state.system_prompt = base

    def set_base_prompt(self, prompt: str) -> None:
        """The session's own system prompt changed (its tool set did): it applies now, unless a
        ``before_agent_start`` replacement holds for the current run — then it is the prompt the
        run goes back to when it settles."""
        agent = self.agent
        replaced = self._base_prompt is not None and agent.state.system_prompt is not self._base_prompt
        if self._base_prompt is not None:
            self._base_prompt = prompt
        if not replaced:
            agent.state.system_prompt = prompt

    async def _custom_run(self, message: dict[str, Any]) -> None:
        await self.agent.prompt([message])
        await self._follow_through()

    async def _run(self, body: Run) -> None:
        settling = self._settling
        if settling is not None:  # the previous run is still announcing agent_settled (as pi)
            await asyncio.shield(settling)
        self._abort_requested = False
        try:
            await self.checkpoints.before_run()
            await body
        finally:
            body.close()  # a body never awaited (before_run raised) must not warn
            self._busy = False
            self.after_run()
            done = self._settling = asyncio.get_running_loop().create_future()
            try:
                # pi 1.6: nothing more will run on its own (retries, compaction, queued messages).
                await self.hub.emit({"type": "agent_settled", "aborted": self.last_stop() == "aborted"})
            finally:
                self._settling = None
                done.set_result(None)

    async def _follow_through(self) -> None:
        """Automatic retries, post-compaction continuations and queued messages of the run just
        started, until nothing is left. The agent polls its queues only after a turn; a message
        queued after the last poll needs one more continuation (pi's ``_handlePostAgentRun``).
        After an abort the queues are left as they are: the front end hands them back (TUI,
        inline) or keeps them (RPC)."""
        agent = self.agent
        while True:
            await self.retry.run_loop()
            if await self.compactor.after_run():
                await agent.continue_()
                continue
            if self._abort_requested or self.last_stop() == "aborted" or not agent.has_queued_messages():
                return
            await agent.continue_()

    def last_stop(self) -> str | None:
        """The ``stopReason`` of the last assistant message."""
        for message in reversed(self.agent.state.messages):
            if message.get("role") == "assistant":
                return str(message.get("stopReason"))
        return None

    async def abort(self) -> None:
        """Stop the current run (and any retry wait or compaction) and wait until the agent is idle."""
        self._abort_requested = True
        self.retry.abort()
        self.compactor.abort()
        self.agent.abort()
        await self.agent.wait_for_idle()

    # -- queues ------------------------------------------------------------------------------------

    def queue(self, kind: str, text: str, images: list[ImageContent] | None) -> None:
        """Queue a user message on the agent (``kind``: ``"steer"`` or ``"followUp"``) and announce it."""
        content: list[Any] = [{"type": "text", "text": text}, *(images or [])]
        message = {"role": "user", "content": content, "timestamp": now_ms()}
        (self.agent.steer if kind == "steer" else self.agent.follow_up)(message)
        self.hub.emit_nowait(self.queue_event())

    def clear(self, only_if_changed: bool = False) -> tuple[list[str], list[str]]:
        """Drop every queued message; returns the user texts (steering, follow-up) for the editor.

        A ``queue_update`` follows, unless ``only_if_changed`` and nothing was queued: pi 1.6.0
        sends none when new/fork/clone/switch find the queues already empty.
        """
        steering_queue = self.agent.clear_steering_queue()
        follow_up_queue = self.agent.clear_follow_up_queue()
        if steering_queue or follow_up_queue or not only_if_changed:
            self.hub.emit_nowait(self.queue_event())
        return queued_texts(steering_queue), queued_texts(follow_up_queue)

    def texts(self) -> tuple[list[str], list[str]]:
        """The queued user texts: (steering, follow-up), oldest first."""
        return queued_texts(self.agent.steering_queue), queued_texts(self.agent.follow_up_queue)

    def queue_event(self) -> dict[str, Any]:
        steering, follow_up = self.texts()
        self._announced = (len(self.agent.steering_queue), len(self.agent.follow_up_queue))
        return {"type": "queue_update", "steering": steering, "followUp": follow_up}

    def admitted(self) -> dict[str, Any] | None:
        """The ``queue_update`` to announce when the agent has taken queued messages since the
        last one (called at each user ``message_start``), else None."""
        now = (len(self.agent.steering_queue), len(self.agent.follow_up_queue))
        return None if now == self._announced else self.queue_event()
