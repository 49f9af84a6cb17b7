"""``ExtensionAPI``: the ``pi`` an extension's ``register`` receives (``ctx`` is
:mod:`pi_cli.extensions.context`).

Actions that reach the session (sending messages, entries, tools, model) go through
``runner.host``, the session given to ``runner.bind``; before that they raise RuntimeError.
"""

from __future__ import annotations

import asyncio
import signal as _signal
from collections.abc import Callable
from typing import Any

from pi_cli.ai.abort import AbortSignal
from pi_cli.extensions.host import ExtensionHost
from pi_cli.extensions.rendering.tool import renderer_from
from pi_cli.extensions.runner import Command, ExtensionRunner, Flag, Registered
from pi_cli.extensions.tools import as_agent_tool

_FLAG_TYPES = ("boolean", "string")


class ExtensionAPI:
    """What one extension file registers; ``source`` (its path) names it in error lines."""

    def __init__(self, runner: ExtensionRunner, source: str) -> None:
        from pi_cli.extensions.event_bus import ExtensionEvents

        self._runner = runner
        self.source = source
        self.events = ExtensionEvents(runner.events, source)  # the bus between extensions

    # -- registration ---------------------------------------------------------------------------

    def on(self, event: str, handler: Callable[..., Any]) -> None:
        """``handler(event: dict, ctx)``, sync or async, for pi's event ``event``."""
        if not callable(handler):
            raise TypeError(f"handler for {event!r} is not callable")
        self._runner.add_handler(event, handler, self.source)

    def register_tool(self, tool: Any) -> None:
        """An AgentTool or a dict with ``name, label, description, parameters, execute``; a tool
        named like a built-in replaces it. ``prompt_snippet`` (one line under "Available tools")
        and ``prompt_guidelines`` (bullets under "Guidelines") join the system prompt while the
        tool is active; an ``execute`` taking a fifth argument gets the tool context (``ctx``).
        ``render_call(args, theme, context)`` / ``render_result(result, options, theme, context)``
        (pi's ``renderCall`` / ``renderResult``) draw the tool's card in the TUI and inline modes
        (see :mod:`pi_cli.extensions.rendering.tool`)."""
        agent_tool = as_agent_tool(tool, self.source, self._runner.tool_context)
        self._runner.tools = [t for t in self._runner.tools if t.value.name != agent_tool.name]
        renderer = renderer_from(tool, self.source, self._runner.theme, self._runner.report)
        if renderer is None:  # a replacement without renderers draws the default again
            self._runner.renderers.pop(agent_tool.name, None)
        else:
            self._runner.renderers[agent_tool.name] = renderer
        self._runner.tools.append(Registered(self.source, agent_tool))
        if self._runner.host is not None:
            from pi_cli.extensions.tool_set import apply_tools

            apply_tools(self._runner)

    def register_command(
        self,
        name: str,
        handler: Callable[..., Any] | dict[str, Any],
        description: str = "",
        *,
        get_argument_completions: Callable[[str], Any] | None = None,
    ) -> None:
        """``/name args`` runs ``handler(args: str, ctx)`` (sync or async) instead of a prompt.
        ``handler`` may also be pi's options object ``{handler, description,
        get_argument_completions}`` (camelCase accepted). ``get_argument_completions(prefix)``
        answers the editor's completion after ``/name ``: a list of ``{value, label?,
        description?}`` (or None); it must answer synchronously."""
        name = name.lstrip("/")
        if not name or " " in name:
            raise ValueError(f"invalid command name {name!r}")
        run: Any = handler
        if isinstance(handler, dict):  # pi's options object
            run = handler.get("handler")
            description = str(handler.get("description") or description)
            get_argument_completions = (
                handler.get("get_argument_completions")
                or handler.get("getArgumentCompletions")
                or get_argument_completions
            )
        if not callable(run):
            raise TypeError(f"command {name!r}: handler is not callable")
        self._runner.commands[name] = Command(name, run, description, self.source, get_argument_completions)

    def register_message_renderer(self, custom_type: str, renderer: Callable[..., Any]) -> None:
        """Draw custom messages of ``custom_type`` (``send_message(display=True)``) in the TUI and
        inline: ``renderer(message, options, theme)`` (see :mod:`pi_cli.extensions.rendering.custom`)."""
        self._runner.message_renderers[custom_type] = self._custom_renderer("message", renderer)

    def register_entry_renderer(self, custom_type: str, renderer: Callable[..., Any]) -> None:
        """Show custom entries of ``custom_type`` (``append_entry``) in the TUI and inline as they are
        appended: ``renderer(entry, options, theme)``; they are never sent to the model."""
        self._runner.entry_renderers[custom_type] = self._custom_renderer("entry", renderer)

    def _custom_renderer(self, kind: str, renderer: Callable[..., Any]) -> Any:
        from pi_cli.extensions.rendering.custom import CustomRenderer

        if not callable(renderer):
            raise TypeError(f"{kind} renderer is not callable")
        return CustomRenderer(self.source, kind, renderer, self._runner.theme, self._runner.report)

    def register_shortcut(self, key: str, handler: Callable[..., Any], description: str = "") -> None:
        """A key (pi's syntax: ``ctrl+shift+s``) that runs ``handler(ctx)`` (sync or async) in the
        TUI and inline modes; a key of a reserved built-in action is skipped with a warning."""
        from pi_cli.extensions.shortcuts import Shortcut, canonical_key

        if not callable(handler):
            raise TypeError(f"handler for shortcut {key!r} is not callable")
        canonical = canonical_key(key)  # a bad key fails register() with one clear line
        shortcuts = self._runner.shortcuts
        shortcuts[:] = [s for s in shortcuts if not (s.source == self.source and s.canonical == canonical)]
        shortcuts.append(Shortcut(key, handler, description, self.source))

    def register_flag(self, name: str, type: str = "boolean", default: Any = None, description: str = "") -> None:
        """A ``--name`` flag; its value comes from :meth:`get_flag`."""
        if type not in _FLAG_TYPES:
            raise ValueError(f"flag {name!r}: type must be one of {', '.join(_FLAG_TYPES)}")
        self._runner.flags[name] = Flag(name, type, default, description, self.source)

    def get_flag(self, name: str) -> Any:
        flag = self._runner.flags.get(name)
        if name in self._runner.flag_values:
            value = self._runner.flag_values[name]
            return bool(value) if flag is not None and flag.type == "boolean" else value
        return None if flag is None else flag.default

    # -- actions ----------------------------------------------------------------------------------

    def _host(self) -> ExtensionHost:
        if self._runner.host is None:
            raise RuntimeError("the session is not ready yet (call this from a handler, not from register)")
        return self._runner.host

    def send_user_message(self, text: str, deliver_as: str | None = None) -> None:
        """Prompt now when idle; while streaming queue it as ``"steer"`` (default) or ``"followUp"``."""
        host = self._host()
        if host.is_streaming:
            (host.follow_up if deliver_as == "followUp" else host.steer)(text)
            return
        task = asyncio.get_running_loop().create_task(host.prompt(text))
        self._runner.pending.add(task)
        task.add_done_callback(self._runner.pending.discard)

    # -- providers (issue 13, extapi) --------------------------------------------------------------

    def register_provider(self, name: str, config: dict[str, Any]) -> None:
        """A provider in ``models.json``'s shape (``baseUrl, api, apiKey, headers, models``). With
        ``stream_simple`` (or ``stream``), ``fn(model, context, options)`` serves its ``api`` (default:
        the provider's name). From ``register`` it applies before the start-up model is chosen."""
        config = dict(config)
        fn = config.pop("stream_simple", None) or config.pop("streamSimple", None) or config.pop("stream", None)
        if fn is not None:
            if not callable(fn):
                raise TypeError(f"provider {name!r}: stream_simple is not callable")
            from pi_cli.ai.stream import register_api

            api = str(config.setdefault("api", name))
            register_api(api, fn)
            config["__own_api__"] = api
        self._runner.providers[name] = config
        registry = self._runner.model_registry
        if registry is not None:
            from pi_cli.extensions.runner import provider_errors

            for line in provider_errors(registry.register_provider(name, config), config):
                self._runner.report(self.source, "register_provider", ValueError(line))

    def register_virtual_model(self, definition: Any) -> None:
        """pi's virtual model: a selectable model whose requests the definition's ``route(request,
        ctx)`` sends to a physical model (see :mod:`pi_cli.extensions.virtual.router`); the same
        provider and id again replaces it. Raises ``ValueError`` naming a bad definition."""
        from pi_cli.extensions.virtual.router import VirtualModel, virtual_model_entry

        model, route = virtual_model_entry(definition)
        runner = self._runner
        virtual = VirtualModel(model, route, self.source, runner.context, runner.model_registry)
        runner.virtual_models[(model["provider"], model["id"])] = virtual
        runner.activate_virtual(virtual)

    def unregister_virtual_model(self, provider: str, model_id: str) -> None:
        """Remove a virtual model (``unregister_provider`` leaves them); unknown ones: nothing."""
        from pi_cli.extensions.virtual.router import deactivate

        if self._runner.virtual_models.pop((provider, model_id), None) is None:
            return
        deactivate(provider, model_id)
        if self._runner.model_registry is not None:
            self._runner.model_registry.unregister_virtual_model(provider, model_id)

    def unregister_provider(self, name: str) -> None:
        """Remove a provider this runner registered: its models go, the ones it overrode come
        back (pi's unregisterProvider); effective at once. Unknown names: nothing."""
        config = self._runner.providers.pop(name, None)
        if config is None:
            return
        own = config.get("__own_api__")
        if own is not None:
            from pi_cli.ai.stream import unregister_api

            unregister_api(str(own))
        registry = self._runner.model_registry
        if registry is not None:
            registry.unregister_provider(name)

    # -- custom messages (issue 13, extapi) ------------------------------------------------------

    def send_message(self, message: dict[str, Any], deliver_as: str | None = None, trigger_turn: bool = False) -> None:
        """A custom message (``customType, content, display, details``) into the context and the
        session file (pi's ``custom_message`` entry). While streaming it is steered (default) or
        queued as a follow-up; ``deliver_as="nextTurn"`` holds it for the next prompt; when idle it
        is appended, and ``trigger_turn=True`` starts a turn with it."""
        from pi_cli.extensions.prompts import custom_message

        if deliver_as not in (None, "steer", "followUp", "nextTurn"):
            raise ValueError(f"deliver_as must be steer, followUp or nextTurn, not {deliver_as!r}")
        host = self._host()
        built = custom_message(message)
        if deliver_as == "nextTurn":
            self._runner.next_turn.append(built)
        elif host.is_streaming:
            (host.agent.follow_up if deliver_as == "followUp" else host.agent.steer)(built)
        else:
            run = host.add_custom_message(built, trigger_turn)
            if run is not None:
                task = asyncio.get_running_loop().create_task(run)
                self._runner.pending.add(task)
                task.add_done_callback(self._runner.pending.discard)

    def append_entry(self, custom_type: str, data: Any = None) -> None:
        """A ``custom`` session entry (kept in the file, never sent to the model), announced to the
        session's listeners as ``entry_appended`` at once, as pi does (RPC clients see it)."""
        host = self._host()
        entry = host.store.append_custom_entry(custom_type, data)
        if entry is not None:
            host.emit_nowait({"type": "entry_appended", "entry": entry})

    def get_active_tools(self) -> list[str]:
        return [t.name for t in self._host().agent.state.tools]

    def get_all_tools(self) -> list[dict[str, Any]]:
        from pi_cli.extensions.tool_set import all_tools

        tools = [{"name": t.name, "description": t.description} for t in all_tools(self._runner).values()]
        mcp = self._host().mcp  # MCP tools, with their servers' annotations
        return tools + (mcp.tool_infos() if mcp is not None else [])

    def set_active_tools(self, names: list[str]) -> None:
        """Only these tools (built-in or extension) from the next model call; unknown names ignored."""
        from pi_cli.extensions.tool_set import set_active

        set_active(self._runner, names)

    def set_model(self, model: Any) -> None:
        """Switch the session's model (not saved as the default, as pi's ``pi.setModel``)."""
        self._host().set_model(model, persist=False)

    def set_thinking_level(self, level: str) -> None:
        """Set the thinking level (clamped to what the model supports, as pi; not saved as the default)."""
        self._host().set_thinking_level(level, persist=False)

    def get_thinking_level(self) -> str:
        """``"off"``, ``"minimal"``, ``"low"``, ``"medium"``, ``"high"`` or ``"xhigh"``."""
        return str(self._host().thinking_level)

    # -- session metadata and commands (issue 31) ---------------------------------------------------

    def set_session_name(self, name: str) -> None:
        """The session's display name (the session pickers show it instead of the first prompt);
        written as a ``session_info`` entry and announced as ``session_info_changed``."""
        self._host().set_session_name(str(name))

    def get_session_name(self) -> str | None:
        return self._host().session_name

    def set_label(self, entry_id: str, label: str | None) -> None:
        """Bookmark entry ``entry_id`` (shown in ``/tree``); None or "" clears it. Raises KeyError
        for an entry the session does not have."""
        self._host().store.append_label_change(entry_id, label or None)

    def get_commands(self) -> list[dict[str, Any]]:
        """The ``/commands`` a prompt can invoke, as RPC ``get_commands``: extension commands, then
        prompt templates and skills (``{name, description?, source, ...}``); the front ends' own
        commands (``/model``, ``/tree``…) are not among them, as in pi."""
        host = self._runner.host
        return self._runner.command_list() if host is None else host.get_commands()

    async def exec(
        self,
        command: str,
        args: list[str] | None = None,
        options: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        timeout_seconds: float | None = None,
        signal: AbortSignal | None = None,
        cwd: str | None = None,
    ) -> dict[str, Any]:
        """Run a program (no shell): ``{stdout, stderr, code, killed}``; a killed process has code
        128+signal. As pi, ``timeout`` is in **milliseconds**; ``timeout_seconds`` says the same in
        seconds (pi_cli's earlier unit, kept under a name that cannot be mistaken). ``signal``
        (an AbortSignal, e.g. a tool's or ``ctx.signal``) kills the process when it fires; ``cwd``
        defaults to the session's. pi's ``options`` dict (``{"timeout", "signal", "cwd"}``) is
        accepted too. With the session's sandbox on it runs confined, as the bash tool's commands."""
        options = dict(options or {})
        if timeout is None:
            timeout = options.get("timeout")
        signal = signal if signal is not None else options.get("signal")
        cwd = cwd if cwd is not None else options.get("cwd")
        if timeout is not None and timeout_seconds is not None:
            raise ValueError("exec: give timeout (ms) or timeout_seconds, not both")
        limit = timeout_seconds if timeout_seconds is not None else (timeout / 1000 if timeout is not None else None)
        sandbox = self._runner.sandbox
        confinement = sandbox.confinement() if sandbox is not None else None
        start = asyncio.create_subprocess_exec if confinement is None else confinement.create_subprocess_exec
        proc = await start(
            command,
            *(args or []),
            cwd=cwd or self._runner.cwd,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            stdin=asyncio.subprocess.DEVNULL,
        )
        killed = False

        def kill() -> None:
            nonlocal killed
            if proc.returncode is None:
                killed = True
                proc.send_signal(_signal.SIGKILL)

        remove = signal.add_callback(kill) if signal is not None else None
        try:
            out, err = await asyncio.wait_for(proc.communicate(), limit)
        except TimeoutError:
            kill()
            out, err = await proc.communicate()
        finally:
            if remove is not None:
                remove()
        code = proc.returncode if proc.returncode is not None else 1
        if code < 0:
            code = 128 - code
        return {
            "stdout": out.decode(errors="replace"),
            "stderr": err.decode(errors="replace"),
            "code": code,
            "killed": killed,
        }
