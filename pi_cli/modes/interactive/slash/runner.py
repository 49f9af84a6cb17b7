"""Slash commands of the interactive mode.

Built-ins are handled here; ``/template`` and ``/skill:name`` entries come from the session's
resources and are sent as prompts (the session expands them). Unknown ``/xyz`` text goes to the
model verbatim, as in pi. Session features that the session object lacks (compaction, export,
new session) answer with a one-line notice instead of failing.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Protocol

from rich.text import Text

from pi_cli.modes.interactive.keys import APP_KEYS, EDITOR_KEYS
from pi_cli.modes.interactive.render import EventRenderer
from pi_cli.modes.interactive.slash.login import register_login_commands
from pi_cli.modes.interactive.slash.mcp import register_mcp_commands
from pi_cli.modes.interactive.slash.permissions import register_permission_commands
from pi_cli.modes.interactive.slash.rewind import register_rewind_commands
from pi_cli.modes.interactive.slash.session import register_session_commands
from pi_cli.modes.interactive.startup import startup_header
from pi_cli.modes.interactive.widgets.status import WorkingLine
from pi_cli.modes.interactive.widgets.transcript import Transcript


class CommandHost(Protocol):
    """What the commands need of the TUI app (PiApp): its session and widgets, notices, screens
    and workers (Textual's own signatures, loosely typed here)."""

    theme: str

    @property
    def session(self) -> Any: ...

    @property
    def cwd(self) -> Path: ...

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

    async def show_notice(self, text: str | Text, kind: str = "info") -> None: ...

    async def quit(self) -> None: ...

    def notify(self, message: str, *, severity: Any = ...) -> None: ...

    def push_screen(self, screen: Any, callback: Any = ...) -> Any: ...

    def call_later(self, callback: Any, *args: Any, **kwargs: Any) -> bool: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def copy_to_clipboard(self, text: str) -> None: ...


BUILTINS: list[tuple[str, str]] = [
    ("model", "Select model (opens selector)"),
    ("thinking", "Set thinking level"),
    ("settings", "Open settings menu"),
    ("new", "Start a new session"),
    ("compact", "Manually compact the session context"),
    ("session", "Show session info and stats"),
    ("name", "Set session display name"),
    ("copy", "Copy last agent message to clipboard"),
    ("export", "Export session to HTML file"),
    ("hotkeys", "Show all keyboard shortcuts"),
    ("quit", "Quit pi"),
]
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class CommandRunner:
    """Runs ``/command args`` against the app and its session."""

    def __init__(self, app: CommandHost) -> None:
        self.app = app
        # /resume, /tree, /fork, /clone, /export (session_commands.py)
        self.session_commands = register_session_commands(self)
        self.login_commands = register_login_commands(self)  # /login, /logout
        self.permission_commands = register_permission_commands(self)  # /permissions, /trust, dialogs
        self.mcp_commands = register_mcp_commands(self)  # /mcp
        self.rewind_commands = register_rewind_commands(self)  # /rewind

    @property
    def session(self) -> Any:
        return self.app.session

    def completion_entries(self) -> list[tuple[str, str]]:
        entries = list(BUILTINS)
        getter = getattr(self.session, "get_commands", None)
        if callable(getter):
            for command in getter() or []:
                entries.append((str(command.get("name")), str(command.get("description", ""))))
        return entries

    async def run(self, text: str) -> bool:
        """Handle a built-in command; False means "not ours, send it as a prompt"."""
        name, _, args = text[1:].partition(" ")
        args = args.strip()
        handler = getattr(self, f"cmd_{name}", None)
        if name == "exit":
            handler = self.cmd_quit
        if handler is None:
            return False
        try:
            await handler(args)
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

        registry = getattr(self.session, "model_registry", None)
        refresh = getattr(registry, "refresh", None)
        if callable(refresh):
            try:
                refresh()
            except Exception as exc:  # a broken file must not stop the picker from opening
                self.app.notify(f"Could not reload models: {exc}", severity="warning")
            for problem in list(getattr(registry, "errors", []) or [])[:3]:
                self.app.notify(str(problem), severity="warning")
        models = list(self.session.available_models() or [])
        current = getattr(self.session, "model", None) or {}
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
        current = str(getattr(self.session, "thinking_level", "off"))
        items = [PickItem(level, level, "", level == current) for level in THINKING_LEVELS]

        def chosen(level: str | None) -> None:
            if level:
                result = self.session.set_thinking_level(level)
                self.app.notify(f"Thinking level: {result}")
                self.app.refresh_footer()

        self.app.push_screen(PickerScreen("Thinking level", items), chosen)

    async def cmd_settings(self, args: str, row: str | None = None) -> None:
        """The settings list; after a toggle it reopens on the same ``row`` (not the top)."""
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        s = self.session
        items = [
            PickItem("steering", "Steering mode", str(s.steering_mode)),
            PickItem("followup", "Follow-up mode", str(s.follow_up_mode)),
            PickItem("compaction", "Auto-compaction", "on" if s.auto_compaction_enabled else "off"),
            PickItem("retry", "Auto-retry", "on" if s.auto_retry_enabled else "off"),
            PickItem("theme", "Theme", "light" if self.app.theme == "textual-light" else "dark"),
            *self.permission_commands.settings_items(),
        ]

        def chosen(key: str | None) -> None:
            if not key:
                return
            flip = {"all": "one-at-a-time", "one-at-a-time": "all"}
            if self.permission_commands.apply_setting(key):
                pass
            elif key == "steering":
                s.set_steering_mode(flip.get(str(s.steering_mode), "all"))
                self.app.notify(f"Steering mode: {s.steering_mode}")
            elif key == "followup":
                s.set_follow_up_mode(flip.get(str(s.follow_up_mode), "all"))
                self.app.notify(f"Follow-up mode: {s.follow_up_mode}")
            elif key == "compaction":
                s.set_auto_compaction_enabled(not s.auto_compaction_enabled)
                self.app.notify(f"Auto-compaction: {'on' if s.auto_compaction_enabled else 'off'}")
            elif key == "retry":
                s.set_auto_retry_enabled(not s.auto_retry_enabled)
                self.app.notify(f"Auto-retry: {'on' if s.auto_retry_enabled else 'off'}")
            elif key == "theme":
                light = self.app.theme != "textual-light"
                self.app.theme = "textual-light" if light else "textual-dark"
                _save_setting(s, "theme", "light" if light else "dark")
            self.app.refresh_footer()
            self.app.call_later(self.app.run_worker, self.cmd_settings("", key), exclusive=True, group="settings")

        self.app.push_screen(PickerScreen("Settings (Enter toggles, Esc closes)", items, highlight=row), chosen)

    async def cmd_new(self, args: str) -> None:
        if self.app.running:
            await self._notice("Cannot start a new session while the agent is running (Esc aborts).", "warning")
            return
        method = getattr(self.session, "new_session", None)
        if not callable(method):
            await self._notice("/new is not available in this build.", "warning")
            return
        await _maybe_await(method())
        await self.app.transcript.clear_entries()
        self.app.renderer.forget()
        await self.app.transcript.add(startup_header(self.session, self.app.cwd, self.app.user_keymap))
        await self._notice("✓ New session started")
        self.app.refresh_footer()

    async def cmd_compact(self, args: str) -> None:
        if self.app.running:
            await self._notice("Cannot compact while the agent is running.", "warning")
            return
        if len(list(self.session.messages)) < 2:
            await self._notice("Nothing to compact (no messages yet)")
            return
        method = getattr(self.session, "compact", None)
        if not callable(method):
            await self._notice("/compact is not available in this build.", "warning")
            return
        self.app.working.start("Compacting context...")
        try:
            await _maybe_await(method(args or None))  # compaction_end renders the outcome
        except Exception as exc:
            await self._notice(f"Compaction failed: {exc}", "error")
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
        name = getattr(self.session, "session_name", None)
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
            current = getattr(self.session, "session_name", None)
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

    async def cmd_export(self, args: str) -> None:
        method = getattr(self.session, "export_html", None)
        if not callable(method):
            await self._notice("/export is not available in this build.", "warning")
            return
        try:
            path = await _maybe_await(method(args or None))
        except Exception as exc:
            await self._notice(f"Export failed: {exc}", "error")
            return
        await self._notice(f"Session exported to: {path}")

    async def cmd_hotkeys(self, args: str) -> None:
        keymap = self.app.user_keymap
        rows = [(keymap.get(s.id, s.keys).replace(",", " / "), s.description) for s in (*EDITOR_KEYS, *APP_KEYS)]
        action = str(getattr(getattr(self.session, "settings", None), "double_escape_action", "tree") or "tree")
        if action != "none":
            rows.append(("escape escape", f"Open /{action} (empty editor)"))
        rows += [
            ("pageup / pagedown", "Scroll the transcript"),
            ("up / down", "History (first/last line)"),
            ("@", "Path completion"),
            ("/", "Commands"),
        ]
        chrome = getattr(self.app, "extension_ui", None)
        extension_rows = chrome.hotkey_rows() if chrome is not None else []
        width = max(len(key) for key, _ in [*rows, *extension_rows]) + 2
        text = "Keyboard shortcuts\n" + "\n".join(f"{key.ljust(width)}{desc}" for key, desc in rows)
        if extension_rows:  # as pi: the bound extension shortcuts in a section of their own
            text += "\n\nExtensions\n" + "\n".join(f"{key.ljust(width)}{desc}" for key, desc in extension_rows)
        await self._notice(text)


def _save_setting(session: Any, key: str, value: Any) -> None:
    save = getattr(session, "save_setting", None)
    if callable(save):
        save(key, value)
