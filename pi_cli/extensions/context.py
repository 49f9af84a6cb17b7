"""``ExtensionContext``: the ``ctx`` every extension handler receives (commands get the larger
:class:`CommandContext`), with its read-only :class:`SessionView` and ``session_manager``.

The runner builds one per call; it is seen here as a :class:`ContextHost` (its cwd, mode, the
bound session and the mode's UI), so this module does not import the runner. As in pi, the
session-file operations that wait for the agent (``new_session``, ``fork``, ``switch_session``,
``reload``, ``wait_for_idle``) exist on a command's context only: from an event handler they
could wait for the very run that is calling them.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any, Protocol

from pi_cli.extensions.host import ExtensionHost
from pi_cli.extensions.model_registry import ModelRegistryView
from pi_cli.extensions.rendering.theme import ExtensionTheme
from pi_cli.extensions.session_manager import ReadonlySessionManager
from pi_cli.extensions.ui import DialogOptionsUI, ExtensionUI, PromptSpan

# ``ctx.mode``: pi's names ("tui", "rpc", "json", "print") plus pi_cli's own front ends.
MODES = ("tui", "inline", "print", "json", "rpc", "acp")


class ContextHost(Protocol):
    """What ``ctx`` needs of the extension runner (its plain attributes; ``ctx`` only reads them)."""

    cwd: str
    mode: str
    trust_check: Callable[[], bool]
    prompt_span: PromptSpan

    def report(self, source: str, event: str, exc: BaseException) -> None: ...

    host: ExtensionHost | None
    ui: ExtensionUI
    shutdown_handler: Callable[[], None] | None
    pending: set[Any]
    model_registry: Any

    def theme(self) -> ExtensionTheme: ...


class SessionView:
    """Read-only view of the session for ``ctx.session``."""

    def __init__(self, host: ExtensionHost | None) -> None:
        self._host = host

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [] if self._host is None else list(self._host.messages)

    @property
    def model(self) -> Any:
        return None if self._host is None else self._host.model

    @property
    def thinking_level(self) -> str | None:
        return None if self._host is None else str(self._host.thinking_level)

    @property
    def session_file(self) -> str | None:
        return None if self._host is None else self._host.session_file

    @property
    def session_id(self) -> str | None:
        return None if self._host is None else str(self._host.session_id)


class ExtensionContext:
    """``ctx``: ``cwd``, ``mode``, ``has_ui``, ``ui``, ``session`` and ``session_manager``
    (read-only), ``model``, ``thinking_level``, ``is_project_trusted()``, ``model_registry``,
    ``signal``, ``abort()``, ``is_idle()``, ``has_pending_messages()``, ``get_context_usage()``,
    ``get_system_prompt()``, ``compact(...)``, ``shutdown()``."""

    def __init__(self, runner: ContextHost, signal: Any = None) -> None:
        self._runner = runner
        self.cwd = runner.cwd
        # The abort signal of the work this context serves (a tool call's; None elsewhere), for
        # nested work that should stop with it (``pi.exec(..., signal=ctx.signal)``).
        self.signal = signal
        self.session = SessionView(runner.host)
        self.session_manager = ReadonlySessionManager(runner.host, runner.cwd)

    @property
    def mode(self) -> str:
        """The front end: ``"tui"``, ``"inline"``, ``"print"``, ``"json"``, ``"rpc"`` or ``"acp"``.
        pi's examples test ``ctx.mode == "tui"`` for terminal-only work; in pi_cli the inline
        front end is a terminal too (``ctx.mode in ("tui", "inline")``)."""
        return self._runner.mode

    @property
    def ui(self) -> DialogOptionsUI:
        """The front end's UI, with pi's ``timeout``/``signal`` options on its dialogs (and this
        context's signal ending a ``custom`` component)."""
        runner = self._runner
        return DialogOptionsUI(runner.ui, runner.theme, runner.host, runner.prompt_span, self.signal)

    @property
    def has_ui(self) -> bool:
        return bool(self._runner.ui.has_ui)

    @property
    def model(self) -> Any:
        host = self._runner.host
        return None if host is None else host.model

    @property
    def thinking_level(self) -> str | None:
        """The active model's effective thinking level (``"off"`` … ``"xhigh"``), None before the
        session exists."""
        host = self._runner.host
        return None if host is None else str(host.thinking_level)

    def is_project_trusted(self) -> bool:
        """Whether this folder's project resources are trusted for this session (a saved decision,
        this run's answer, ``--approve``, or an extension's ``project_trust`` answer)."""
        return bool(self._runner.trust_check())

    @property
    def model_registry(self) -> ModelRegistryView:
        """The session's models: ``find``, ``get_available``, ``complete``… (see the module)."""
        return ModelRegistryView(self._runner.model_registry)

    def _host(self) -> ExtensionHost:
        host = self._runner.host
        if host is None:
            raise RuntimeError("the session is not ready yet (call this from a handler, not from register)")
        return host

    def is_idle(self) -> bool:
        host = self._runner.host
        return host is None or not host.is_streaming

    def has_pending_messages(self) -> bool:
        """Steering or follow-up messages wait in the agent's queues."""
        host = self._runner.host
        return host is not None and bool(host.agent.steering_queue or host.agent.follow_up_queue)

    def abort(self) -> None:
        """Stop the current run (as Esc does); returns at once, the run ends shortly after."""
        host = self._runner.host
        if host is not None:
            host.agent.abort()

    def get_context_usage(self) -> dict[str, Any] | None:
        """``{tokens, contextWindow, percent}`` of the active model (the last reply's usage plus an
        estimate of what came after it), or None when unknown (no model, no session yet)."""
        host = self._runner.host
        return None if host is None else host.context_usage()

    def get_system_prompt(self) -> str:
        """The system prompt in force (a ``before_agent_start`` replacement during its run)."""
        return str(self._host().agent.state.system_prompt)

    def compact(
        self,
        custom_instructions: str | None = None,
        on_complete: Callable[[dict[str, Any]], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> asyncio.Task[None]:
        """Start a compaction without waiting for it (as pi; a running prompt is aborted first).
        ``on_complete(result)`` or ``on_error(exc)`` (sync or async) follows; without ``on_error``
        a failure becomes an error notice (``ui.notify``). Returns the task (await it if you like)."""
        host = self._host()
        runner = self._runner

        async def run() -> None:
            try:
                result = await host.compact_now(custom_instructions)
            except Exception as exc:
                if on_error is None:  # nobody awaits the task: say it, never leave it unretrieved
                    self.ui.notify(f"Compaction failed: {exc}", "error")
                else:
                    await _maybe_await(on_error(exc))
                return
            if on_complete is not None:
                await _maybe_await(on_complete(result))

        task = asyncio.get_running_loop().create_task(run())
        runner.pending.add(task)
        task.add_done_callback(runner.pending.discard)
        return task

    def shutdown(self) -> None:
        """Ask pi_cli to quit once the agent is idle (TUI, inline, RPC); ``session_shutdown``
        reaches the extensions on the way out. Print, json and ACP: nothing (as pi's print mode:
        the process ends when its prompts are done; an ACP client owns the process)."""
        handler = self._runner.shutdown_handler
        if handler is not None:
            handler()


class CommandContext(ExtensionContext):
    """A command handler's ``ctx``: :class:`ExtensionContext` plus the session control that
    waits for the agent (pi's ExtensionCommandContext). Each operation returns pi's
    ``{"cancelled": bool, ...}``: a ``session_before_switch``/``session_before_fork`` handler may
    cancel it. Raises pi_cli's FeatureUnavailableError when the session keeps no file."""

    async def wait_for_idle(self) -> None:
        """Return once the agent has finished its run (at once when idle)."""
        await self._host().agent.wait_for_idle()

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        """Start a new session file (``/new``); ``parent_session`` goes into its header."""
        return await self._host().new_session(parent_session)

    async def fork(self, entry_id: str) -> dict[str, Any]:
        """A new session holding the history before user entry ``entry_id`` (``/fork``);
        ``{"cancelled", "text"}`` with that entry's text."""
        return await self._host().fork(entry_id)

    async def switch_session(self, path: str) -> dict[str, Any]:
        """Continue in another session file (``/resume``)."""
        return await self._host().switch_session(path)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, Any]:
        """Move the leaf to ``target_id`` in the same file (``/tree``), optionally with a summary
        of the branch left behind (``session_before_tree`` handlers take part). Returns pi's
        ``{"cancelled", "editorText"?}``: the text of a picked user message is for the editor."""
        result = await self._host().navigate_tree(
            target_id, summarize=summarize, custom_instructions=custom_instructions,
            replace_instructions=replace_instructions, label=label, signal=self.signal,
        )  # fmt: skip
        out: dict[str, Any] = {"cancelled": bool(result.cancelled or result.aborted)}
        if result.editor_text is not None:
            out["editorText"] = result.editor_text
        return out

    async def reload(self) -> None:
        """pi's ``/reload`` from a command: the session's resources and every extension loaded
        again (this command's own extension included: its handlers are replaced). Problems are
        reported as extension errors; raises ``AgentBusyError`` while the agent runs."""
        runner = self._runner
        for line in await self._host().reload():
            runner.report("reload", "reload", ValueError(line))


async def _maybe_await(value: Any) -> None:
    if inspect.isawaitable(value):
        await value
