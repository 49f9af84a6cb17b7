"""Prompting half of :class:`~pi_cli.session.agent_session.AgentSession`: how text becomes a run.

Preflight (``/skill:`` and template expansion, the busy check with ``streamingBehavior``, model
and key validation; extensions' commands and ``input`` handlers first when they want the text),
the run itself with its follow-through (auto-retries, continuation after overflow compaction) and
``agent_settled`` once nothing more will run, the steering/follow-up queues with their
``queue_update`` events, aborting, and extensions' custom messages.

:class:`PromptingMixin` is a base class of AgentSession and is not used on its own: it works on the
session's agent, components and event hub, declared below for the type checker.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from pi_cli.ai.types import ImageContent, Model, now_ms
from pi_cli.errors import AgentBusyError, MissingApiKeyError, ModelError

if TYPE_CHECKING:
    from pi_cli.session.auto_compaction import AutoCompactor
    from pi_cli.session.checkpointing import SessionCheckpoints
    from pi_cli.session.events import EventHub
    from pi_cli.session.model_control import ModelControl
    from pi_cli.session.queues import QueueTracker
    from pi_cli.session.retry import AutoRetry
    from pi_cli.session.store_bridge import SessionStoreBridge


class PromptingMixin:
    """AgentSession's prompt, queue and abort methods (the AgentSession docstring lists the API)."""

    # Set by AgentSession.__init__.
    agent: Any
    resources: Any
    extensions: Any
    store: SessionStoreBridge
    models: ModelControl
    compactor: AutoCompactor
    retry: AutoRetry
    checkpoints: SessionCheckpoints
    _hub: EventHub
    _queues: QueueTracker
    _busy: bool
    _abort_requested: bool  # abort() was called during the current run: deliver nothing more
    _settling: asyncio.Future[None] | None  # set while agent_settled is being announced

    if TYPE_CHECKING:  # AgentSession's

        @property
        def model(self) -> Model | None: ...

        @property
        def is_streaming(self) -> bool: ...

        def _flush_pending_bash(self) -> None: ...

    # -- prompting ---------------------------------------------------------------------------

    def expand_text(self, text: str) -> str:
        """Expand ``/skill:name args`` and ``/template args`` (unknown commands pass through)."""
        if not text.startswith("/") or self.resources is None:
            return text
        expanded: str = self.resources.expand_input(text)
        return expanded

    def get_commands(self) -> list[dict[str, Any]]:
        """Prompt templates and skills in RPC ``get_commands`` shape."""
        if self.resources is None:
            return [] if self.extensions is None else self.extensions.command_list()
        commands: list[dict[str, Any]] = self.resources.commands()
        if self.extensions is not None:
            commands = [*self.extensions.command_list(), *commands]
        return commands

    def command_names(self) -> list[tuple[str, str]]:
        """``(name, description)`` of prompt templates and skills, for command completion."""
        return [(c["name"], str(c.get("description") or "")) for c in self.get_commands()]

    async def prompt(
        self, text: str, images: list[ImageContent] | None = None, streaming_behavior: str | None = None
    ) -> None:
        """Send a prompt and wait until the run (with retries) settles; queues it while streaming
        when ``streaming_behavior`` is ``"steer"`` or ``"followUp"``; raises :class:`AgentBusyError`
        when streaming without one, :class:`ModelError` when no usable model is set."""
        run = self.begin_prompt(text, images, streaming_behavior)
        if run is not None:
            await run

    def begin_prompt(
        self, text: str, images: list[ImageContent] | None = None, streaming_behavior: str | None = None
    ) -> Coroutine[Any, Any, None] | None:
        """Preflight a prompt synchronously; returns the coroutine that runs it (None if queued).

        The RPC server answers ``prompt`` after this returns, before ``agent_start``. With
        extensions, commands and ``input`` handlers run first (inside the returned coroutine)."""
        ext = self.extensions
        if ext is not None and ext.wants_prompt(text):
            return ext.run_prompt(text, images, streaming_behavior, self._begin_prompt_core)  # type: ignore[no-any-return]
        return self._begin_prompt_core(text, images, streaming_behavior)

    async def prepare_prompt(
        self,
        text: str,
        images: list[ImageContent] | None = None,
        streaming_behavior: str | None = None,
        source: str = "interactive",
    ) -> tuple[str, Coroutine[Any, Any, None] | None]:
        """Everything before the run, as pi's prompt preflight: (disposition, run). ``handled``: an
        extension command ran or ``input`` handlers consumed the text; ``queued``; ``started``: the
        returned run is to be awaited. Raises as :meth:`prompt` for a refused prompt."""
        ext = self.extensions
        if ext is not None and ext.wants_prompt(text):
            prepared: tuple[str, Coroutine[Any, Any, None] | None] = await ext.prepare_prompt(
                text, images, streaming_behavior, self._begin_prompt_core, source
            )
            return prepared
        run = self._begin_prompt_core(text, images, streaming_behavior)
        return ("queued" if run is None else "started"), run

    def begin_prepared(
        self, text: str, images: list[ImageContent] | None = None, streaming_behavior: str | None = None
    ) -> Coroutine[Any, Any, None] | None:
        """:meth:`begin_prompt` for text that extensions' commands and ``input`` handlers have
        already seen: queued while streaming, else the run's coroutine."""
        return self._begin_prompt_core(text, images, streaming_behavior)

    def _begin_prompt_core(
        self, text: str, images: list[ImageContent] | None = None, streaming_behavior: str | None = None
    ) -> Coroutine[Any, Any, None] | None:
        expanded = self.expand_text(text)
        if self.is_streaming:
            if streaming_behavior == "followUp":
                self._queue("followUp", expanded, images)
                return None
            if streaming_behavior == "steer":
                self._queue("steer", expanded, images)
                return None
            raise AgentBusyError()
        model = self.model
        if model is None:
            raise ModelError("No model selected.", hint="Set an API key environment variable or use --model.")
        if not self.models.has_credentials(model):
            raise MissingApiKeyError(model["provider"], self.models.env_var_for(model["provider"]))
        self._flush_pending_bash()
        content: list[Any] = [{"type": "text", "text": expanded}, *(images or [])]
        message = {"role": "user", "content": content, "timestamp": now_ms()}
        self._busy = True
        self.compactor.overflow_attempted = False
        if self.extensions is not None:
            return self._run(lambda: self.extensions.start_run(self.agent, message, self._follow_through))
        return self._run(lambda: self.agent.prompt([message]), own_follow_through=False)

    async def _run(self, start: Callable[[], Any], own_follow_through: bool = True) -> None:
        """Run ``start`` then, unless it is ``own_follow_through`` (extensions' ``start_run`` runs
        it inside the run's system prompt), its follow-through; then settle.

        The session counts as streaming (``_busy``) from preflight until the synchronous step that
        finds nothing left to deliver, so text queued at any point before that step is delivered
        by this run, and text submitted after it starts the next one (never neither)."""
        settling = self._settling
        if settling is not None:  # the previous run is still announcing agent_settled (as pi)
            await asyncio.shield(settling)
        self._abort_requested = False
        try:
            await self.checkpoints.before_run()
            await start()
            if not own_follow_through:
                await self._follow_through()
        finally:
            self._busy = False
            self._flush_pending_bash()
            done = self._settling = asyncio.get_running_loop().create_future()
            try:
                # pi 1.6: nothing more will run on its own (retries, compaction, queued messages).
                await self._hub.emit({"type": "agent_settled", "aborted": self._last_stop() == "aborted"})
            finally:
                self._settling = None
                done.set_result(None)

    async def _follow_through(self) -> None:
        """Automatic retries, post-compaction continuations and queued messages of the run just
        started, until nothing is left. The agent polls its queues only after a turn; a message
        queued after the last poll (while ``agent_end`` listeners, a retry or a compaction ran)
        needs one more continuation, as pi's ``_handlePostAgentRun`` gives it. After an abort the
        queues are left as they are: the front end hands them back (TUI, inline) or keeps them (RPC)."""
        while True:
            await self.retry.run_loop()
            if await self.compactor.after_run():
                await self.agent.continue_()
                continue
            if self._abort_requested or self._last_stop() == "aborted" or not self.agent.has_queued_messages():
                return
            await self.agent.continue_()

    def _last_stop(self) -> str | None:
        for message in reversed(self.agent.state.messages):
            if message.get("role") == "assistant":
                return str(message.get("stopReason"))
        return None

    def abort_retry(self) -> None:
        """Cancel a pending auto-retry wait (emits ``auto_retry_end{success:false}``)."""
        self.retry.abort()

    async def abort(self) -> None:
        """Stop the current run (and any retry wait or compaction) and wait until the agent is idle."""
        self._abort_requested = True
        self.abort_retry()
        self.compactor.abort()
        self.agent.abort()
        await self.agent.wait_for_idle()

    def add_custom_message(
        self, message: dict[str, Any], trigger_turn: bool = False
    ) -> Coroutine[Any, Any, None] | None:
        """An extension's custom message while idle: appended to the transcript, or (with
        ``trigger_turn``) the start of a run, whose coroutine is returned."""
        if trigger_turn:
            self._busy = True
            return self._run(lambda: self.agent.prompt([message]), own_follow_through=False)
        self.agent.state.messages = [*self.agent.state.messages, message]
        self.store.append_message(message)
        return None

    # -- queues ------------------------------------------------------------------------------

    def steer(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Queue a steering message: delivered after the running tool batch, before the next call."""
        self._queue("steer", self.expand_text(text), images)

    def follow_up(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Queue a follow-up: delivered when the agent would otherwise stop."""
        self._queue("followUp", self.expand_text(text), images)

    def _queue(self, kind: str, text: str, images: list[ImageContent] | None) -> None:
        self._queues.enqueue(self.agent, kind, text, images)
        self._hub.emit_nowait(self._queues.event())

    def clear_queues(self) -> tuple[list[str], list[str]]:
        """Drop every queued message; returns their texts (steering, follow-up) for the editor."""
        cleared = self._queues.clear(self.agent)
        self._hub.emit_nowait(self._queues.event())
        return cleared
