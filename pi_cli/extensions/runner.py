"""The extension runner: what extensions registered, and event dispatch with error isolation.

Handlers run in load order. A handler that raises is reported through ``on_error`` (RPC: an
``extension_error`` event; print: stderr) and the others still run — except for ``tool_call``,
where a raising handler blocks that call (fail closed) with the error as the tool result.

The runner takes part in a run through the agent's declared hook chains (the session's assembly
puts :meth:`ExtensionRunner.tool_call`, :meth:`~ExtensionRunner.tool_result` and
:meth:`~ExtensionRunner.transform_context` there) and knows the session as an
:class:`~pi_cli.extensions.host.ExtensionHost`, given to :meth:`ExtensionRunner.bind`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.agent.types import AfterToolCallContext, BeforeToolCallContext
from pi_cli.ai.abort import AbortSignal
from pi_cli.extensions.event_bus import EventBus
from pi_cli.extensions.host import ExtensionHost
from pi_cli.extensions.rendering import CustomRenderer, ExtensionTheme, ToolRenderer, theme_of
from pi_cli.extensions.ui import ExtensionUI, NoUI, PromptSpan
from pi_cli.sandbox.protocol import ToolSandbox

if TYPE_CHECKING:
    from pi_cli.extensions.virtual.router import VirtualModel

ErrorSink = Callable[[dict[str, Any]], None]


@dataclass(slots=True)
class Registered:
    """One registration, remembered with the extension file it came from (for error lines)."""

    source: str
    value: Any


@dataclass(slots=True)
class Command:
    name: str
    handler: Callable[..., Any]
    description: str
    source: str
    # pi's ``getArgumentCompletions(prefix)``: items ``{value, label?, description?}`` or None.
    complete: Callable[[str], Any] | None = None


@dataclass(slots=True)
class Flag:
    name: str
    type: str
    default: Any
    description: str
    source: str


def _untrusted() -> bool:
    return False


class ExtensionRunner:
    """Registries (handlers, tools, commands, flags) plus dispatch. One per session."""

    def __init__(
        self,
        cwd: str,
        flag_values: dict[str, Any] | None = None,
        sandbox: ToolSandbox | None = None,
        allowed_tools: Collection[str] | None = None,
    ) -> None:
        self.cwd = cwd
        self.sandbox = sandbox  # confines the processes extensions start with pi.exec
        # The only extension tools the session may have (a subagent's ``tools``); None: all of them.
        self.allowed_tools = frozenset(allowed_tools) if allowed_tools is not None else None
        # Every extension's ``register`` with its source, in load order (a child session replays them).
        self.registrations: list[tuple[str, Callable[..., Any]]] = []
        self.handlers: dict[str, list[Registered]] = {}
        self.tools: list[Registered] = []
        self.commands: dict[str, Command] = {}
        self.flags: dict[str, Flag] = {}
        self.flag_values = dict(flag_values or {})
        self.sources: list[str] = []  # extensions loaded, in order (for the start-up header)
        self.seen: set[str] = set()  # every source tried (a second loading pass skips them)
        self.ui: ExtensionUI = NoUI()
        # extension source (its path) → pi's sourceInfo {path, source, scope, origin[, baseDir]}, set
        # by whoever loads it; get_commands reports it as pi does.
        self.source_info: dict[str, dict[str, str]] = {}
        self.host: ExtensionHost | None = None  # the session, given to bind()
        self.on_error: ErrorSink = _stderr_error
        self.started = False
        self._starting: asyncio.Future[None] | None = None
        self._shut_down = False  # session_shutdown("quit") has been emitted
        self.base_tools: list[Any] = []  # the session's built-ins (from bind)
        self.deferred: list[tuple[str, Any]] = []  # async register() awaitables, run by start
        self.pending: set[Any] = set()  # tasks started by send_user_message / send_message / notify
        self.next_turn: list[dict[str, Any]] = []  # send_message(deliver_as="nextTurn"): join the next prompt
        self.providers: dict[str, dict[str, Any]] = {}  # register_provider configs, by provider name
        self.model_registry: Any = None  # bound by apply_providers (the session's ModelRegistry)
        self.shortcuts: list[Any] = []  # shortcuts.Shortcut, in registration order (terminal modes bind them)
        # ``ctx.mode``: the assembly sets it from the session's mode, a terminal front end on binding.
        self.mode = "print"
        # ``ctx.is_project_trusted()``: asks the trust store (given by the loader's final pass).
        self.trust_check: Callable[[], bool] = _untrusted
        # ``ctx.shutdown()``: the front end's "quit when idle" (TUI, inline, RPC); None: a no-op.
        self.shutdown_handler: Callable[[], None] | None = None
        self._theme: tuple[Any, ExtensionTheme] | None = None  # (the active Theme, ctx.ui.theme of it)
        self.events = EventBus(self.report, self.pending)  # ``pi.events``, shared by the extensions
        self.prompt_span = PromptSpan(self.notify)  # ui_prompt_start/end around extensions' dialogs
        self.renderers: dict[str, ToolRenderer] = {}  # tool name → its render_call/render_result
        # (provider, id) → an extension's virtual model (pi.register_virtual_model)
        self.virtual_models: dict[tuple[str, str], VirtualModel] = {}
        # customType → the renderer of custom messages / custom entries of that type
        self.message_renderers: dict[str, CustomRenderer] = {}
        self.entry_renderers: dict[str, CustomRenderer] = {}
        # ``/reload``: given the registrations made before, loads the extensions again into this
        # (reset) runner and returns the error lines; set by the assembly
        self.reloader: Callable[[list[tuple[str, Callable[..., Any]]]], list[str]] | None = None

    def reset(self) -> None:
        """Forget everything the extensions registered (``/reload`` loads them again): handlers,
        tools, commands, shortcuts, flags' declarations, providers, renderers, the event bus.
        What the session gave the runner (host, UI, mode, flag values, registry) stays."""
        for name in list(self.providers):
            if self.model_registry is not None:
                self.model_registry.unregister_provider(name)
        for provider, model_id in list(self.virtual_models):
            if self.model_registry is not None:
                self.model_registry.unregister_virtual_model(provider, model_id)
        self.virtual_models.clear()
        for table in (self.handlers, self.commands, self.flags, self.providers, self.renderers,
                      self.message_renderers, self.entry_renderers, self.source_info):  # fmt: skip
            table.clear()
        for items in (self.registrations, self.tools, self.sources, self.deferred, self.next_turn, self.shortcuts):
            items.clear()
        self.seen.clear()
        self.events = EventBus(self.report, self.pending)
        self.started = False
        self._starting = None

    # -- registration (called through ExtensionAPI) -------------------------------------------

    def add_handler(self, event: str, handler: Callable[..., Any], source: str) -> None:
        self.handlers.setdefault(event, []).append(Registered(source, handler))

    def has_handlers(self, event: str) -> bool:
        return bool(self.handlers.get(event))

    def apply_providers(self, registry: Any) -> list[str]:
        """Give registered providers to ``registry`` (before model selection at start-up); later
        ``register_provider`` calls apply at once. Returns problem lines for start-up notices."""
        self.model_registry = registry
        errors: list[str] = []
        for name, config in self.providers.items():
            errors.extend(provider_errors(registry.register_provider(name, config), config))
        for virtual in self.virtual_models.values():
            self.activate_virtual(virtual)
        return errors

    def activate_virtual(self, virtual: VirtualModel) -> None:
        """List ``virtual`` in the session's registry and serve its requests (once bound)."""
        if self.model_registry is not None:
            from pi_cli.extensions.virtual.router import activate

            virtual.registry = self.model_registry
            self.model_registry.register_virtual_model(virtual.model)
            activate(virtual)

    def bind(self, host: ExtensionHost) -> None:
        """Serve ``host`` (called once by the session's assembly): its tools are the built-ins
        extension tools join or replace, and its events reach the handlers."""
        self.host = host
        if self.sandbox is None:  # loaded before the session (and its sandbox) existed
            self.sandbox = host.sandbox
        self.base_tools = list(host.agent.state.tools)
        if self.tools:
            from pi_cli.extensions.tool_set import apply_tools

            apply_tools(self)
        host.subscribe(self.listener)

    # -- dispatch -------------------------------------------------------------------------------

    def context(self) -> Any:
        from pi_cli.extensions.context import ExtensionContext

        return ExtensionContext(self)

    def tool_context(self, signal: AbortSignal | None = None) -> Any:
        """pi's fifth ``execute`` argument: a ``ctx`` whose ``signal`` is the tool call's."""
        from pi_cli.extensions.context import ExtensionContext

        return ExtensionContext(self, signal)

    def theme(self) -> ExtensionTheme:
        """``ctx.ui.theme``: the session's active theme (unstyled before the session is bound).
        Built again only when the active theme changes: renderers ask on every tool update."""
        active = self.host.themes.active() if self.host is not None else None
        if self._theme is None or self._theme[0] is not active:
            self._theme = (active, theme_of(active))
        return self._theme[1]

    def renderer_for(self, tool_name: str) -> ToolRenderer | None:
        """The front ends' seam for tool rendering: the renderers of the extension tool named
        ``tool_name`` (None: draw the default). Its calls never raise (see ToolRenderer)."""
        return self.renderers.get(tool_name)

    def report(self, source: str, event: str, exc: BaseException) -> None:
        """A failing handler: one ``extension_error`` record to ``on_error``; never raises."""
        record = {"type": "extension_error", "extensionPath": source, "event": event, "error": _describe(exc)}
        try:
            self.on_error(record)
        except Exception:  # the error sink itself must not break the run
            _stderr_error(record)

    async def call(self, entry: Registered, event: dict[str, Any]) -> Any:
        result = entry.value(event, self.context())
        if inspect.isawaitable(result):
            result = await result
        return result

    async def answers(self, event: dict[str, Any]) -> AsyncIterator[Any]:
        """Each handler's answer to ``event``, in load order; a raising handler is reported and
        skipped. The caller may stop early: later handlers then do not run."""
        for entry in tuple(self.handlers.get(event["type"], ())):
            try:
                answer = await self.call(entry, event)
            except Exception as exc:
                self.report(entry.source, event["type"], exc)
                continue
            yield answer

    async def emit(self, event: dict[str, Any]) -> list[Any]:
        """Run every handler of ``event["type"]``; returns their non-None results in order."""
        return [answer async for answer in self.answers(event) if answer is not None]

    def notify(self, event: dict[str, Any]) -> None:
        """Emit ``event`` from synchronous code (e.g. ``model_select``): a task on the running loop;
        nothing when no handler wants it or no loop runs."""
        if event["type"] not in self.handlers:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self.emit(event))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    def listener(self, event: dict[str, Any]) -> Any:
        """Session subscriber: forwards events that have handlers (cheap when none do);
        ``message_end`` is not forwarded: the session runs that chain itself, before recording."""
        kind = event.get("type")
        if kind not in self.handlers or kind == "message_end":
            return None
        return self.emit(event)

    async def start(self, reason: str = "startup") -> None:
        """``session_start`` once, when the front end has bound its UI (or at the first prompt);
        async ``register`` functions are awaited first. Concurrent callers wait for the same start.
        ``reason`` is pi's (``"reload"`` after ``/reload``)."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start(reason))
        await asyncio.shield(self._starting)

    async def _start(self, reason: str) -> None:
        self.started = True
        deferred, self.deferred = self.deferred, []
        for source, awaitable in deferred:
            try:
                await awaitable
            except Exception as exc:
                self.report(source, "register", exc)
        if self.host is not None and self.tools:  # async register() functions may have added some
            from pi_cli.extensions.tool_set import apply_tools

            apply_tools(self)
        await self.emit({"type": "session_start", "reason": reason})
        if self.host is not None and "resources_discover" in self.handlers:
            await self._discover_resources(reason)

    async def _discover_resources(self, reason: str) -> None:
        """``resources_discover``: the skills and templates the handlers name join the session
        (problem lines are reported as the event's errors) and the system prompt lists them."""
        from pi_cli.extensions.session_events import discover_resources
        from pi_cli.extensions.tool_set import refresh_prompt

        assert self.host is not None
        skills, prompts = await discover_resources(self, self.cwd, reason)
        if not (skills or prompts):
            return
        for line in self.host.add_resource_paths(skills, prompts):
            self.report("resources_discover", "resources_discover", ValueError(line))
        refresh_prompt(self)

    def take_next_turn(self) -> list[dict[str, Any]]:
        """The ``send_message(deliver_as="nextTurn")`` messages waiting for the next prompt."""
        queued, self.next_turn = self.next_turn, []
        return queued

    @property
    def ready(self) -> bool:
        """``session_start`` has run (and async ``register`` functions have finished)."""
        return self._starting is not None and self._starting.done()

    def wants_preflight(self, text: str) -> bool:
        """Whether a prompt must wait for the runner (``session_start`` still to run, ``input``
        handlers, or a registered command) before the session may queue or start it."""
        return not self.ready or "input" in self.handlers or self.command_for(text) is not None

    # -- commands -------------------------------------------------------------------------------

    def command_for(self, text: str) -> tuple[Command, str] | None:
        """``/name args`` naming a registered command → (command, args)."""
        if not text.startswith("/") or not self.commands:
            return None
        name, _, args = text[1:].partition(" ")
        command = self.commands.get(name)
        return None if command is None else (command, args.strip())

    async def run_command(self, command: Command, args: str) -> None:
        """Run ``command`` with pi's command context (session control included)."""
        from pi_cli.extensions.context import CommandContext

        await self.start()
        try:
            result = command.handler(args, CommandContext(self))
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            self.report(command.source, f"command:{command.name}", exc)

    def command_list(self) -> list[dict[str, Any]]:
        """RPC ``get_commands`` entries: ``{name, description, source: "extension", sourceInfo}``.

        ``sourceInfo`` is what the loader recorded for the extension (pi's shape); for one loaded
        some other way (an entry point, a test) it is judged from where its file is."""
        return [
            {
                "name": c.name,
                "description": c.description,
                "source": "extension",
                "sourceInfo": self.source_info.get(c.source) or _source_info(c.source, self.cwd),
            }
            for c in self.commands.values()
        ]  # fmt: skip

    async def shutdown(self) -> None:
        """``session_shutdown`` (``reason: "quit"``) once, if ``session_start`` ran: the front end's
        exit and the session's dispose may both ask for it."""
        if self.started and not self._shut_down:
            self._shut_down = True
            await self.emit({"type": "session_shutdown", "reason": "quit"})

    # -- the agent's hook chains -------------------------------------------------------------------

    def provider_payload(self, payload: dict[str, Any]) -> Any:
        """``StreamOptions.on_payload``: the ``before_provider_request`` chain as an awaitable of
        the replacement payload (or None), or None at once when no handler wants it."""
        if "before_provider_request" not in self.handlers:
            return None
        from pi_cli.extensions.session_events import before_provider_request

        return before_provider_request(self, payload)

    def provider_response(self, response: dict[str, Any]) -> Any:
        """``StreamOptions.on_response``: ``after_provider_response {status, headers}``."""
        if "after_provider_response" not in self.handlers:
            return None
        return self.emit({"type": "after_provider_response", **response})

    def provider_stream_event(self, model: Any, name: str, data: str) -> Any:
        """``StreamOptions.on_stream_event``: ``provider_stream_event {data, provider, api, model}``
        with the SSE data parsed (the raw text when it is no JSON, e.g. ``[DONE]``); None at once
        when no handler wants it (it is called for every event of every stream)."""
        if "provider_stream_event" not in self.handlers:
            return None
        from pi_cli.extensions.session_events import stream_event

        return self.emit(stream_event(model, data))

    async def tool_call(self, context: BeforeToolCallContext, signal: AbortSignal | None = None) -> Any:
        """Interceptor: ``tool_call`` handlers before execution mutate ``event["input"]`` or block."""
        entries = self.handlers.get("tool_call")
        if not entries:
            return None
        call = context.tool_call
        event = {"type": "tool_call", "toolCallId": call["id"], "toolName": call["name"], "input": context.args}
        for entry in tuple(entries):
            try:
                result = await self.call(entry, event)
            except Exception as exc:
                self.report(entry.source, "tool_call", exc)
                return {"block": True, "reason": f"Extension {entry.source} failed in tool_call: {_describe(exc)}"}
            if event["input"] is not context.args and isinstance(event["input"], dict):
                context.args.clear()  # a handler replaced the dict: carry its keys to execute
                context.args.update(event["input"])
                event["input"] = context.args
            if isinstance(result, dict) and result.get("block"):
                verdict = {"block": True, "reason": result.get("reason") or "Blocked by extension"}
                if result.get("terminate") is not None:
                    verdict["terminate"] = bool(result["terminate"])
                return verdict
        return None

    async def tool_result(self, context: AfterToolCallContext, signal: AbortSignal | None = None) -> Any:
        """``tool_result`` handlers chain like middleware; returns the fields that changed."""
        entries = self.handlers.get("tool_result")
        if not entries:
            return None
        call = context.tool_call
        current = {"content": context.result.content, "details": context.result.details, "isError": context.is_error}
        changed: dict[str, Any] = {}
        for entry in tuple(entries):
            event = {"type": "tool_result", "toolCallId": call["id"], "toolName": call["name"], "input": context.args}
            event.update(current)
            try:
                result = await self.call(entry, event)
            except Exception as exc:
                self.report(entry.source, "tool_result", exc)
                continue
            if isinstance(result, dict):
                for key in ("content", "details", "isError", "usage"):
                    if key in result and result[key] is not None:
                        current[key] = result[key]
                        changed[key] = result[key]
        return changed or None

    async def transform_context(self, messages: list[Any], signal: AbortSignal | None = None) -> list[Any]:
        """``context``: a handler may return ``{"messages": [...]}`` for this request only."""
        for entry in tuple(self.handlers.get("context", ())):
            try:
                result = await self.call(entry, {"type": "context", "messages": list(messages)})
            except Exception as exc:
                self.report(entry.source, "context", exc)
                continue
            if isinstance(result, dict) and isinstance(result.get("messages"), list):
                messages = result["messages"]
        return messages


def provider_errors(lines: list[str], config: dict[str, Any]) -> list[str]:
    """Problem lines of a registered provider, without "unknown api" for an api the extension
    streams itself."""
    own = config.get("__own_api__")
    return [line for line in lines if own is None or f'api "{own}"' not in line]


def _source_info(source: str, cwd: str) -> dict[str, str]:
    """pi's ``sourceInfo`` of an extension file: ``scope`` user (``~/.pi/agent``), project
    (``.pi/`` of the cwd) or temporary (``-e``, packages, examples)."""
    from pi_cli.config.paths import agent_dir

    scope = "temporary"
    if source.startswith(str(agent_dir()) + "/"):
        scope = "user"
    elif source.startswith(str(Path(cwd) / ".pi") + "/"):
        scope = "project"
    return {"path": source, "source": "local", "scope": scope, "origin": "top-level"}


def _describe(exc: BaseException) -> str:
    """``Type: message (file:line)`` of the innermost frame, so the line names where it failed."""
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    where = f" ({frame.tb_frame.f_code.co_filename}:{frame.tb_lineno})" if frame is not None else ""
    text = str(exc)
    return f"{type(exc).__name__}{': ' + text if text else ''}{where}"


def _stderr_error(record: dict[str, Any]) -> None:
    import sys

    sys.stderr.write(f"Extension error ({record['extensionPath']}, {record['event']}): {record['error']}\n")
    sys.stderr.flush()
