"""PiApp: the full-screen Textual front end over one AgentSession.

Layout, top to bottom: transcript (start header first), working line, queue list, completion
menu, editor, footer. The session's listener is ``EventPump.push`` — it only appends — and the
pump renders merged batches through ``EventRenderer``. Keys follow pi (see ``keys.py``), with
DESIGN.md's rule that Ctrl-C aborts a running agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import TextArea

from pi_cli.modes.display import footer_facts, git_branch
from pi_cli.modes.input_routing import QUIT_HINT, QuitGuard, Route, restored_editor_text, route_input
from pi_cli.modes.interactive.attach import AttachmentError, ImageAttachments
from pi_cli.modes.interactive.keys import APP_KEYS, describe
from pi_cli.modes.interactive.pump import EventPump, KeysFirst
from pi_cli.modes.interactive.render import EventRenderer
from pi_cli.modes.interactive.restyle import ThemeStylesheet, coalesced_repaints
from pi_cli.modes.interactive.slash.runner import CommandRunner
from pi_cli.modes.interactive.startup import NO_MODEL_TEXT, is_demo_model, startup_header
from pi_cli.modes.interactive.widgets.custom_view import CustomView
from pi_cli.modes.interactive.widgets.editor import CompletionMenu, PromptEditor
from pi_cli.modes.interactive.widgets.main_screen import MainScreen
from pi_cli.modes.interactive.widgets.messages import Notice, ThinkingBlock
from pi_cli.modes.interactive.widgets.status import FooterBar, QueueArea, WorkingLine
from pi_cli.modes.interactive.widgets.tool_card import ToolCard
from pi_cli.modes.interactive.widgets.transcript import Transcript
from pi_cli.modes.terminal_images import DEFAULT_WIDTH_CELLS, in_tmux, tui_image_protocol

if TYPE_CHECKING:
    from pi_cli.extensions.rendering import CustomRenderer, ToolRenderer
    from pi_cli.modes.interactive.extension_ui.bridge import ExtensionChrome
    from pi_cli.modes.interactive.extension_ui.editor_slot import EditorSlot
    from pi_cli.session.agent_session import AgentSession

DOUBLE_ESCAPE_S = 0.5  # pi's window for the double-Escape action on an empty editor


class PiApp(App[int]):
    """The interactive mode. ``session`` is an AgentSession (duck-typed: see the module docs)."""

    TITLE = "pi"
    AUTO_FOCUS = "#editor"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(s.keys, s.action, s.description, id=s.id, priority=True, show=False) for s in APP_KEYS),
        # The transcript is a full-screen scroll view, so without these a keyboard-only user (tmux
        # without mouse mode) could not read back; the editor's own page keys matter far less.
        Binding("pageup", "scroll_transcript(-1)", "Scroll up", priority=True, show=False),
        Binding("pagedown", "scroll_transcript(1)", "Scroll down", priority=True, show=False),
    ]
    CSS = """
    Screen { layout: vertical; }
    #bottom { height: auto; dock: bottom; }
    /* An assistant message already starts with a blank line; a card or notice opening it (a
       tool-only turn, an error) added a second one. */
    AssistantView > ToolCard:first-child, AssistantView > Notice:first-child { margin-top: 0; }
    /* Expanded thinking ran straight into the answer; a gap tells them apart (pi has one too). */
    AssistantView > ThinkingBlock { margin-bottom: 1; }
    /* Toasts at the top right: at the bottom they covered the editor and the footer. */
    ToastRack { dock: top; align: right top; margin-bottom: 0; }
    """

    def __init__(
        self,
        session: AgentSession,
        initial_messages: list[str] | None = None,
        *,
        keymap: dict[str, str] | None = None,
        warnings: list[str] | None = None,
        max_mounted: int = 40,
        terminal_dark: bool | None = None,
    ) -> None:
        """``terminal_dark``: the terminal's background as it reported it (None: unknown), for
        themes that follow it."""
        super().__init__()
        # Before any CSS source is read (App.__init__ reads none): keeps parsed rules per theme.
        # theme_variables: what App.__init__ just built its stylesheet from (no second build).
        self.stylesheet = ThemeStylesheet(variables=self.theme_variables)
        self.session = session
        self.cwd = Path(session.cwd)
        self.initial_messages = list(initial_messages or [])
        self.user_keymap = dict(keymap or {})
        self.startup_warnings = list(warnings or [])
        self.tools_expanded = False
        self.show_thinking = False
        self.thinking_label: str | None = None  # an extension's set_hidden_thinking_label (None: default)
        self.header_factory: Callable[..., Any] | None = None  # an extension's set_header (None: ours)
        self.editor_slot: EditorSlot | None = None  # an extension's editor (set_editor_component)
        terminal = session.settings.terminal  # pi's terminal.showImages / terminal.imageWidthCells
        image_cells = (terminal.image_width_cells or DEFAULT_WIDTH_CELLS) if terminal.show_images else 0
        protocol = tui_image_protocol(show_images=terminal.show_images)
        self.transcript = Transcript(
            id="transcript", max_mounted=max_mounted, image_cells=image_cells, image_protocol=protocol,
            image_tmux=in_tmux(),
        )  # fmt: skip
        self.editor = PromptEditor(cwd=self.cwd, id="editor")
        self.menu = CompletionMenu(id="completion")
        self.working = WorkingLine(id="working")
        self.queue_area = QueueArea(id="queue")
        self.footer_bar = FooterBar(id="footer")
        self.renderer = EventRenderer(
            self.transcript, self._after_event, self._child_messages, self._message_renderer, self._entry_renderer
        )
        self.keys_first = KeysFirst(self._paints, self._input_queued)
        self.pump = EventPump(self._render_frame, before_frame=self.keys_first.wait)
        self.commands = CommandRunner(self)
        if session.permissions is not None:  # a call that asks opens the approval dialog
            from pi_cli.modes.interactive.slash.permissions import TuiApprovalUI

            session.permissions.ui = TuiApprovalUI(self)
        if session.resume_requested:  # ``pi -r``: the session picker first; cancelling it quits
            session.resume_requested = False
            self.call_later(self.commands.session_commands.open_resume, True)
        self._unsubscribe: Any = None
        self.after_first_paint: list[Callable[[], None]] = []  # run by _warm_up, in idle time
        self.extension_ui: ExtensionChrome | None = None  # when the session has extensions
        self._run_task: asyncio.Task[None] | None = None
        self._bash_task: asyncio.Task[None] | None = None
        self._ctrl_c = QuitGuard()
        self._last_escape = 0.0
        self._markdown_theme = ""  # the Textual theme the answers on screen were styled for
        self.attachments = ImageAttachments(self.cwd)  # images for the next message (Ctrl-V, dropped paths)
        self._branch = git_branch(self.cwd)
        self.terminal_dark = terminal_dark
        self.show_theme()

    def _child_messages(self, call_id: str) -> list[Any] | None:
        """The messages of each child of a running ``subagent`` call (for its expanded card)."""
        runtime = self.session.subagents
        if runtime is None:
            return None
        runs = runtime.children(call_id)
        return [list(run.session.messages) if run.session is not None else [] for run in runs] if runs else None

    # --- layout -----------------------------------------------------------------------------

    def get_default_screen(self) -> MainScreen:
        return MainScreen()

    def compose(self) -> ComposeResult:
        yield self.transcript
        yield self.working
        yield self.queue_area
        yield self.menu
        yield self.editor
        yield self.footer_bar

    async def on_mount(self) -> None:
        if self.user_keymap:
            self.set_keymap(self.user_keymap)
        self.editor.set_keymap(self.user_keymap)
        self.editor.menu = self.menu
        self.editor.commands = self.commands.completion_entries
        self.editor.arguments = self._argument_completions
        self.editor.paste_filter = self._attach_pasted
        await self.transcript.add(self.start_header(), self.start_header)
        demo = is_demo_model(self.session)
        for warning in [*self.startup_warnings, *self.session.startup_notices]:
            if demo and "demo model" in str(warning):
                continue  # the panel below says it, with more detail
            await self.renderer.notice(str(warning), "warning")
        if demo:
            await self.renderer.notice(NO_MODEL_TEXT, "panel")
        history = self.session.message_view()  # a huge session's stay in its file
        if history:
            await self.renderer.load_history(history)
        self._unsubscribe = self.session.subscribe(self.pump.push)
        if self.session.extensions is not None:
            from pi_cli.modes.interactive.extension_ui.bridge import attach_extension_ui

            self.extension_ui = attach_extension_ui(self)
        self.pump.start()
        self.refresh_footer()
        self.refresh_queue()
        if self.initial_messages:
            self._run_task = asyncio.get_running_loop().create_task(self._run_initial(self.initial_messages))
        self._match_markdown_theme()
        self.call_after_refresh(self._warm_up)

    def show_theme(self) -> None:
        """Draw with the session's chosen theme (``/settings``, ``--use-theme``, settings)."""
        from pi_cli.modes.interactive.theming import apply_theme

        apply_theme(self, self.session.themes.active(self.terminal_dark))

    def refresh_css(self, animate: bool = True) -> None:
        """Textual's restyle (a theme switch, a CSS change) with the answers' palette switched
        first, so the one repaint that follows draws them in the new theme too (Textual's theme
        signal comes after that repaint: a frame of old answers on new surroundings, and a second
        repaint), with the transcript's repaint requests gathered and its entries out of view
        restyled when next drawn (see ``restyle``)."""
        sheet = self.stylesheet
        in_view_first = sheet.visible_first() if isinstance(sheet, ThemeStylesheet) else contextlib.nullcontext()
        with coalesced_repaints(), in_view_first:
            self._match_markdown_theme()
            super().refresh_css(animate)
        screens = self.screen_stack  # empty while the app is being built
        if screens and isinstance(screens[-1], MainScreen):
            screens[-1].paint_soon()

    def _match_markdown_theme(self) -> None:
        """Answers take their styles from the palette for the current theme: when the theme
        changes, re-render the answers already shown (the first time, none are)."""
        name = self.current_theme.name
        if self._markdown_theme and name != self._markdown_theme:
            from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown

            for block in self.query(StreamingMarkdown):
                block.restyle()
        self._markdown_theme = name

    def _warm_up(self) -> None:
        """Load, in a thread, what the first answer needs: the Markdown renderer (rich.markdown,
        markdown-it, pygments: it stalled the first streamed frame by ~150 ms) and the provider's
        HTTP stack (~150 ms before the first request). A thread, so keys typed meanwhile still
        echo; ``_warmed_up`` follows on the app's loop."""
        model = self.session.model
        api = model.get("api") if model is not None else None
        threading.Thread(target=self._preload, args=(api,), name="pi-preload", daemon=True).start()

    def _preload(self, api: object) -> None:
        from pi_cli.ai.stream import preload
        from pi_cli.modes.interactive.widgets.markdown_stream import preload as preload_markdown

        try:
            preload_markdown()
            if isinstance(api, str):
                preload(api)
        finally:
            with contextlib.suppress(RuntimeError):  # the app already quit
                self.call_from_thread(self._warmed_up)

    def _warmed_up(self) -> None:
        from pi_cli.modes.interactive.widgets.markdown_stream import warm_up

        warm_up()
        for callback in self.after_first_paint:  # the CLI's: the start-up GC pause ends here
            callback()
        if not self.is_headless:
            # Everything loaded so far lives as long as the app: keep it out of the collector's
            # full passes, which otherwise walk it all (~50 ms each, a few per long answer).
            # Transcript.clear_entries gives it back once a new session makes some of it garbage.
            gc.freeze()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)):
            self.keys_first.key()  # keys before frames: the next stream frame waits for its echo
            screen = self.screen_stack[-1] if self.screen_stack else None
            if isinstance(screen, MainScreen):
                screen.key_arrived()  # and the echo is painted when ready, not at the next timer tick
        await super().on_event(event)

    def start_header(self) -> Widget:
        """The transcript's first entry: pi_cli's start header, or an extension's (``set_header``)."""
        if self.header_factory is None:  # the common case imports no extension UI
            return startup_header(self.session, self.cwd, self.user_keymap)
        from pi_cli.modes.interactive.extension_ui.header import start_header

        def report(text: str) -> None:
            self.run_worker(self.show_notice(text, "error"))

        return start_header(self, self.header_factory, report)

    def use_keymap(self, keymap: dict[str, str]) -> None:
        """Bindings from a (re-read) ``keybindings.json``: the app's and the editor's keys."""
        self.user_keymap = dict(keymap)
        self.set_keymap(self.user_keymap)
        self.editor.set_keymap(self.user_keymap)

    def set_thinking_label(self, label: str | None) -> None:
        """What collapsed thinking blocks say (an extension's ``set_hidden_thinking_label``)."""
        from pi_cli.tools.sanitize import strip_control_sequences

        self.thinking_label = strip_control_sequences(label) if label else None
        for block in self.query(ThinkingBlock):
            block.relabel()

    def _argument_completions(self, name: str, prefix: str) -> list[dict[str, str]]:
        return self.session.argument_completions(name, prefix)  # the session of the moment (/new swaps it)

    def _paints(self) -> int:
        """Paints of the main screen while it is on top (-1 under a dialog, which paints itself)."""
        screen = self.screen_stack[-1] if self.screen_stack else None
        return screen.paints if isinstance(screen, MainScreen) else -1

    def _input_queued(self) -> bool:
        focused = self.focused
        return bool(self.message_queue_size or (focused is not None and focused.message_queue_size))

    async def _render_frame(self, ops: list[Any]) -> None:
        """One pump frame; the spinner advances in the same repaint instead of one of its own."""
        await self.renderer.apply(ops)
        self.working.pulse()

    # --- state ------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while the session runs a prompt, from its preflight until ``agent_settled``.

        The session's state alone decides whether text is queued or starts a run: the app's own
        run task outlives the session's run by a frame, and text queued into an idle agent in
        that frame was never delivered (issue 32)."""
        return bool(self.session.is_streaming)

    def _after_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "agent_start":
            self.working.start("Working...")
        elif kind in ("agent_end",):
            if not self.running:
                self.working.stop()
            self.refresh_footer()
        elif kind == "message_end":
            self.refresh_footer()
        elif kind == "queue_update" or kind == "message_start":
            self.refresh_queue()
        elif kind == "auto_retry_start":
            delay = int(event.get("delayMs", 0) or 0) / 1000
            self.working.start(f"Retrying ({event.get('attempt')}/{event.get('maxAttempts')}) in {delay:g}s...")
        elif kind == "auto_retry_end":
            self.working.set_message("Working...")
        elif kind == "compaction_start":
            self.working.start("Compacting context...")
        elif kind == "compaction_end":
            if not self.running:
                self.working.stop()
        elif kind in ("thinking_level_changed", "session_info_changed", "model_changed"):
            self.refresh_footer()

    def refresh_footer(self) -> None:
        session = self.session
        stats = session.get_session_stats()
        facts = footer_facts(
            cwd=self.cwd,
            stats=stats,
            model=session.model,
            thinking_level=session.thinking_level,
            session_name=session.session_name,
            auto_compaction=session.auto_compaction_enabled,
            branch=self._branch,
            permission_mode=session.permissions.mode if session.permissions is not None else None,
            sandbox=session.sandbox.describe() if session.sandbox is not None and session.sandbox.active else None,
        )
        usage = stats.get("contextUsage") or {}
        fraction = float(usage.get("percent") or 0.0) / 100
        self.footer_bar.set_facts(facts, fraction)
        level = session.thinking_level
        self.editor.set_class(level in ("high", "xhigh"), "-thinking-high")

    def queued(self) -> tuple[list[str], list[str]]:
        return self.session.steering_messages, self.session.follow_up_messages

    def refresh_queue(self) -> None:
        steering, follow_up = self.queued()
        dequeue = describe("app.message.dequeue", self.user_keymap)
        self.queue_area.show_queue(steering, follow_up, dequeue, self.attachments.chips())

    # --- submitting -------------------------------------------------------------------------

    @on(TextArea.Changed, "#editor")
    def _prompt_text_changed(self) -> None:
        """The prompt text changed (typed, restored, cleared): an extension's editor shows it."""
        if self.editor_slot is not None:
            self.editor_slot.sync(self.editor.text)

    @on(PromptEditor.Submitted)
    async def _submitted(self, event: PromptEditor.Submitted) -> None:
        await self.submit(event.text, follow_up=event.follow_up)

    async def submit(self, raw: str, *, follow_up: bool = False) -> None:
        """Route editor text by the rules shared with inline mode (``input_routing``)."""
        route = route_input(raw, running=self.running, follow_up=follow_up)
        if route.kind == "empty":
            return
        if route.kind == "command":
            if await self.commands.run(route.text):
                return
            # Not a command: templates and skills expand in the session; the rest goes verbatim.
            route = Route("prompt", route.text)
        if route.kind == "bash":
            self.start_bash(route.text, route.exclude_from_context)
        else:
            self.send(route.text, follow_up=follow_up)

    def send(self, text: str, *, follow_up: bool = False) -> None:
        """Give ``text`` to the session, which in one synchronous step queues it while it runs
        (Enter: steering; Alt+Enter: a follow-up) or starts a run with it. With extensions, a
        ``/command`` runs and ``input`` handlers see the text first, inside the returned coroutine."""
        was_running = self.running
        if not was_running:  # back to the end (and following it) after PageUp, for the new answer
            self.transcript.scroll_end(animate=False, immediate=True)
        images = self.attachments.take()
        try:
            run = self.session.begin_prompt(text, images, streaming_behavior="followUp" if follow_up else "steer")
        except Exception as exc:  # refused at once (no model, no key): shown, never raised
            asyncio.get_running_loop().create_task(self._refused(exc))
            return
        self.refresh_queue()
        if run is None:
            return
        task = asyncio.get_running_loop().create_task(self._run_prompt(run, quiet=was_running))
        if not was_running:
            self._run_task = task

    async def _refused(self, exc: BaseException) -> None:
        await self.pump.settle()
        hint = getattr(exc, "hint", None)
        await self.renderer.notice(f"Error: {exc}" + (f"\n{hint}" if hint else ""), "error")

    async def _run_initial(self, messages: list[str]) -> None:
        for text in messages:
            # Each in turn; one the user's own run is busy with is queued as its follow-up.
            self.send(text, follow_up=True)
            task = self._run_task
            if task is not None and not task.done():
                await task

    async def _run_prompt(self, run: Coroutine[Any, Any, None], *, quiet: bool = False) -> None:
        """Await a run (or, ``quiet``, the extension preflight of text typed while one ran)."""
        if not quiet:
            self.working.start("Working...")
        try:
            await run
        except Exception as exc:  # refused prompts (no key, busy) are shown, never raised
            await self._refused(exc)
        finally:
            self.refresh_queue()
            if not quiet:
                await self.pump.settle()
                if not self.running:
                    self.working.stop()
                self.refresh_footer()

    def start_bash(self, command: str, exclude: bool = False) -> None:
        """Run the user's ``!command`` (``exclude``: ``!!``, kept out of the model's context)."""
        if not command:
            return
        if self._bash_task is not None and not self._bash_task.done():
            self.notify("A bash command is already running. Press Esc to cancel it first.", severity="warning")
            return
        self._bash_task = asyncio.get_running_loop().create_task(self._run_bash(command, exclude))

    async def _run_bash(self, command: str, exclude: bool) -> None:
        card = ToolCard("", "bash", {"command": command}, user_bash=True)
        await self.transcript.add(card)
        card.start()
        chunks: list[str] = []

        def on_chunk(chunk: str) -> None:
            chunks.append(chunk)
            card.set_output("".join(chunks))

        self.working.start("Running bash...")
        try:
            result = await self.session.run_bash(command, exclude_from_context=exclude, on_chunk=on_chunk)
        except Exception as exc:
            card.finish({"content": [{"type": "text", "text": str(exc)}]}, True)
            return
        finally:
            if not self.running:
                self.working.stop()
        output = str(_field(result, "output", "") or "")
        exit_code = _field(result, "exitCode", None)
        cancelled = bool(_field(result, "cancelled", False))
        if cancelled:
            card.notes.append("cancelled")
        elif exit_code not in (0, None):
            card.notes.append(f"exit code {exit_code}")
        if exclude:
            card.notes.append("not sent to the model")
        card.finish({"content": [{"type": "text", "text": output}]}, bool(exit_code) or cancelled)

    # --- key actions ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "exit_if_empty":
            return not self.editor.text and self.screen is self.screen_stack[0]
        if action in (
            "interrupt",
            "clear_or_abort",
            "dequeue",
            "cycle_thinking",
            "cycle_permissions",
            "cycle_model",
            "select_model",
            "scroll_transcript",
            "extension_shortcut",
        ):
            return self.screen is self.screen_stack[0]
        return True

    async def action_interrupt(self) -> None:
        if self.editor_slot is not None and self.editor_slot.first("interrupt"):
            return  # an extension's editor sees Escape first (and hands it back when unwanted)
        if self.editor.close_menu():
            return
        if self.running:
            await self.abort()
        elif self._bash_task is not None and not self._bash_task.done():
            self.session.abort_bash()
        elif not self.editor.text.strip():
            await self._double_escape()

    async def _double_escape(self) -> None:
        """pi's ``doubleEscapeAction``: a second Escape within 0.5 s on an empty, idle editor
        opens ``/tree`` (default) or ``/fork``; ``none`` turns it off."""
        action = str(self.session.settings.double_escape_action or "tree")
        if action == "none":
            return
        now = time.monotonic()
        if now - self._last_escape >= DOUBLE_ESCAPE_S:
            self._last_escape = now
            return
        self._last_escape = 0.0
        session_commands = self.commands.session_commands
        if action == "fork":
            await session_commands.cmd_fork("")
        else:
            await session_commands.open_tree()

    def action_scroll_transcript(self, direction: int) -> None:
        """Page the transcript; scrolling up releases the stick-to-bottom until the user returns
        to the end (Textual re-anchors there)."""
        transcript = self.transcript
        # Immediate, so a held-down key pages from where the last press left off (deferred
        # scrolls all started from the same offset and moved one page in total).
        target = transcript.scroll_y + direction * transcript.scrollable_content_region.height
        if direction > 0 and target >= transcript.max_scroll_y:
            # scroll_to releases the anchor even at the end, which would stop following the
            # next answer; scroll_end re-attaches it.
            transcript.scroll_end(animate=False, immediate=True)
        else:
            transcript.scroll_to(y=max(0, target), animate=False, immediate=True)

    async def action_clear_or_abort(self) -> None:
        if self.editor_slot is not None and self.editor_slot.first("clear"):
            return
        if self.running:
            await self.abort()
            return
        if self._bash_task is not None and not self._bash_task.done():
            self.session.abort_bash()
            return
        if not self.editor.text and self.attachments:
            self.notify(f"Removed {self.attachments.clear()} attached image(s)")
            self.refresh_queue()
            return
        if self._ctrl_c.press(self.editor.text) == "quit":
            await self.quit()
            return
        self.notify(QUIT_HINT)
        self.editor.close_menu()
        self.editor.load_text("")

    async def action_exit_if_empty(self) -> None:
        if self.editor_slot is not None and self.editor_slot.first("exit"):
            return
        await self.quit()

    async def abort(self) -> None:
        """Abort the run; unsent queued text goes back into the editor (never lost)."""
        self.restore_queue()
        self.working.set_message("Aborting...")
        await self.session.abort()
        task = self._run_task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout=2.0)
            except (TimeoutError, asyncio.CancelledError):
                pass
        await self.pump.settle()
        self.working.stop()
        self.refresh_queue()

    def restore_queue(self) -> int:
        steering, follow_up = self.session.clear_queues()
        texts = [*steering, *follow_up]
        if not texts:
            return 0
        self.editor.set_text(restored_editor_text(texts, self.editor.text))
        self.refresh_queue()
        return len(texts)

    async def action_paste_image(self) -> None:
        try:
            self.notify(await self.attachments.paste_clipboard())
        except AttachmentError as exc:
            self.notify(str(exc), severity="warning")
        self.refresh_queue()

    def _attach_pasted(self, text: str) -> bool:
        """The editor's paste filter: a pasted or dropped image path becomes an attachment."""
        try:
            taken = self.attachments.attach_pasted(text)
        except AttachmentError as exc:
            self.notify(str(exc), severity="warning")
            return True  # an image path that could not be read: not text to type either
        if taken:
            self.refresh_queue()
        return taken

    def action_dequeue(self) -> None:
        count = self.restore_queue()
        self.notify(f"Restored {count} queued message(s) to editor" if count else "No queued messages to restore")

    def action_cycle_thinking(self) -> None:
        level = self.session.cycle_thinking_level()
        if level is None:
            self.notify("Current model does not support thinking")
        else:
            self.notify(f"Thinking level: {level}")
        self.refresh_footer()

    def action_cycle_permissions(self) -> None:
        self.commands.permission_commands.cycle()

    def action_cycle_model(self, direction: int) -> None:
        result = self.session.cycle_model("forward" if direction > 0 else "backward")
        if not result:
            self.notify("Only one model available")
        else:
            model = self.session.model
            self.notify(f"Model: {model['provider']}/{model['id']}" if model is not None else "Model: none")
        self.refresh_footer()

    def action_extension_shortcut(self, key: str) -> None:
        if self.extension_ui is not None:
            self.extension_ui.run_shortcut(key)

    def action_select_model(self) -> None:
        self.commands.open_model_picker("")

    def action_toggle_tools(self) -> None:
        self.tools_expanded = not self.tools_expanded
        for card in self.query(ToolCard):
            card.set_expanded(self.tools_expanded)
        for view in self.query(CustomView):
            view.set_expanded(self.tools_expanded)

    def action_toggle_thinking(self) -> None:
        self.show_thinking = not self.show_thinking
        for block in self.query(ThinkingBlock):
            block.set_expanded(self.show_thinking)

    async def quit(self) -> None:
        if self.running:
            try:
                await asyncio.wait_for(self.session.abort(), timeout=2.0)
            except (TimeoutError, Exception):
                pass
        self.exit(0)

    async def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        await self.pump.stop()
        if self.session.extensions is not None:
            from pi_cli.modes.extension_bridge import extensions_quit

            await extensions_quit(self.session)

    def _message_renderer(self, custom_type: str) -> CustomRenderer | None:
        runner = self.session.extensions
        return runner.message_renderers.get(custom_type) if runner is not None else None

    def _entry_renderer(self, custom_type: str) -> CustomRenderer | None:
        runner = self.session.extensions
        return runner.entry_renderers.get(custom_type) if runner is not None else None

    def tool_renderer(self, tool_name: str) -> ToolRenderer | None:
        """The seam tool cards consult on mount: an extension tool's renderers, else None."""
        runner = self.session.extensions
        return runner.renderer_for(tool_name) if runner is not None else None

    async def show_notice(self, text: str | Text, kind: str = "info") -> None:
        await self.transcript.add(Notice(text, kind), lambda: Notice(text, kind))


def _field(obj: Any, key: str, default: Any) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
    return getattr(obj, key, getattr(obj, snake, default))
