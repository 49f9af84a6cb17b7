"""AgentSession: the one object print, json, rpc, inline and TUI modes share.

It owns the :class:`~pi_cli.agent.agent.Agent` and adds what a coding session needs on top:
prompt preflight (template/skill expansion, the busy check with ``streamingBehavior``, model and
key validation), steering/follow-up queues with ``queue_update`` events, auto-retry of transient
provider errors (``auto_retry_start``/``auto_retry_end``), model and thinking-level changes, the
user's own bash runs, persistence through the session manager, and statistics. Prompting (preflight,
the run and its follow-through, queues, abort) is its base class
:class:`~pi_cli.session.prompting.PromptingMixin`; the other concerns are components built here.

Events: ``subscribe(listener)`` delivers every agent event (pi's field names) plus
``queue_update{steering, followUp}``, ``auto_retry_start{attempt, maxAttempts, delayMs,
errorMessage}``, ``auto_retry_end{success, attempt, finalError?}``, ``thinking_level_changed{level}``
and ``session_info_changed{name}``. Listeners take one argument and may be async (awaited in order).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, cast

from pi_cli.ai.types import Model
from pi_cli.session import session_ops
from pi_cli.session.auto_compaction import AutoCompactor
from pi_cli.session.bash_runs import BashRunner
from pi_cli.session.checkpointing import SessionCheckpoints
from pi_cli.session.events import EventHub, SessionListener
from pi_cli.session.model_control import ModelControl
from pi_cli.session.prompting import PromptingMixin
from pi_cli.session.queues import QueueTracker
from pi_cli.session.retry import AutoRetry, RetryPolicy
from pi_cli.session.store_bridge import SessionStoreBridge
from pi_cli.store import stats as _stats


class AgentSession(PromptingMixin):
    """Build one with :func:`pi_cli.session.factory.create_agent_session`.

    State: ``agent``, ``cwd``, ``settings``, ``model_registry``, ``resources``, ``store``, ``model``,
    ``thinking_level``, ``messages``, ``is_streaming``, ``is_retrying``, ``is_compacting``,
    ``is_bash_running``, ``steering_mode``/``follow_up_mode`` (+ ``set_*``), ``steering_messages``,
    ``follow_up_messages``, ``pending_message_count``, ``session_id``, ``session_file``,
    ``session_name``, ``auto_retry_enabled``/``auto_compaction_enabled`` (+ ``set_*``),
    ``startup_notices``, ``model_source``.
    Prompting (:class:`PromptingMixin`): ``await prompt(text, images=None, streaming_behavior=None)``,
    ``begin_prompt(...)``, ``steer(text, images=None)``, ``follow_up(text, images=None)``,
    ``clear_queues()``, ``await abort()``, ``abort_retry()``, ``expand_text(text)``, ``get_commands()``,
    ``command_names()``.
    Models: ``set_model(model)``, ``cycle_model(direction)``, ``set_thinking_level(level)``,
    ``cycle_thinking_level()``, ``available_models()``.
    User bash: ``await run_bash(command, exclude_from_context=False, on_chunk=None)``, ``abort_bash()``.
    Session: ``set_session_name(name)``, ``await new_session()``, ``await switch_session(path)``,
    ``await fork(entry_id)``, ``await clone()``, ``get_fork_messages()``, ``await export_html(path)``,
    ``await compact(instructions)``. Stats: ``get_session_stats()``, ``context_usage()``,
    ``get_last_assistant_text()``. ``save_setting(key, value)``, ``subscribe(listener)``,
    ``await dispose()``.
    """

    def __init__(
        self,
        *,
        agent: Any,
        cwd: Path,
        settings: Any = None,
        model_registry: Any = None,
        store: SessionStoreBridge | None = None,
        scoped_models: list[tuple[Model, str | None]] | None = None,
        resources: Any = None,
        save_setting: Callable[[str, Any], None] | None = None,
    ) -> None:
        self.agent = agent
        self.cwd = cwd
        self.settings = settings
        self.model_registry = model_registry
        self.store = store or SessionStoreBridge(None, cwd)
        self.resources = resources
        self.startup_notices: list[str] = []
        self.resume_requested = False  # ``pi -r``: the UI should offer its session picker
        self.model_source = "cli"  # cli | scope | session | settings | available | local | demo
        self.extensions: Any = None  # pi_cli.extensions.ExtensionRunner, bound by attach_extensions
        self.retry = AutoRetry(self, RetryPolicy.from_settings(settings))
        self._hub = EventHub()
        self._queues = QueueTracker()
        self._pending_bash: list[dict[str, Any]] = []
        self._busy = False
        self._abort_requested = False
        self._settling: asyncio.Future[None] | None = None
        self._save_setting = save_setting
        self.models = ModelControl(self, scoped_models or [])
        self.compactor = AutoCompactor(self)
        prefix = getattr(settings, "shell_command_prefix", None)
        self._bash = BashRunner(cwd, prefix if isinstance(prefix, str) else None)
        self.checkpoints = SessionCheckpoints(self)  # file snapshots for rewind (issue 18)
        self._unsubscribe_agent = agent.subscribe(self._on_agent_event)

    # -- state -------------------------------------------------------------------------------

    @property
    def model(self) -> Model | None:
        model: Model | None = self.agent.state.model
        return model

    @property
    def thinking_level(self) -> str:
        return str(self.agent.state.thinking_level or "off")

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.agent.state.messages)

    def message_view(self) -> Sequence[dict[str, Any]]:
        """The messages without decoding a resumed huge session's bodies (see
        :class:`~pi_cli.store.lazy_context.LazyMessages`): for counting, the last few, statistics."""
        return cast(Sequence[dict[str, Any]], self.agent.state.message_view())

    @property
    def is_streaming(self) -> bool:
        """True from prompt preflight until the run (including retries) has settled."""
        return self._busy or bool(self.agent.state.is_streaming)

    @property
    def is_retrying(self) -> bool:
        return self.retry.waiting

    @property
    def is_compacting(self) -> bool:
        return self.compactor.running

    async def compact_now(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Manual compaction (``/compact``, RPC ``compact``); returns pi's result JSON."""
        if self.is_streaming:
            await self.abort()
        return await self.compactor.compact("manual", custom_instructions)

    @property
    def is_bash_running(self) -> bool:
        return self._bash.running

    @property
    def steering_mode(self) -> str:
        return str(self.agent.steering_mode)

    @property
    def follow_up_mode(self) -> str:
        return str(self.agent.follow_up_mode)

    def set_steering_mode(self, mode: str) -> None:
        self.agent.steering_mode = mode

    def set_follow_up_mode(self, mode: str) -> None:
        self.agent.follow_up_mode = mode

    @property
    def steering_messages(self) -> list[str]:
        return list(self._queues.steering)

    @property
    def follow_up_messages(self) -> list[str]:
        return list(self._queues.follow_up)

    @property
    def pending_message_count(self) -> int:
        return len(self._queues.steering) + len(self._queues.follow_up)

    @property
    def session_id(self) -> str:
        return self.store.session_id

    @property
    def session_file(self) -> str | None:
        return self.store.session_file

    @property
    def session_name(self) -> str | None:
        return self.store.session_name

    @property
    def auto_retry_enabled(self) -> bool:
        return self.retry.policy.enabled

    def set_auto_retry_enabled(self, enabled: bool) -> None:
        self.retry.policy.enabled = enabled
        self.save_setting("retry.enabled", enabled)

    @property
    def auto_compaction_enabled(self) -> bool:
        return self.compactor.enabled

    def set_auto_compaction_enabled(self, enabled: bool) -> None:
        self.compactor.enabled = enabled
        self.save_setting("compaction.enabled", enabled)

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Receive agent and session events; returns an unsubscribe function."""
        return self._hub.subscribe(listener)

    # -- model and thinking (delegated, kept here as the public API) --------------------------

    def set_model(self, model: Model) -> None:
        previous = self.model
        self.models.set_model(model)
        self._model_selected(model, previous, "set")

    def cycle_model(self, direction: str = "forward") -> dict[str, Any] | None:
        previous = self.model
        result = self.models.cycle_model(direction)
        if result is not None:
            self._model_selected(result["model"], previous, "cycle")
        return result

    def _model_selected(self, model: Model, previous: Model | None, source: str) -> None:
        """Extensions' ``model_select`` (pi fires it for /model, cycling and pi.set_model)."""
        if self.extensions is not None:
            event = {"type": "model_select", "model": model, "previousModel": previous, "source": source}
            self.extensions.notify(event)

    def set_thinking_level(self, level: str) -> str:
        return self.models.set_thinking_level(level)

    def cycle_thinking_level(self) -> str | None:
        return self.models.cycle_thinking_level()

    def available_models(self) -> list[Model]:
        return self.models.available_models()

    # -- agent events ------------------------------------------------------------------------

    def _on_agent_event(self, event: dict[str, Any], signal: Any = None) -> Awaitable[None] | None:
        # Deltas take a synchronous path (no coroutine per token); everything else is async.
        if event["type"] == "message_update":
            return self._hub.dispatch(event)
        return self._on_agent_event_async(event)

    async def _on_agent_event_async(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "message_start" and self._queues.delivered(event["message"]):
            await self._hub.emit(self._queues.event())
        if kind == "agent_end":  # pi 1.6 says whether an automatic retry follows
            event = {**event, "willRetry": self.retry.will_retry()}
        await self._hub.emit(event)
        if kind == "message_end":
            message = event["message"]
            self.store.append_message(message)
            await self.retry.on_message_end(message)
        await self.checkpoints.on_event(event)

    async def emit(self, event: dict[str, Any]) -> None:
        """Deliver a session-level event (used by helpers such as compaction and model control)."""
        await self._hub.emit(event)

    def emit_nowait(self, event: dict[str, Any]) -> None:
        self._hub.emit_nowait(event)

    # -- user bash ---------------------------------------------------------------------------

    async def run_bash(
        self, command: str, exclude_from_context: bool = False, on_chunk: Callable[[str], None] | None = None
    ) -> dict[str, Any]:
        """Run the user's command; returns ``{output, exitCode, cancelled, truncated, fullOutputPath?}``.
        The ``bashExecution`` message joins the transcript now, or after the current run."""
        ext = self.extensions
        answer = None
        if ext is not None and ext.has_handlers("user_bash"):  # a handler may answer for the command
            from pi_cli.extensions.session_events import intercept_user_bash

            answer = await intercept_user_bash(ext, command, exclude_from_context, str(self.cwd))
        if answer is not None:
            result, message = self._bash.record(command, answer, exclude_from_context)
        else:
            result, message = await self._bash.run(command, on_chunk, exclude_from_context)
        if self.is_streaming:
            self._pending_bash.append(message)
        else:
            self._append_bash(message)
        return result

    def abort_bash(self) -> None:
        self._bash.abort()

    def _append_bash(self, message: dict[str, Any]) -> None:
        self.agent.state.messages = [*self.agent.state.messages, message]
        self.store.append_message(message)

    def _flush_pending_bash(self) -> None:
        pending, self._pending_bash = self._pending_bash, []
        for message in pending:
            self._append_bash(message)

    # -- session files (pi_cli.session.session_ops does the work) ----------------------------

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        previous = self.session_file
        return await self._replaced("new", previous, await session_ops.new_session(self, parent_session))

    async def switch_session(self, path: str) -> dict[str, Any]:
        previous = self.session_file
        return await self._replaced("resume", previous, await session_ops.switch_session(self, path))

    async def fork(self, entry_id: str) -> dict[str, Any]:
        previous = self.session_file
        return await self._replaced("fork", previous, await session_ops.fork(self, entry_id))

    async def clone(self) -> dict[str, Any]:
        previous = self.session_file
        return await self._replaced("fork", previous, await session_ops.clone(self))

    async def _replaced(self, reason: str, previous: str | None, result: dict[str, Any]) -> dict[str, Any]:
        """Extensions see pi's replacement lifecycle: ``session_shutdown`` then ``session_start``,
        both with ``reason`` (new | resume | fork). The runtime itself is kept (no reload)."""
        ext = self.extensions
        if ext is not None and ext.started and not result.get("cancelled"):
            await ext.emit({"type": "session_shutdown", "reason": reason, "targetSessionFile": self.session_file})
            await ext.emit({"type": "session_start", "reason": reason, "previousSessionFile": previous})
        return result

    async def navigate_tree(self, target_id: str, **options: Any) -> Any:
        """``/tree``: move the leaf to ``target_id`` (see :mod:`pi_cli.session.tree_navigation`)."""
        from pi_cli.session.tree_navigation import navigate_tree

        return await navigate_tree(self, target_id, **options)

    def get_fork_messages(self) -> list[dict[str, str]]:
        return session_ops.fork_messages(self)

    async def export_html(self, output_path: str | None = None) -> str:
        return await session_ops.export_html(self, output_path)

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        return await self.compact_now(custom_instructions)

    # -- session info and statistics ---------------------------------------------------------

    def set_session_name(self, name: str) -> None:
        self.store.set_name(name)
        self._hub.emit_nowait({"type": "session_info_changed", "name": name})

    def get_last_assistant_text(self) -> str | None:
        """Text of the last assistant message, or None (pi skips aborted empty ones)."""
        return _stats.last_assistant_text(self.agent.state.messages)

    def context_usage(self) -> dict[str, Any] | None:
        from pi_cli.compaction.budget import context_usage  # the token estimate is not start-up work

        model = self.model
        # Reads the messages from the end back to the last usage: a lazy view decodes only those.
        return context_usage(self.message_view(), int(model["contextWindow"]) if model else 0)

    def get_session_stats(self) -> dict[str, Any]:
        view = self.message_view()
        return _stats.session_stats(view, self.session_file, self.session_id, self.context_usage())

    def save_setting(self, key: str, value: Any) -> None:
        """Persist a global setting (pi's camelCase key, dots for nesting); failures become notices."""
        if self._save_setting is None:
            return
        try:
            self._save_setting(key, value)
        except Exception as exc:  # a settings write failure must not break the session
            self.startup_notices.append(f"Warning: could not save setting {key}: {exc}")

    async def dispose(self) -> None:
        """Abort anything running and detach from the agent."""
        self.abort_bash()
        if self.is_streaming:
            await self.abort()
        if self.extensions is not None:
            await self.extensions.shutdown()
        self._unsubscribe_agent()
