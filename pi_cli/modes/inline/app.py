"""The prompt_toolkit application of inline mode: a live area, the editor and the footer at the
bottom of the terminal, with finished output printed above into the normal scrollback.

The application is not full-screen: prompt_toolkit redraws only its own rows, and scrollback
output goes through ``run_in_terminal`` so it lands above them and stays after exit.
"""

from __future__ import annotations

import asyncio
import io
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent, merge_key_bindings
from prompt_toolkit.layout import ConditionalContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style
from rich.console import Console, RenderableType
from rich.theme import Theme as RichTheme

from pi_cli.modes.commands import INLINE, completion_entries
from pi_cli.modes.display import FooterFacts, footer_facts, git_branch
from pi_cli.modes.inline import render
from pi_cli.modes.inline.approvals import cycle_mode
from pi_cli.modes.inline.completion import InlineCompleter
from pi_cli.modes.inline.controller import InlineController
from pi_cli.tools.sanitize import strip_control_sequences

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

DOUBLE_ESCAPE_S = 0.5  # pi's window for the double-Escape action on an empty editor

STYLE = Style.from_dict(
    {
        "thinking": "#888888 italic",
        "tool": "bold",
        "tool-output": "#888888",
        "status": "#d7af00",
        "queue": "#888888",
        "rule": "#444444",
        "footer": "#888888",
        "prompt": "#00afff bold",
        "ext-widget": "",
    }
)


class InlineApp:
    """Builds and runs the application for one session."""

    def __init__(
        self,
        session: AgentSession,
        *,
        input: Input | None = None,
        output: Output | None = None,
        scrollback: io.TextIOBase | None = None,
        history: History | None = None,
        width: Callable[[], int] | None = None,
    ) -> None:
        self.session = session
        self._scrollback = scrollback
        self._width = width or (lambda: shutil.get_terminal_size((80, 24)).columns)
        self._branch = git_branch(Path(session.cwd))
        self.buffer = Buffer(
            multiline=True,
            history=history or InMemoryHistory(),
            completer=InlineCompleter(
                Path(session.cwd), self._command_names, self._argument_completions, self._provider_factories
            ),
            complete_while_typing=True,
        )
        self._footer_cache: tuple[tuple[Any, ...], FooterFacts] | None = None
        self.controller = InlineController(session, self.print, self.invalidate, self.exit)
        self.controller.on_editor_text = self._set_text
        self.controller.on_copy = self.copy
        self.controller.on_title = self.set_title
        self._last_escape = 0.0
        self._rich_theme: tuple[str, RichTheme] | None = None  # (theme setting, its Rich styles)
        self._shortcut_lines: list[str] = []
        self.app: Application[int] = Application(
            layout=self._layout(),
            key_bindings=merge_key_bindings([self._bindings(), self.controller.components.key_bindings()]),
            style=STYLE,
            full_screen=False,
            min_redraw_interval=1 / 30,  # deltas arrive far faster than a terminal needs frames
            input=input,
            output=output,
            erase_when_done=True,
        )

    # --- output --------------------------------------------------------------------------

    def _render_ansi(self, renderable: RenderableType) -> str:
        buffer = io.StringIO()
        console = Console(
            file=buffer,
            width=max(self._width(), 20),
            force_terminal=self._scrollback is None,
            color_system="auto" if self._scrollback is None else None,
            soft_wrap=False,
            theme=self._markdown_theme(),
        )
        whole = isinstance(renderable, render.Unbroken)  # a URL: one line for the terminal to wrap
        console.print(renderable, soft_wrap=whole, crop=not whole)
        return buffer.getvalue()

    def _markdown_theme(self) -> RichTheme:
        """The chosen theme's Markdown colours (rebuilt when ``/settings`` changes the theme)."""
        selected = self.session.themes.selected
        if self._rich_theme is None or self._rich_theme[0] != selected:
            from pi_cli.modes.inline.theming import rich_theme

            self._rich_theme = (selected, rich_theme(self.session.themes.active()))
        return self._rich_theme[1]

    def print(self, renderable: RenderableType) -> None:
        """Commit ``renderable`` to scrollback above the live area (an image as its own escape
        sequence: Rich would drop it as control characters)."""
        text = renderable.sequence if isinstance(renderable, render.TerminalImage) else self._render_ansi(renderable)
        if self._scrollback is not None:
            self._scrollback.write(text)
            return
        if not self.app.is_running:
            print(text, end="", flush=True)
            return

        def write() -> None:
            print(text, end="", flush=True)

        run_in_terminal(write, in_executor=False)

    def set_title(self, text: str) -> None:
        """An extension's ``ctx.ui.set_title``: the terminal's title (control sequences dropped)."""
        if self._scrollback is None:
            self.app.output.set_title(strip_control_sequences(text))
            self.app.output.flush()

    def copy(self, text: str) -> None:
        """Put ``text`` on the system clipboard with OSC 52 (the terminal's own clipboard
        escape, as the TUI does; it reaches the local clipboard over ssh too)."""
        import base64

        sequence = "\x1b]52;c;" + base64.b64encode(text.encode()).decode() + "\x07"
        output = self.app.output
        if self._scrollback is not None:
            return
        output.write_raw(sequence)
        output.flush()

    def invalidate(self) -> None:
        if self.app.is_running:
            self.app.invalidate()

    def exit(self) -> None:
        if self.app.is_running and not self.app.future.done():  # type: ignore[union-attr]
            self.app.exit(result=self.controller.exit_code)

    # --- layout --------------------------------------------------------------------------

    def _command_names(self) -> list[tuple[str, str]]:
        return completion_entries(self.session, INLINE)

    def _argument_completions(self, name: str, prefix: str) -> list[dict[str, str]]:
        return self.session.argument_completions(name, prefix)

    def _provider_factories(self) -> list[Any]:
        """Extensions' autocomplete providers (``ctx.ui.add_autocomplete_provider``)."""
        from pi_cli.extensions.ui import DialogUI

        ui = self.session.extensions.ui if self.session.extensions is not None else None
        return list(ui.autocomplete_factories) if isinstance(ui, DialogUI) else []

    def _live(self) -> StyleAndTextTuples:
        fragments: StyleAndTextTuples = []
        for style, text in self.controller.live_lines(self._width()):
            fragments.append((style, text + "\n"))
        return fragments

    def _footer(self) -> StyleAndTextTuples:
        session = self.session
        # Redraws come at frame rate while text streams, but the figures only change when a
        # message ends or a setting changes: recompute them then, not on every frame.
        mode = session.permissions.mode if session.permissions is not None else None
        sandbox = session.sandbox.describe() if session.sandbox is not None and session.sandbox.active else None
        count = len(session.message_view())  # not session.messages: a resumed huge session's stay on disk
        key = (count, id(session.model), session.thinking_level, session.session_name, mode, sandbox)
        if self._footer_cache is None or self._footer_cache[0] != key:
            facts = footer_facts(
                cwd=Path(session.cwd),
                stats=session.get_session_stats(),
                model=session.model,
                thinking_level=str(session.thinking_level),
                session_name=session.session_name,
                auto_compaction=bool(session.auto_compaction_enabled),
                branch=self._branch,
                permission_mode=mode,
                sandbox=sandbox,
            )
            self._footer_cache = (key, facts)
        facts = self._footer_cache[1]
        width = self._width()
        return [("class:footer", facts.location[:width] + "\n"), ("class:footer", facts.one_line(width))]

    def _widgets(self, placement: str = "aboveEditor") -> StyleAndTextTuples:
        lines = self.controller.extension_view.widget_lines(self._width(), placement)
        # Newlines between lines only: a trailing one drew an empty row above the prompt.
        return [(style, ("\n" if n else "") + text) for n, (style, text) in enumerate(lines)]

    def _status(self) -> StyleAndTextTuples:
        return [("class:footer", self.controller.extension_view.status_text(self._width()))]

    def _layout(self) -> Layout:
        has_live = Condition(self.controller.has_live)
        view = self.controller.extension_view
        rule = Window(height=1, char="─", style="class:rule")
        prompt = Window(FormattedTextControl([("class:prompt", "› ")]), width=2, dont_extend_width=True)
        editor = Window(
            BufferControl(buffer=self.buffer),
            height=Dimension(min=1, max=10),
            wrap_lines=True,
            dont_extend_height=True,
        )
        from prompt_toolkit.layout import VSplit
        from prompt_toolkit.layout.menus import CompletionsMenu

        body = HSplit(
            [
                ConditionalContainer(
                    Window(FormattedTextControl(self._live), dont_extend_height=True, wrap_lines=False), has_live
                ),
                ConditionalContainer(  # extension widgets, above the prompt
                    Window(FormattedTextControl(self._widgets), dont_extend_height=True, wrap_lines=False),
                    Condition(view.has_widgets),
                ),
                rule,
                self.controller.components.around(VSplit([prompt, editor])),
                rule,
                ConditionalContainer(  # widgets placed "belowEditor"
                    Window(
                        FormattedTextControl(lambda: self._widgets("belowEditor")),
                        dont_extend_height=True,
                        wrap_lines=False,
                    ),
                    Condition(lambda: view.has_widgets("belowEditor")),
                ),
                Window(FormattedTextControl(self._footer), height=2, dont_extend_height=True),
                ConditionalContainer(  # extension statuses: pi's third footer line
                    Window(FormattedTextControl(self._status), height=1), Condition(view.has_status)
                ),
                CompletionsMenu(max_height=8),
            ]
        )
        return Layout(body, focused_element=editor)

    # --- keys ----------------------------------------------------------------------------

    def _set_text(self, text: str) -> None:
        self.buffer.document = Document(text, len(text))

    def _bindings(self) -> KeyBindings:
        keys = KeyBindings()
        ctl = self.controller

        @keys.add("enter")
        def _submit(event: KeyPressEvent) -> None:
            if self.buffer.complete_state and self.buffer.complete_state.current_completion:
                self.buffer.apply_completion(self.buffer.complete_state.current_completion)
                return
            self._send(follow_up=False)

        @keys.add("escape", "enter")
        def _follow_up(event: KeyPressEvent) -> None:
            # Alt+Enter: queue a follow-up while running; idle, it sends like Enter (as pi).
            self._send(follow_up=True)

        @keys.add("c-j")
        def _newline(event: KeyPressEvent) -> None:
            self.buffer.insert_text("\n")

        @keys.add("escape", "up")
        def _restore(event: KeyPressEvent) -> None:
            self._set_text(ctl.restore_queue(self.buffer.text))

        @keys.add("escape", "m")
        def _cycle_permissions(event: KeyPressEvent) -> None:
            cycle_mode(self.session, self.print)
            self.invalidate()

        @keys.add("c-c")
        def _ctrl_c(event: KeyPressEvent) -> None:
            self._set_text(ctl.ctrl_c(self.buffer.text))

        @keys.add("c-d")
        def _ctrl_d(event: KeyPressEvent) -> None:
            if not ctl.ctrl_d(self.buffer.text):
                self.buffer.delete()

        @keys.add("escape", filter=Condition(lambda: ctl.running), eager=False)
        def _escape(event: KeyPressEvent) -> None:
            self._set_text(ctl.ctrl_c(self.buffer.text))

        idle_and_empty = Condition(lambda: not ctl.running and not self.buffer.text)

        @keys.add("escape", filter=idle_and_empty, eager=False)
        def _double_escape(event: KeyPressEvent) -> None:
            self._double_escape()

        @keys.add("escape", "escape", filter=idle_and_empty)
        def _escape_escape(event: KeyPressEvent) -> None:
            # Two quick Escapes reach the key processor together (the first waits for a possible
            # Meta sequence), so the timed path above would see them as two slow ones.
            self._last_escape = 0.0
            action = self._double_escape_action()
            if action:
                self.controller.run_line(f"/{action}")

        @keys.add("escape", "/")
        def _escape_slash(event: KeyPressEvent) -> None:
            # prompt_toolkit reads Esc then "/" as Meta-/ (an emacs binding) and dropped the "/".
            self.buffer.insert_text("/")

        @keys.add("c-l")
        def _select_model(event: KeyPressEvent) -> None:
            ctl.run_line("/model")

        @keys.add("up", filter=Condition(lambda: self.buffer.document.cursor_position_row == 0))
        def _history_back(event: KeyPressEvent) -> None:
            self.buffer.history_backward()

        @keys.add("down", filter=Condition(lambda: self.buffer.document.is_cursor_at_the_end))
        def _history_forward(event: KeyPressEvent) -> None:
            self.buffer.history_forward()

        self._bind_extension_shortcuts(keys)
        return keys

    def _bind_extension_shortcuts(self, keys: KeyBindings) -> None:
        """Extension shortcuts, added last so they win over a non-reserved built-in key."""
        from pi_cli.modes.inline.extensions import resolve_inline_shortcuts

        runner = self.session.extensions
        if runner is None or not runner.shortcuts:
            return
        chosen, self._shortcut_lines = resolve_inline_shortcuts(runner)
        for names, shortcut in chosen:

            def fire(event: KeyPressEvent, shortcut: Any = shortcut) -> None:
                self.controller.extension_view.run_shortcut(shortcut)

            # eager: fire at once even where the key starts a longer built-in sequence (Ctrl-X
            # opens emacs-mode chords; without it the shortcut waited for the chord timeout).
            keys.add(*names, eager=True)(fire)

    def _double_escape_action(self) -> str:
        """The command a double Escape runs (``tree`` or ``fork``), or "" when it is turned off."""
        action = str(self.session.settings.double_escape_action or "tree")
        return "" if action == "none" else action

    def _double_escape(self) -> None:
        """pi's ``doubleEscapeAction``: a second Escape within 0.5 s on an empty, idle editor runs
        ``/tree`` (default) or ``/fork``; ``none`` turns it off. A single Escape does nothing (it
        used to leave prompt_toolkit waiting for a second key, which swallowed a ``/`` typed next)."""
        import time

        action = self._double_escape_action()
        now = time.monotonic()
        if not action or now - self._last_escape >= DOUBLE_ESCAPE_S:
            self._last_escape = now
            return
        self._last_escape = 0.0
        self.controller.run_line(f"/{action}")

    def _send(self, *, follow_up: bool) -> None:
        text = self.buffer.text
        if not text.strip():
            return
        self.buffer.append_to_history()
        self.buffer.reset()
        self.controller.submit(text, follow_up=follow_up)

    async def run(self, initial_messages: list[str] | None = None) -> int:
        """Run until the user quits; ``initial_messages`` are sent first, one after another."""

        async def send_initial() -> None:
            for text in initial_messages or []:
                self.controller.submit(text)
                while self.controller.running:
                    await asyncio.sleep(0.02)

        from pi_cli import __version__

        self.controller.show_startup(__version__)
        for line in self._shortcut_lines:
            self.controller.notify(line, "warning")
        self.controller.extension_view.start()
        starter = asyncio.ensure_future(send_initial())
        try:
            code = await self.app.run_async()
        finally:
            starter.cancel()
            await self.controller.shutdown()
        return int(code or 0)


def default_history(agent_dir: Path) -> History:
    """Prompt history kept across runs in the agent dir (in memory when it cannot be written)."""
    try:
        agent_dir.mkdir(parents=True, exist_ok=True)
        return FileHistory(str(agent_dir / "prompt-history"))
    except OSError:
        return InMemoryHistory()
