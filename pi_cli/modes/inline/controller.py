"""Inline mode's brain: turns session events into scrollback output and a live area, and turns
keystrokes (submit, follow-up, abort, restore, quit) into session calls.

It knows nothing about prompt_toolkit: the app hands it a ``print`` function for scrollback and an
``invalidate`` function to redraw the live area, so the whole flow is testable with plain objects.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType

from pi_cli.modes.display import loaded_resource_lines, preview_lines, result_text, tool_call_title
from pi_cli.modes.extension_bridge import bind_extension_ui, extensions_quit, quit_when_idle
from pi_cli.modes.inline import render
from pi_cli.modes.inline.approvals import InlineApprovals
from pi_cli.modes.inline.commands import InlineCommands
from pi_cli.modes.inline.component import InlineComponents
from pi_cli.modes.inline.extensions import ExtensionView
from pi_cli.modes.inline.login import InlineLogin
from pi_cli.modes.input_routing import QUIT_HINT, QuitGuard, restored_editor_text, route_input
from pi_cli.modes.terminal_images import DEFAULT_WIDTH_CELLS, image_protocol, in_tmux
from pi_cli.tools.sanitize import strip_control_sequences as safe

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

LIVE_TEXT_LINES = 12
STREAM_FRAME_S = 0.1  # redraw interval while text streams


@dataclass(slots=True)
class RunningTool:
    name: str
    args: dict[str, Any]
    output: str = ""


@dataclass(slots=True)
class LiveState:
    """What the bottom area shows while the agent works."""

    text: list[str] = field(default_factory=list)  # streaming assistant text, as deltas
    thinking: list[str] = field(default_factory=list)
    tools: dict[str, RunningTool] = field(default_factory=dict)
    status: str = ""

    def clear(self) -> None:
        self.text.clear()
        self.thinking.clear()
        self.tools.clear()
        self.status = ""


class InlineController:
    """Wires one AgentSession to a scrollback printer and an input editor."""

    def __init__(
        self,
        session: AgentSession,
        print_renderable: Callable[[RenderableType], None],
        invalidate: Callable[[], None] = lambda: None,
        exit_app: Callable[[], None] = lambda: None,
    ) -> None:
        self.session = session
        self._print = print_renderable
        self._invalidate = invalidate
        self._exit = exit_app
        self.live = LiveState()
        self._ctrl_c = QuitGuard()
        terminal = session.settings.terminal  # images in tool results: drawn where the terminal can
        self._image_protocol = image_protocol(show_images=terminal.show_images)
        self._image_width = terminal.image_width_cells or DEFAULT_WIDTH_CELLS
        self._image_tmux = in_tmux()
        self._side_task: asyncio.Future[None] | None = None
        self._run: asyncio.Future[None] | None = None  # the prompt run started from the editor
        self._bash_run: asyncio.Future[None] | None = None  # the user's ``!cmd``
        self._abort_task: asyncio.Future[None] | None = None
        self._stream_timer: asyncio.TimerHandle | None = None
        self.exit_code = 0
        self.login = InlineLogin(print_renderable, invalidate)  # /login, /logout
        self.approvals = InlineApprovals(print_renderable, invalidate)  # tool approval questions
        if session.permissions is not None:
            session.permissions.ui = self.approvals
        self.on_editor_text: Callable[[str], None] | None = None  # the app's prompt-buffer setter
        self.on_title: Callable[[str], None] | None = None  # the app's terminal-title setter
        self.on_copy: Callable[[str], None] = lambda text: None  # the app's clipboard writer (OSC 52)
        self.commands = InlineCommands(
            session, print_renderable, self.approvals, self.login, quit_app=exit_app,
            set_editor_text=self._set_editor_text, copy_text=lambda text: self.on_copy(text),
        )  # fmt: skip
        self.extension_view = ExtensionView(session.extensions)
        self.components = InlineComponents()  # ctx.ui.custom, in the prompt's place
        bind_extension_ui(
            session, self.approvals, self.notify, self._set_editor_text, self._extension_changed,
            mode="inline", shutdown=quit_when_idle(session, exit_app), present=self.components.present,
        )  # fmt: skip
        self.unsubscribe = session.subscribe(self.on_event)

    # --- extensions ----------------------------------------------------------------------

    def notify(self, text: str, level: str | None = None) -> None:
        """An extension's notice (or error) in the scrollback."""
        styles = {"info": "grey62", "warning": "yellow", "error": "bold red"}
        self._print(render.notice(text, styles.get(level or "info", "grey62")))

    def _set_editor_text(self, text: str) -> None:
        if self.on_editor_text is not None:
            self.on_editor_text(text)

    def _extension_changed(self, kind: str, key: str) -> None:
        self.extension_view.changed(kind, key)
        if kind == "title" and self.on_title is not None:  # ctx.ui.set_title
            self.on_title(str(getattr(getattr(self.session.extensions, "ui", None), "title", "") or ""))
        self._invalidate()

    # --- state ---------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while the session runs a prompt (preflight to ``agent_settled``): the session's
        state alone decides whether text is queued or starts a run, as in the TUI."""
        return bool(self.session.is_streaming)

    def show_startup(self, version: str) -> None:
        """The start header: version, key hints and the session's startup notices."""
        resources = loaded_resource_lines(self.session, self.session.cwd)
        self._print(render.header(version, self.session.startup_notices, resources))

    def queued(self) -> tuple[list[str], list[str]]:
        """Pending (steering, follow-up) texts."""
        return list(self.session.steering_messages), list(self.session.follow_up_messages)

    # --- events --------------------------------------------------------------------------

    def _stream_redraw(self) -> None:
        """Redraw for streamed text at most every ``STREAM_FRAME_S``: every delta asked for one,
        and each redraw lays out the whole live area (22 % of a core at 100 tokens/s). Keys and
        other events still redraw at once."""
        if self._stream_timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (plain-object tests): redraw now
            self._invalidate()
            return
        self._stream_timer = loop.call_later(STREAM_FRAME_S, self._stream_tick)

    def _stream_tick(self) -> None:
        self._stream_timer = None
        self._invalidate()

    def on_event(self, event: dict[str, Any], *_: Any) -> None:
        """Session listener: cheap bookkeeping, printing only at message boundaries."""
        kind = event.get("type")
        if kind == "message_update":
            sub = event.get("assistantMessageEvent") or {}
            if sub.get("type") == "text_delta":
                self.live.text.append(sub.get("delta", ""))
            elif sub.get("type") == "thinking_delta":
                self.live.thinking.append(sub.get("delta", ""))
            self._stream_redraw()
            return
        elif kind == "message_start":
            self._on_message_start(event.get("message") or {})
        elif kind == "message_end":
            self._on_message_end(event.get("message") or {})
        elif kind == "tool_execution_start":
            call_id = str(event.get("toolCallId"))
            self.live.tools[call_id] = RunningTool(str(event.get("toolName")), dict(event.get("args") or {}))
        elif kind == "tool_execution_update":
            tool = self.live.tools.get(str(event.get("toolCallId")))
            if tool is not None:
                tool.output = result_text(event.get("partialResult"))
        elif kind == "tool_execution_end":
            tool = self.live.tools.pop(str(event.get("toolCallId")), None)
            name = tool.name if tool else str(event.get("toolName"))
            args = tool.args if tool else {}
            runner = self.session.extensions
            renderer = runner.renderer_for(name) if runner is not None else None
            call_id = str(event.get("toolCallId", ""))
            result, is_error = event.get("result"), bool(event.get("isError"))
            self._print(render.tool_block(name, args, result, is_error, renderer, call_id))
            for image in render.result_images(
                event.get("result"), self._image_protocol, self._image_width, self._image_tmux
            ):
                self._print(image)
        elif kind == "auto_retry_start":
            delay = int(event.get("delayMs", 0)) / 1000
            self.live.status = (
                f"Retrying ({event.get('attempt')}/{event.get('maxAttempts')}) in {delay:g}s... (ctrl+c to cancel)"
            )
        elif kind == "auto_retry_end":
            self.live.status = ""
            if not event.get("success") and event.get("finalError"):
                self._print(render.error_block(f"Retry failed: {event.get('finalError')}"))
        elif kind == "compaction_start":
            self.live.status = "Compacting context... (ctrl+c to cancel)"
        elif kind == "compaction_end":
            self.live.status = ""
            if event.get("errorMessage"):  # already "Compaction failed: …"
                self._print(render.error_block(str(event["errorMessage"])))
            elif event.get("result"):
                self._print(render.notice("Context compacted."))
        elif kind == "entry_appended":
            entry, runner = event.get("entry") or {}, self.session.extensions
            found = runner.entry_renderers.get(str(entry.get("customType", ""))) if runner is not None else None
            if found is not None and entry.get("type") == "custom":  # shown only with a renderer
                self._print(render.custom_block(entry, found))
        elif kind == "agent_end":
            self.live.clear()
        self._invalidate()

    def _on_message_start(self, message: dict[str, Any]) -> None:
        role = message.get("role")
        if role == "user":
            self._print(render.user_block(_message_text(message)))
        elif role == "custom" and message.get("display"):
            runner = self.session.extensions
            found = runner.message_renderers.get(str(message.get("customType", ""))) if runner is not None else None
            self._print(render.custom_block(message, found))
        elif role == "assistant":
            self.live.text.clear()
            self.live.thinking.clear()

    def _on_message_end(self, message: dict[str, Any]) -> None:
        if message.get("role") != "assistant":
            return
        self.live.text.clear()
        self.live.thinking.clear()
        for block in message.get("content") or []:
            if block.get("type") == "thinking" and block.get("thinking", "").strip():
                self._print(render.thinking_block(block["thinking"]))
            elif block.get("type") == "text" and block.get("text", "").strip():
                self._print(render.assistant_text_block(block["text"]))
        reason = message.get("stopReason")
        if reason == "aborted":
            self._print(render.error_block("Operation aborted"))
        elif reason == "error":
            self._print(render.error_block(f"Error: {message.get('errorMessage') or 'unknown error'}"))

    # --- live area -----------------------------------------------------------------------

    def has_live(self) -> bool:
        """Whether the live area has anything to show (cheap: no text is joined or wrapped)."""
        live = self.live
        steering, follow_up = self.queued()
        return bool(live.text or live.thinking or live.tools or self.running or steering or follow_up)

    def live_lines(self, width: int) -> list[tuple[str, str]]:
        """(style, text) lines for the bottom area: streaming text tail, running tools, queue."""
        out: list[tuple[str, str]] = []
        if self.live.thinking and not self.live.text:
            tail = _tail_lines(safe("".join(self.live.thinking)), 3, width)
            out.extend(("class:thinking", line) for line in tail)
        if self.live.text:
            out.extend(("", line) for line in _tail_lines(safe("".join(self.live.text)), LIVE_TEXT_LINES, width))
        for tool in self.live.tools.values():
            out.append(("class:tool", _clip(safe(tool_call_title(tool.name, tool.args)), width)))
            lines, _hidden = preview_lines(safe(tool.output), 3)
            out.extend(("class:tool-output", _clip("  " + line, width)) for line in lines)
        working = self.live.status or self.extension_view.working_text() if self.running else ""
        if working:  # an extension may hide the working line (set_working_visible)
            out.append(("class:status", working))
        steering, follow_up = self.queued()
        for text in steering:
            out.append(("class:queue", _clip(f"Steering: {_one_line(text)}", width)))
        for text in follow_up:
            out.append(("class:queue", _clip(f"Follow-up: {_one_line(text)}", width)))
        if steering or follow_up:
            out.append(("class:queue", "↳ Alt+Up to edit all queued messages"))
        return out

    # --- input actions -------------------------------------------------------------------

    def submit(self, text: str, *, follow_up: bool = False) -> None:
        """Enter (or Alt+Enter with ``follow_up``): route the text by the rules both front ends share."""
        if self.login.waiting and text.strip():
            self.login.answer(text.strip())  # a login asked for a pasted code
            return
        if self.approvals.offer(text):  # "1".."4" answers a waiting approval question
            return
        route = route_input(text, running=self.running, follow_up=follow_up)
        if route.kind == "empty":
            return
        if route.kind == "command":
            self._run_command(route.text, follow_up)
        elif route.kind == "bash":
            self._bash_run = asyncio.ensure_future(self._bash(route.text, route.exclude_from_context))
        else:
            self.send(route.text, follow_up=follow_up)

    def send(self, text: str, *, follow_up: bool = False) -> None:
        """Give ``text`` to the session, which queues it while it runs (Enter: steering; Alt+Enter:
        a follow-up) or starts a run with it, in one synchronous step (see ``PiApp.send``)."""
        was_running = self.running
        try:
            run = self.session.begin_prompt(text, streaming_behavior="followUp" if follow_up else "steer")
        except Exception as exc:  # refused at once (no model, no key): shown, never raised
            self._print(render.error_block(str(exc)))
            return
        self._invalidate()
        if run is None:
            return
        task = asyncio.ensure_future(self._prompt(run))
        if was_running:
            self._side_task = task  # extensions: a command runs now, other text passes `input` first
        else:
            self._run = task

    def run_line(self, text: str) -> None:
        """A command a key stands for (Ctrl-L: ``/model``, Esc Esc: ``/tree``), as if typed."""
        self._run_command(text, False)

    def _run_command(self, text: str, follow_up: bool) -> None:
        """A built-in (or unknown) ``/name`` runs here, never reaching the model; a template, skill
        or extension command is the session's and is sent on."""
        if not self.commands.knows(text):
            self.send(text, follow_up=follow_up)
            return

        async def go() -> None:
            await self.commands.run(text)
            self._invalidate()

        # A command is not an agent run: it must not make the next Enter count as steering.
        self._side_task = asyncio.ensure_future(go())

    async def _prompt(self, run: Any) -> None:
        try:
            await run
        except Exception as exc:  # a refused prompt (no model, bad template) is shown, not raised
            self._print(render.error_block(str(exc)))
        finally:
            self._invalidate()

    async def _bash(self, command: str, exclude: bool) -> None:
        """A user's ``!cmd``: output streams into the live area, then the block is committed."""
        if not command:
            return
        running = RunningTool("bash", {"command": command})
        self.live.tools["!bash"] = running

        def on_chunk(text: str) -> None:
            running.output += text
            self._invalidate()

        try:
            result = await self.session.run_bash(command, exclude_from_context=exclude, on_chunk=on_chunk)
        except Exception as exc:
            self._print(render.error_block(str(exc)))
            return
        finally:
            self.live.tools.pop("!bash", None)
        self._print(
            render.bash_run_block(
                command, str(result.get("output", "")), result.get("exitCode"), bool(result.get("cancelled"))
            )
        )
        self._invalidate()

    def restore_queue(self, current: str) -> str:
        """Alt+Up: pull every queued message back into the editor text."""
        steering, follow_up = self.session.clear_queues()
        if not steering and not follow_up:
            return current
        self._invalidate()
        return restored_editor_text([*steering, *follow_up], current)

    def ctrl_c(self, current: str) -> str:
        """Ctrl-C: abort when running (queued text returns to the editor); else clear, twice quits."""
        if self.login.waiting:
            self.login.cancel()
            return current
        if self.session.is_bash_running:
            self.session.abort_bash()
            return current
        if self.running:
            restored = self.restore_queue(current)
            self._abort_task = asyncio.ensure_future(self.session.abort())
            return restored
        if self.approvals.cancel():  # a command's pick (or an extension's question) was waiting
            return current
        if self._ctrl_c.press(current) == "quit":
            self._exit()
        else:
            self._print(render.notice(QUIT_HINT, "dim"))
        return ""

    def ctrl_d(self, current: str) -> bool:
        """Ctrl-D: quit when the editor is empty; returns True when it quit."""
        if current:
            return False
        self._exit()
        return True

    async def shutdown(self) -> None:
        """Abort any run, stop listening, and let extensions hear ``session_shutdown``."""
        if self.running:
            await self.session.abort()
        if self._bash_run is not None and not self._bash_run.done():
            self.session.abort_bash()
        if self._run is not None:
            try:
                await asyncio.wait_for(self._run, timeout=2)
            except (TimeoutError, asyncio.CancelledError):
                self._run.cancel()
            except Exception:  # the run already reported its own error
                pass
        self.unsubscribe()
        await extensions_quit(self.session)


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 1)] + "…"


def _tail_lines(text: str, keep: int, width: int) -> list[str]:
    """The last ``keep`` screen rows of ``text`` wrapped at ``width`` (cheap: only the tail is wrapped)."""
    width = max(width, 10)
    rows: list[str] = []
    for line in reversed(text.split("\n")[-keep:]):
        chunks = [line[i : i + width] for i in range(0, len(line), width)] or [""]
        rows[:0] = chunks
        if len(rows) >= keep:
            break
    return rows[-keep:]
