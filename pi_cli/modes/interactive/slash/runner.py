"""Slash commands of the interactive mode: the built-ins of :mod:`pi_cli.modes.commands`, each
mapped to its handler here (:attr:`CommandRunner.handlers`, an explicit table). ``/template``,
``/skill:name`` and extension commands are the session's and are sent to it; any other ``/name``
is answered with a notice and never reaches the model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text

from pi_cli.modes.commands import (
    TUI,
    builtin_entries,
    command_name,
    completion_entries,
    is_session_command,
    unknown_command,
)
from pi_cli.modes.interactive.keys import APP_KEYS, EDITOR_KEYS
from pi_cli.modes.interactive.render import EventRenderer
from pi_cli.modes.interactive.slash.login import LoginCommands
from pi_cli.modes.interactive.slash.mcp import McpCommands
from pi_cli.modes.interactive.slash.permissions import PermissionCommands
from pi_cli.modes.interactive.slash.rewind import RewindCommands
from pi_cli.modes.interactive.slash.session import SessionCommands
from pi_cli.modes.interactive.widgets.status import WorkingLine
from pi_cli.modes.interactive.widgets.transcript import Transcript

if TYPE_CHECKING:
    from pi_cli.modes.interactive.extension_ui.bridge import ExtensionChrome
    from pi_cli.resources.themes import ThemeCatalog
    from pi_cli.session.agent_session import AgentSession


class CommandHost(Protocol):
    """What the commands need of the TUI app (PiApp): its session and widgets, notices, screens
    and workers (Textual's own signatures, loosely typed here)."""

    theme: str

    @property
    def session(self) -> AgentSession: ...

    @property
    def cwd(self) -> Path: ...

    @property
    def extension_ui(self) -> ExtensionChrome | None: ...

    @property
    def user_keymap(self) -> dict[str, Any]: ...

    @property
    def transcript(self) -> Transcript: ...

    @property
    def renderer(self) -> EventRenderer: ...

    @property
    def working(self) -> WorkingLine: ...

    @property
    def running(self) -> bool: ...

    def refresh_footer(self) -> None: ...

    def show_theme(self) -> None: ...

    def use_keymap(self, keymap: dict[str, str]) -> None: ...

    def start_header(self) -> Any: ...

    async def show_notice(self, text: str | Text, kind: str = "info") -> None: ...

    async def quit(self) -> None: ...

    def notify(self, message: str, *, severity: Any = ...) -> None: ...

    def push_screen(self, screen: Any, callback: Any = ...) -> Any: ...

    def call_later(self, callback: Any, *args: Any, **kwargs: Any) -> bool: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def copy_to_clipboard(self, text: str) -> None: ...


THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
Handler = Callable[[str], Awaitable[None]]


class CommandRunner:
    """Runs ``/command args`` against the app and its session."""

    def __init__(self, app: CommandHost) -> None:
        self.app = app
        self.session_commands = SessionCommands(app)  # /resume, /tree, /fork, /clone, /export
        self.login_commands = LoginCommands(app)  # /login, /logout
        self.permission_commands = PermissionCommands(app)  # /permissions, /trust, /sandbox, dialogs
        self.mcp_commands = McpCommands(app)  # /mcp
        self.rewind_commands = RewindCommands(app, self)  # /rewind
        s, p = self.session_commands, self.permission_commands
        self.handlers: dict[str, Handler] = {
            "model": self.cmd_model, "thinking": self.cmd_thinking, "settings": self.cmd_settings,
            "new": self.cmd_new, "resume": s.cmd_resume, "tree": s.cmd_tree, "fork": s.cmd_fork,
            "clone": s.cmd_clone, "compact": self.cmd_compact, "session": self.cmd_session, "name": self.cmd_name,
            "copy": self.cmd_copy, "export": s.cmd_export, "share": s.cmd_share,
            "rewind": self.rewind_commands.cmd_rewind,
            "permissions": p.cmd_permissions, "trust": p.cmd_trust, "sandbox": p.cmd_sandbox,
            "mcp": self.mcp_commands.cmd_mcp, "agents": self.cmd_agents, "login": self.login_commands.cmd_login,
            "logout": self.login_commands.cmd_logout, "hotkeys": self.cmd_hotkeys, "quit": self.cmd_quit,
            "reload": self.cmd_reload,
        }  # fmt: skip
        assert {name for name, _ in builtin_entries(TUI)} == set(self.handlers), "modes/commands.py lists them"

    @property
    def session(self) -> AgentSession:
        return self.app.session

    def completion_entries(self) -> list[tuple[str, str]]:
        return completion_entries(self.session, TUI)

    def knows(self, text: str) -> bool:
        """Whether ``text`` is for this runner: a built-in, or a ``/name`` nobody knows (which it
        answers with a notice). False: not a command, or one the session handles (send it)."""
        name = command_name(text)
        return name is not None and (name in self.handlers or not is_session_command(self.session, name))

    async def run(self, text: str) -> bool:
        """Handle a built-in command (an unknown ``/name`` gets a notice); False means "not ours,
        send it as a prompt" (not a command, or a template, skill or extension command)."""
        if not self.knows(text):
            return False
        name = command_name(text)
        assert name is not None
        handler = self.handlers.get(name)
        if handler is None:
            await self._notice(unknown_command(name), "warning")
            return True
        try:
            await handler(text.partition(" ")[2].strip())
        except Exception as exc:  # a failing command is reported, never allowed to end the app
            await self._notice(f"/{name}: {exc}", "error")
        return True

    async def _notice(self, text: str, kind: str = "info") -> None:
        await self.app.show_notice(text, kind)

    # --- commands ---------------------------------------------------------------------------

    async def cmd_quit(self, args: str) -> None:
        await self.app.quit()

    async def cmd_model(self, args: str) -> None:
        self.open_model_picker(args)

    def open_model_picker(self, query: str) -> None:
        """The selector over models with credentials. models.json and auth.json are re-read
        first (as pi does), so a provider added while pi runs can be picked without a restart,
        which the no-model notice promises."""
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        registry = self.session.model_registry
        if registry is not None:
            try:
                registry.refresh()
            except Exception as exc:  # a broken file must not stop the picker from opening
                self.app.notify(f"Could not reload models: {exc}", severity="warning")
            for problem in list(registry.errors)[:3]:
                self.app.notify(str(problem), severity="warning")
        models = list(self.session.available_models())
        current: dict[str, Any] = dict(self.session.model or {})
        if not models:
            self.app.notify("No models available. Set an API key or add models.json.", severity="warning")
            return
        items = [
            PickItem(
                f"{m['provider']}/{m['id']}",
                f"{m['provider']}/{m['id']}",
                str(m.get("name", "")),
                m.get("provider") == current.get("provider") and m.get("id") == current.get("id"),
            )
            for m in models
        ]
        by_key = {f"{m['provider']}/{m['id']}": m for m in models}

        def chosen(key: str | None) -> None:
            if key and key in by_key:
                self.session.set_model(by_key[key])
                self.app.notify(f"Model: {key}")
                self.app.refresh_footer()

        self.app.push_screen(PickerScreen("Select model", items, query), chosen)

    async def cmd_thinking(self, args: str) -> None:
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        if args:
            if args not in THINKING_LEVELS:
                await self._notice(f"Unknown thinking level: {args} (use {', '.join(THINKING_LEVELS)})", "error")
                return
            level = self.session.set_thinking_level(args)
            self.app.notify(f"Thinking level: {level}")
            self.app.refresh_footer()
            return
        current = self.session.thinking_level
        items = [PickItem(level, level, "", level == current) for level in THINKING_LEVELS]

        def chosen(level: str | None) -> None:
            if level:
                result = self.session.set_thinking_level(level)
                self.app.notify(f"Thinking level: {result}")
                self.app.refresh_footer()

        self.app.push_screen(PickerScreen("Thinking level", items), chosen)

    async def cmd_settings(self, args: str, row: str | None = None) -> None:
        """The settings list; a choice is saved (pi's /settings) and the list reopens on the same
        ``row`` (not the top)."""
        from pi_cli.modes.command_actions import settings_rows, toggle_setting
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        items = [PickItem(r.key, r.label, r.value) for r in settings_rows(self.session)]

        def chosen(key: str | None) -> None:
            if not key:
                return
            if key == "theme":
                self.app.call_later(self.app.run_worker, self.open_theme_picker(), exclusive=True, group="settings")
                return
            else:
                try:
                    self.app.notify(toggle_setting(self.session, key))
                except Exception as exc:  # e.g. a sandbox mode this system cannot enforce
                    self.app.notify(str(exc), severity="error")
            self.app.refresh_footer()
            self.app.call_later(self.app.run_worker, self.cmd_settings("", key), exclusive=True, group="settings")

        self.app.push_screen(PickerScreen("Settings (Enter toggles, Esc closes)", items, highlight=row), chosen)

    async def open_theme_picker(self) -> None:
        """The theme list (from ``/settings``): the choice is drawn at once, saved, and the
        settings list reopens on its Theme row."""
        from pi_cli.modes.command_actions import choose_theme
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        catalog = self.session.themes
        items = [
            PickItem(name, name, _theme_detail(catalog, name), current=name == catalog.selected)
            for name in catalog.names()
        ]

        def chosen(name: str | None) -> None:
            if name:
                self.app.notify(choose_theme(self.session, name))
                self.app.show_theme()
            self.app.call_later(self.app.run_worker, self.cmd_settings("", "theme"), exclusive=True, group="settings")

        self.app.push_screen(PickerScreen("Theme", items), chosen)

    async def cmd_new(self, args: str) -> None:
        if self.app.running:
            await self._notice("Cannot start a new session while the agent is running (Esc aborts).", "warning")
            return
        # A worker: an extension's session_before_switch may open a dialog, which needs the app's
        # message loop (awaiting here, inside the editor's Submitted handler, would block it).
        self.app.run_worker(self._new_session(), exclusive=True, group="session-command")

    async def _new_session(self) -> None:
        try:
            result = await self.session.new_session()
        except Exception as exc:  # as run() does for commands: a notice, never the end of the app
            await self._notice(f"/new: {exc}", "error")
            return
        if result.get("cancelled"):
            await self._notice("New session cancelled by an extension", "warning")
            return
        await self.app.transcript.clear_entries()
        self.app.renderer.forget()
        await self.app.transcript.add(self.app.start_header(), self.app.start_header)
        await self._notice("✓ New session started")
        self.app.refresh_footer()

    async def cmd_compact(self, args: str) -> None:
        if self.app.running:
            await self._notice("Cannot compact while the agent is running.", "warning")
            return
        self.app.working.start("Compacting context...")
        try:
            await self.session.compact(args or None)
        except Exception:
            pass  # as pi: the compaction_end event renders the outcome, a failure included
        finally:
            self.app.working.stop()
            self.app.refresh_footer()

    async def cmd_session(self, args: str) -> None:
        """pi's session info: one fact a line under bold headings (a narrow terminal wrapped the
        old run-on lines mid-fact)."""
        stats = self.session.get_session_stats()
        tokens = stats.get("tokens", {})
        out = Text()

        def heading(title: str) -> None:
            out.append(("\n" if out else "") + title + "\n", style="bold")

        def fact(label: str, value: object) -> None:
            out.append(f"{label}: ", style="dim")
            out.append(f"{value}\n")

        heading("Session Info")
        name = self.session.session_name
        if name:
            fact("Name", name)
        fact("File", stats.get("sessionFile") or "In-memory")
        fact("ID", stats.get("sessionId"))
        heading("Messages")
        for label, key in (("User", "userMessages"), ("Assistant", "assistantMessages"),
                           ("Tool Calls", "toolCalls"), ("Tool Results", "toolResults"),
                           ("Total", "totalMessages")):  # fmt: skip
            fact(label, stats.get(key, 0))
        heading("Tokens")
        fact("Input", f"{int(tokens.get('input', 0)):,}")
        fact("Output", f"{int(tokens.get('output', 0)):,}")
        if tokens.get("cacheRead"):
            fact("Cache Read", f"{int(tokens['cacheRead']):,}")
        if tokens.get("cacheWrite"):
            fact("Cache Write", f"{int(tokens['cacheWrite']):,}")
        fact("Total", f"{int(tokens.get('total', 0)):,}")
        cost = float(stats.get("cost", 0.0) or 0.0)
        if cost > 0:
            heading("Cost")
            fact("Total", f"{cost:.4f}")
        out.rstrip()
        await self.app.show_notice(out, "plain")

    async def cmd_name(self, args: str) -> None:
        if not args:
            current = self.session.session_name
            await self._notice(f"Session name: {current}" if current else "Usage: /name <name>")
            return
        self.session.set_session_name(args)
        await self._notice(f"Session name set: {args}")
        self.app.refresh_footer()

    async def cmd_copy(self, args: str) -> None:
        text = self.session.get_last_assistant_text()
        if not text:
            await self._notice("No agent messages to copy yet.", "warning")
            return
        self.app.copy_to_clipboard(text)
        self.app.notify("Copied last agent message to clipboard")

    async def cmd_agents(self, args: str) -> None:
        from pi_cli.session.subagents.listing import agents_text

        await self._notice(agents_text(self.session))

    async def cmd_reload(self, args: str) -> None:
        """pi's ``/reload``: keybindings.json, then the session's resources and extensions."""
        from pi_cli.config.paths import keybindings_path
        from pi_cli.modes.command_actions import RELOAD_BUSY, reload_session
        from pi_cli.modes.interactive.keys import load_keymap

        if self.session.is_streaming:
            await self._notice(RELOAD_BUSY, "warning")
            return
        keymap, warnings = load_keymap(keybindings_path())
        self.app.use_keymap(keymap)
        status, problems = await reload_session(self.session)
        for line in [*warnings, *problems]:
            await self._notice(line, "warning")
        await self._notice(status, "error" if status.startswith("Reload failed") else "info")

    async def cmd_hotkeys(self, args: str) -> None:
        keymap = self.app.user_keymap
        rows = [(keymap.get(s.id, s.keys).replace(",", " / "), s.description) for s in (*EDITOR_KEYS, *APP_KEYS)]
        action = str(self.session.settings.double_escape_action or "tree")
        if action != "none":
            rows.append(("escape escape", f"Open /{action} (empty editor)"))
        rows += [
            ("pageup / pagedown", "Scroll the transcript"),
            ("up / down", "History (first/last line)"),
            ("@", "Path completion"),
            ("/", "Commands"),
        ]
        chrome = self.app.extension_ui
        extension_rows = chrome.hotkey_rows() if chrome is not None else []
        width = max(len(key) for key, _ in [*rows, *extension_rows]) + 2
        text = "Keyboard shortcuts\n" + "\n".join(f"{key.ljust(width)}{desc}" for key, desc in rows)
        if extension_rows:  # as pi: the bound extension shortcuts in a section of their own
            text += "\n\nExtensions\n" + "\n".join(f"{key.ljust(width)}{desc}" for key, desc in extension_rows)
        await self._notice(text)


def _theme_detail(catalog: ThemeCatalog, name: str) -> str:
    """Where a theme comes from, for its row in the theme list."""
    if name == "system":
        return "follows the terminal"
    theme = catalog.themes.get(name)
    return "built-in" if theme is None or theme.source == "builtin" else theme.source
