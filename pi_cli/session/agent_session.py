"""AgentSession: the one object print, json, rpc, acp, inline and TUI modes share.

It owns the :class:`~pi_cli.agent.agent.Agent` and adds what a coding session needs on top:
prompt preflight (extensions' commands and ``input`` handlers, template/skill expansion, the busy
check with ``streamingBehavior``, model and key validation), the runs with their follow-through
(:class:`~pi_cli.session.runs.RunControl`), model and thinking-level changes, the user's own bash
runs, persistence through the session store, session-file operations, statistics. Each concern
is a component built here and given exactly what it uses.

Optional parts are typed attributes fixed at construction: ``extensions`` (the ExtensionRunner),
``permissions`` (the approval gate), ``mcp`` (the MCP runtime), ``sandbox`` and ``subagents``
(the ``subagent`` tool's runtime), each None when absent. A subagent's child session
(``is_child``) uses its parent's gate and sandbox without owning them (it never closes the
sandbox) and takes no checkpoints. Build a
session with :func:`pi_cli.session.assembly.create_agent_session` (from options) or
:func:`pi_cli.session.assembly.build_session` (from parts), which also put the parts into the
agent's hook chains.

Events: ``subscribe(listener)`` delivers every agent event (pi's field names) plus
``queue_update{steering, followUp}``, ``auto_retry_start{attempt, maxAttempts, delayMs,
errorMessage}``, ``auto_retry_end{success, attempt, finalError?}``, ``thinking_level_changed{level}``,
``session_info_changed{name}``, compaction events and ``agent_settled{aborted}``. Listeners take one
argument and may be async (awaited in order).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pi_cli.agent.agent import Agent
from pi_cli.ai.types import ImageContent, Model, now_ms
from pi_cli.config.settings import Settings
from pi_cli.errors import AgentBusyError, MissingApiKeyError, ModelError
from pi_cli.session.auto_compaction import AutoCompactor
from pi_cli.session.bash_runs import BashRunner
from pi_cli.session.checkpointing import SessionCheckpoints
from pi_cli.session.events import EventHub, SessionListener
from pi_cli.session.model_control import ModelControl
from pi_cli.session.retry import AutoRetry, RetryPolicy
from pi_cli.session.runs import RunControl
from pi_cli.session.session_ops import SessionFiles
from pi_cli.session.store_bridge import SessionStoreBridge
from pi_cli.store import stats as _stats

if TYPE_CHECKING:
    from pi_cli.compaction.branch_summary import TreeNavigation
    from pi_cli.extensions.runner import ExtensionRunner
    from pi_cli.mcp.runtime import McpRuntime
    from pi_cli.models.registry import ModelRegistry
    from pi_cli.permissions.gate import PermissionGate
    from pi_cli.resources.loader import Resources
    from pi_cli.resources.themes import ThemeCatalog
    from pi_cli.sandbox.controller import Sandbox
    from pi_cli.session.subagents.runtime import SubagentRuntime

Run = Coroutine[Any, Any, None]


class AgentSession:
    """A coding session over one agent (see the module docstring for how to build one).

    Prompts: ``await prompt(text, images=None, streaming_behavior=None)``, ``begin_prompt(...)``,
    ``await prepare_prompt(...)``, ``begin_prepared(...)``, ``steer``/``follow_up(text, images)``,
    ``clear_queues()``, ``await abort()``, ``abort_retry()``, ``add_custom_message(message, trigger)``.
    Models: ``set_model``, ``cycle_model``, ``set_thinking_level``, ``cycle_thinking_level``,
    ``available_models``. User bash: ``await run_bash(command, exclude_from_context, on_chunk)``,
    ``abort_bash()``. Session files: ``new_session``, ``switch_session``, ``fork``, ``clone``,
    ``navigate_tree``, ``get_fork_messages``, ``export_html``, ``compact``. Stats:
    ``get_session_stats``, ``context_usage``, ``get_last_assistant_text``.
    """

    def __init__(
        self,
        *,
        agent: Agent,
        cwd: Path,
        settings: Settings | None = None,
        model_registry: ModelRegistry | None = None,
        store: SessionStoreBridge | None = None,
        scoped_models: list[tuple[Model, str | None]] | None = None,
        resources: Resources | None = None,
        save_setting: Callable[[str, Any], None] | None = None,
        extensions: ExtensionRunner | None = None,
        permissions: PermissionGate | None = None,
        mcp: McpRuntime | None = None,
        sandbox: Sandbox | None = None,
        subagents: SubagentRuntime[AgentSession] | None = None,
        child: bool = False,
        themes: ThemeCatalog | None = None,
    ) -> None:
        self.agent = agent
        self.cwd = cwd
        self.settings = settings if settings is not None else Settings()
        self.model_registry = model_registry
        self.store = store or SessionStoreBridge(None, cwd)
        self.resources = resources
        self.extensions = extensions
        self.permissions = permissions
        self.mcp = mcp
        self.sandbox = sandbox
        self.subagents = subagents
        self.is_child = child
        self._themes = themes
        self.startup_notices: list[str] = []
        self.resume_requested = False  # ``pi -r``: the UI should offer its session picker
        self.model_source = "cli"  # cli | scope | session | settings | available | local | demo
        # ``/reload``: reads the prompt resources again as start-up did (set by the assembly)
        self.resource_reloader: Callable[[], Resources] | None = None
        self._save_setting = save_setting
        self._hub = EventHub()
        self.models = ModelControl(
            agent, model_registry, self.store, self.settings, self.save_setting, self._hub.emit_nowait,
            scoped_models or [],
        )  # fmt: skip
        self.retry = AutoRetry(agent, self._hub.emit, RetryPolicy.from_settings(self.settings), self.store)
        self.compactor = AutoCompactor(agent, self.store, self.models, self.settings, self._hub.emit, extensions)
        self._bash = BashRunner(cwd, self.settings.shell_command_prefix, sandbox)
        self.files = SessionFiles(
            agent, self.store, model_registry, self.models, self._settle,
            settings=self.settings, extensions=extensions, busy=lambda: self.is_streaming,
        )  # fmt: skip
        self.checkpoints = SessionCheckpoints(
            cwd, self.settings, self.store, self._busy, self.files.reload, enabled=not child
        )
        self.runs = RunControl(
            agent, self._hub, self.retry, self.compactor, self.checkpoints, extensions, self._flush_held_bash
        )
        self._unsubscribe_agent = agent.subscribe(self._on_agent_event)

    # -- state -------------------------------------------------------------------------------

    @property
    def themes(self) -> ThemeCatalog:
        """The themes found for this session and the chosen one (only the built-ins, chosen by the
        ``theme`` setting, when the assembly found none: an embedder's or a child's session)."""
        if self._themes is None:
            from pi_cli.resources.themes import ThemeCatalog

            self._themes = ThemeCatalog(selected=self.settings.theme or "dark")
        return self._themes

    @property
    def model(self) -> Model | None:
        return self.models.model

    @property
    def thinking_level(self) -> str:
        return self.models.thinking_level

    @property
    def messages(self) -> list[dict[str, Any]]:
        return cast(list[dict[str, Any]], list(self.agent.state.messages))

    def message_view(self) -> Sequence[dict[str, Any]]:
        """The messages without decoding a resumed huge session's bodies (see
        :class:`~pi_cli.store.slim.lazy_context.LazyMessages`): for counting, the last few, statistics."""
        return cast(Sequence[dict[str, Any]], self.agent.state.message_view())

    @property
    def is_streaming(self) -> bool:
        """True from prompt preflight until the run (including retries) has settled."""
        return self.runs.active

    @property
    def is_retrying(self) -> bool:
        return self.retry.waiting

    @property
    def is_compacting(self) -> bool:
        return self.compactor.running

    @property
    def is_bash_running(self) -> bool:
        return self._bash.running

    def _busy(self) -> bool:
        return self.is_streaming or self.is_bash_running or self.is_compacting

    @property
    def steering_mode(self) -> str:
        return str(self.agent.steering_mode)

    @property
    def follow_up_mode(self) -> str:
        return str(self.agent.follow_up_mode)

    def set_steering_mode(self, mode: str) -> None:
        """Set the steering mode (``all`` | ``one-at-a-time``; checked) and save it (pi does)."""
        self.agent.steering_mode = mode  # type: ignore[assignment]  # checked by the agent
        self.save_setting("steeringMode", mode)

    def set_follow_up_mode(self, mode: str) -> None:
        self.agent.follow_up_mode = mode  # type: ignore[assignment]  # checked by the agent
        self.save_setting("followUpMode", mode)

    @property
    def steering_messages(self) -> list[str]:
        return self.runs.texts()[0]

    @property
    def follow_up_messages(self) -> list[str]:
        return self.runs.texts()[1]

    @property
    def pending_message_count(self) -> int:
        return len(self.agent.steering_queue) + len(self.agent.follow_up_queue)

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

    async def emit(self, event: dict[str, Any]) -> None:
        """Deliver a session-level event to the listeners."""
        await self._hub.emit(event)

    def emit_nowait(self, event: dict[str, Any]) -> None:
        self._hub.emit_nowait(event)

    # -- prompts -----------------------------------------------------------------------------

    def expand_text(self, text: str) -> str:
        """Expand ``/skill:name args`` and ``/template args`` (unknown commands pass through)."""
        if not text.startswith("/") or self.resources is None:
            return text
        return self.resources.expand_input(text)

    def get_commands(self) -> list[dict[str, Any]]:
        """Extension commands, prompt templates and skills in RPC ``get_commands`` shape."""
        commands = [] if self.resources is None else list(self.resources.commands())
        return commands if self.extensions is None else [*self.extensions.command_list(), *commands]

    def command_names(self) -> list[tuple[str, str]]:
        """``(name, description)`` of every command :meth:`get_commands` lists, for completion."""
        return [(c["name"], str(c.get("description") or "")) for c in self.get_commands()]

    async def reload(self) -> list[str]:
        """pi's ``/reload``: the skills, prompt templates, context and system-prompt files read
        again, the extensions loaded again (:func:`pi_cli.extensions.loader.reload_runner`), the
        system prompt rebuilt. Returns the problem lines. Raises :class:`AgentBusyError` while the
        agent runs."""
        if self.is_streaming:
            raise AgentBusyError()
        problems: list[str] = []
        if self.resource_reloader is not None:
            self.resources = self.resource_reloader()
            problems.extend(self.resources.diagnostics)
        if self.extensions is not None:
            from pi_cli.extensions.loader import reload_runner

            problems.extend(await reload_runner(self.extensions))  # its tool set rebuilds the prompt
        else:
            self.set_tool_prompts({}, {})
        return problems

    def save_theme(self, name: str) -> None:
        """Save ``name`` as the user's ``theme`` setting (an extension's ``ctx.ui.set_theme``)."""
        self.save_setting("theme", name)

    def argument_completions(self, name: str, prefix: str) -> list[dict[str, str]]:
        """What the editor offers after ``/name ``: the extension command's own argument
        completions (see :func:`pi_cli.extensions.prompts.argument_completions`)."""
        if self.extensions is None:
            return []
        from pi_cli.extensions.prompts import argument_completions

        return argument_completions(self.extensions, name, prefix)

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
    ) -> Run | None:
        """Preflight a prompt synchronously: None when it was queued, else the coroutine that runs
        it. With extensions that want to see the text first (a ``/command``, ``input`` handlers),
        that coroutine runs them before queueing or starting the run."""
        ext = self.extensions
        if ext is not None and ext.wants_preflight(text):
            return self._prepare_then_run(text, images, streaming_behavior)
        return self.begin_prepared(text, images, streaming_behavior)

    async def _prepare_then_run(
        self, text: str, images: list[ImageContent] | None, streaming_behavior: str | None
    ) -> None:
        _disposition, run = await self.prepare_prompt(text, images, streaming_behavior)
        if run is not None:
            await run

    async def prepare_prompt(
        self,
        text: str,
        images: list[ImageContent] | None = None,
        streaming_behavior: str | None = None,
        source: str = "interactive",
    ) -> tuple[str, Run | None]:
        """Everything before the run, as pi's prompt preflight: (disposition, run). ``handled``: an
        extension command ran or ``input`` handlers consumed the text; ``queued``; ``started``: the
        returned run is to be awaited. Raises as :meth:`prompt` for a refused prompt."""
        ext = self.extensions
        if ext is not None:
            from pi_cli.extensions.prompts import run_input

            await ext.start()
            found = ext.command_for(text)
            if found is not None:  # runs at once, even while streaming (never queued)
                await ext.run_command(*found)
                return "handled", None
            if ext.has_handlers("input"):
                behavior = streaming_behavior if self.is_streaming else None
                given = await run_input(ext, text, images, source, behavior)
                if given is None:
                    return "handled", None
                text, images = given[0], given[1] or None
        run = self.begin_prepared(text, images, streaming_behavior)
        return ("queued" if run is None else "started"), run

    def begin_prepared(
        self, text: str, images: list[ImageContent] | None = None, streaming_behavior: str | None = None
    ) -> Run | None:
        """:meth:`begin_prompt` for text extensions have already seen: queued while streaming
        (with a behavior), else checked and started — in one synchronous step."""
        expanded = self.expand_text(text)
        if self.is_streaming:
            if streaming_behavior not in ("steer", "followUp"):
                raise AgentBusyError()
            self.runs.queue(streaming_behavior, expanded, images)
            return None
        model = self.model
        if model is None:
            raise ModelError("No model selected.", hint="Set an API key environment variable or use --model.")
        if not self.models.has_credentials(model):
            raise MissingApiKeyError(model["provider"], self.models.env_var_for(model["provider"]))
        self._flush_held_bash()
        content: list[Any] = [{"type": "text", "text": expanded}, *(images or [])]
        return self.runs.start_user_run({"role": "user", "content": content, "timestamp": now_ms()})

    def add_custom_message(self, message: dict[str, Any], trigger_turn: bool = False) -> Run | None:
        """An extension's custom message while idle: appended to the transcript, or (with
        ``trigger_turn``) the start of a run, whose coroutine is returned."""
        if trigger_turn:
            return self.runs.start_custom_run(message)
        self._append_to_transcript(message)
        # pi 1.6.0 announces the appended message (front ends show it, RPC clients see it)
        self._hub.emit_nowait({"type": "message_start", "message": message})
        self._hub.emit_nowait({"type": "message_end", "message": message})
        return None

    def steer(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Queue a steering message: delivered after the running tool batch, before the next call."""
        self.runs.queue("steer", self.expand_text(text), images)

    def follow_up(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Queue a follow-up: delivered when the agent would otherwise stop."""
        self.runs.queue("followUp", self.expand_text(text), images)

    def clear_queues(self) -> tuple[list[str], list[str]]:
        """Drop every queued message; returns their texts (steering, follow-up) for the editor."""
        return self.runs.clear()

    async def abort(self) -> None:
        """Stop the current run (and any retry wait or compaction) and wait until the agent is idle."""
        await self.runs.abort()

    def abort_retry(self) -> None:
        """Cancel a pending auto-retry wait (emits ``auto_retry_end{success:false}``)."""
        self.retry.abort()

    async def compact_now(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Manual compaction (``/compact``, RPC ``compact``); returns pi's result JSON."""
        if self.is_streaming:
            await self.abort()
        return await self.compactor.compact("manual", custom_instructions)

    compact = compact_now

    # -- model and thinking ------------------------------------------------------------------

    # ``persist`` saves the choice as the default in settings.json (the interactive front ends); pi's
    # RPC commands and extension calls switch only the session, so they pass ``persist=False``.

    def set_model(self, model: Model, persist: bool = True) -> None:
        previous = self.model
        self.models.set_model(model, persist=persist)
        self._model_selected(model, previous, "set")

    def cycle_model(self, direction: str = "forward", persist: bool = True) -> dict[str, Any] | None:
        previous = self.model
        result = self.models.cycle_model(direction, persist=persist)
        if result is not None:
            self._model_selected(result["model"], previous, "cycle")
        return result

    def _model_selected(self, model: Model, previous: Model | None, source: str) -> None:
        """Extensions' ``model_select`` (pi fires it for /model, cycling and pi.set_model)."""
        if self.extensions is not None:
            event = {"type": "model_select", "model": model, "previousModel": previous, "source": source}
            self.extensions.notify(event)

    def set_thinking_level(self, level: str, persist: bool = True) -> str:
        return self.models.set_thinking_level(level, persist=persist)

    def cycle_thinking_level(self, persist: bool = True) -> str | None:
        return self.models.cycle_thinking_level(persist=persist)

    def available_models(self) -> list[Model]:
        return self.models.available_models()

    def add_resource_paths(self, skill_paths: list[str], prompt_paths: list[str]) -> list[str]:
        """Extensions' ``resources_discover`` paths join the resources (problem lines back);
        a session without resources (a child's) has nothing to add them to."""
        if self.resources is None:
            return []
        from pi_cli.session.discovered_resources import add_resource_paths

        return add_resource_paths(self.resources, skill_paths, prompt_paths)

    def set_tool_prompts(self, snippets: dict[str, str], guidelines: dict[str, list[str]]) -> None:
        """The tool set changed (extensions): rebuild the system prompt with these extension
        tools' snippets and guidelines (see :mod:`pi_cli.session.tool_prompts`)."""
        from pi_cli.session.tool_prompts import rebuilt_system_prompt

        prompt = rebuilt_system_prompt(self.agent, self.resources, self.subagents is not None, snippets, guidelines)
        if prompt is not None:  # a run's before_agent_start replacement stays for that run
            self.runs.set_base_prompt(prompt)

    # -- agent events ------------------------------------------------------------------------

    def _on_agent_event(self, event: dict[str, Any], signal: Any = None) -> Awaitable[None] | None:
        # Deltas take a synchronous path (no coroutine per token); everything else is async.
        if event["type"] == "message_update":
            return self._hub.dispatch(event)
        return self._on_agent_event_async(event)

    async def _on_agent_event_async(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "message_start" and event["message"].get("role") == "user":
            admitted = self.runs.admitted()  # the agent took queued messages: the lists changed
            if admitted is not None:
                await self._hub.emit(admitted)
        if kind == "agent_end":  # pi 1.6 says whether an automatic retry follows
            event = {**event, "willRetry": self.retry.will_retry()}
        elif kind == "message_end" and self.extensions is not None and self.extensions.has_handlers(kind):
            await self._message_end_handlers(event["message"])
        await self._hub.emit(event)
        if kind == "message_end":
            message = event["message"]
            self.store.append_message(message)
            await self.retry.on_message_end(message)
        await self.checkpoints.on_event(event)

    async def _message_end_handlers(self, message: dict[str, Any]) -> None:
        """Extensions' ``message_end`` chain, before listeners and the session file see the message.
        A replacement is written into the message in place: the agent's state holds that object."""
        from pi_cli.extensions.session_events import message_end

        assert self.extensions is not None
        replacement = await message_end(self.extensions, message)
        if replacement is not None and replacement is not message:
            fresh = dict(replacement)  # a handler may return (a copy of) the message it was given
            message.clear()
            message.update(fresh)

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
        if answer is not None and "result" in answer:
            result, message = self._bash.record(command, answer["result"], exclude_from_context)
        else:
            operations = None if answer is None else answer["operations"]
            result, message = await self._bash.run(command, on_chunk, exclude_from_context, operations)
        if self.is_streaming:
            self._bash.hold(message)  # never between a tool call and its result
        else:
            self._append_to_transcript(message)
        return result

    def abort_bash(self) -> None:
        self._bash.abort()

    def _append_to_transcript(self, message: dict[str, Any]) -> None:
        self.agent.state.messages = [*self.agent.state.messages, message]
        self.store.append_message(message)

    def _flush_held_bash(self) -> None:
        for message in self._bash.take_held():
            self._append_to_transcript(message)

    # -- session files -----------------------------------------------------------------------

    async def _settle(self) -> None:
        """Before a session-file operation: stop a running prompt, empty the queues (announced only
        when something was queued, as pi)."""
        if self.is_streaming:
            await self.abort()
        self.runs.clear(only_if_changed=True)

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        previous = self.session_file
        return await self._replaced("new", previous, await self.files.new_session(parent_session))

    async def switch_session(self, path: str) -> dict[str, Any]:
        previous = self.session_file
        return await self._replaced("resume", previous, await self.files.switch_session(path))

    async def fork(self, entry_id: str) -> dict[str, Any]:
        previous = self.session_file
        return await self._replaced("fork", previous, await self.files.fork(entry_id))

    async def clone(self) -> dict[str, Any]:
        previous = self.session_file
        return await self._replaced("fork", previous, await self.files.clone())

    async def _replaced(self, reason: str, previous: str | None, result: dict[str, Any]) -> dict[str, Any]:
        """Extensions see pi's replacement lifecycle: ``session_shutdown`` then ``session_start``,
        both with ``reason`` (new | resume | fork). The runtime itself is kept (no reload)."""
        ext = self.extensions
        if ext is not None and ext.started and not result.get("cancelled"):
            await ext.emit({"type": "session_shutdown", "reason": reason, "targetSessionFile": self.session_file})
            await ext.emit({"type": "session_start", "reason": reason, "previousSessionFile": previous})
        return result

    async def navigate_tree(self, target_id: str, **options: Any) -> TreeNavigation:
        """``/tree``: move the leaf to ``target_id`` (see :meth:`SessionFiles.navigate_tree`)."""
        return await self.files.navigate_tree(target_id, **options)

    def get_fork_messages(self) -> list[dict[str, str]]:
        return self.files.fork_messages()

    async def export_html(self, output_path: str | None = None) -> str:
        """The session as an HTML page in the active theme's colours; returns its path."""
        theme = self.themes.active()
        return await self.files.export_html(output_path, {**theme.colors, **theme.export})

    # -- session info and statistics ---------------------------------------------------------

    def set_session_name(self, name: str) -> None:
        self.store.set_name(name)
        self._hub.emit_nowait({"type": "session_info_changed", "name": name})

    def get_last_assistant_text(self) -> str | None:
        """Text of the last assistant message, or None (pi skips aborted empty ones)."""
        return _stats.last_assistant_text(self.messages)

    def context_usage(self) -> dict[str, Any] | None:
        from pi_cli.compaction.budget import context_usage  # the token estimate is not start-up work

        model = self.model
        # Reads the messages from the end back to the last usage: a lazy view decodes only those.
        return context_usage(self.message_view(), int(model["contextWindow"]) if model else 0)

    def get_session_stats(self) -> dict[str, Any]:
        """pi's ``get_session_stats``: the whole session's entries (after a compaction too); a
        session without storage counts its context."""
        manager = self.store.manager
        if manager is not None:
            entries = manager.get_entries()
            from pi_cli.store.slim.lazy_context import whole_session_stats

            return whole_session_stats(entries, self.session_file, self.session_id, self.context_usage())
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
        """Abort anything running, stop the extensions and detach from the agent."""
        self.abort_bash()
        if self.is_streaming:
            await self.abort()
        if self.extensions is not None:
            await self.extensions.shutdown()
        if self.sandbox is not None and not self.is_child:  # a child's sandbox is its parent's
            self.sandbox.close()
        self._unsubscribe_agent()
