"""Slash commands of inline mode: every built-in of :mod:`pi_cli.modes.commands`, shown in scrollback.

:class:`InlineCommands` maps each name to its handler (an explicit table, as the TUI's). Where
the TUI opens a picker, inline prints a numbered list and the next line chooses
(:meth:`~pi_cli.modes.inline.approvals.InlineApprovals.pick`). Templates, skills and extension
commands are the session's (the caller sends them on); any other ``/name`` gets a notice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING

from rich.console import RenderableType

from pi_cli.ai.types import THINKING_LEVELS
from pi_cli.modes import command_actions as actions
from pi_cli.modes.commands import INLINE, builtin_entries, command_name, is_session_command, unknown_command
from pi_cli.modes.inline import render
from pi_cli.modes.inline.approvals import InlineApprovals
from pi_cli.modes.inline.login import InlineLogin
from pi_cli.modes.inline.rewind import rewind_command
from pi_cli.modes.inline.session_commands import SessionCommands

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

Show = Callable[[RenderableType], None]
Handler = Callable[[str], Awaitable[None]]

HOTKEYS = (
    ("enter", "send; while the agent works: queue a steering message"),
    ("alt+enter", "while the agent works: queue a follow-up (idle: send)"),
    ("ctrl+j", "newline"),
    ("alt+up", "pull queued messages back into the editor"),
    ("alt+m", "cycle the tool approval mode (auto / ask / read-only)"),
    ("ctrl+l", "select model"),
    ("ctrl+c / esc", "abort the run or a ! command; idle: clear, twice quits"),
    ("esc esc", "open /tree (empty editor)"),
    ("ctrl+d", "quit on an empty editor"),
    ("up / down", "history"),
    ("@ / /", "complete a path / a command"),
)


@dataclass(eq=False)
class InlineCommands:
    """The inline command table, bound to one session and the inline front end's outputs."""

    session: AgentSession
    show: Show
    dialogs: InlineApprovals
    login_flow: InlineLogin  # /login, /logout
    _: KW_ONLY
    quit_app: Callable[[], None]
    set_editor_text: Callable[[str], None]
    copy_text: Callable[[str], None]  # the clipboard writer of /copy
    files: SessionCommands = field(init=False)
    handlers: dict[str, Handler] = field(init=False)

    def __post_init__(self) -> None:
        self.files = SessionCommands(self.session, self.show, self.dialogs, self.set_editor_text)
        f = self.files
        self.handlers = {
            "model": self.model, "thinking": self.thinking, "settings": self.settings, "new": f.new,
            "resume": f.resume, "tree": f.tree, "fork": f.fork, "clone": f.clone, "compact": self.compact,
            "session": self.info, "name": self.name, "copy": self.copy, "export": f.export, "share": f.share,
            "rewind": self.rewind,
            "permissions": self.permissions, "trust": self.trust, "sandbox": self.sandbox, "mcp": self.mcp,
            "agents": self.agents,
            "login": self.login, "logout": self.logout, "hotkeys": self.hotkeys, "quit": self.quit,
            "reload": self.reload,
        }  # fmt: skip
        assert {name for name, _ in builtin_entries(INLINE)} == set(self.handlers), "modes/commands.py lists them"

    def knows(self, text: str) -> bool:
        """Whether ``text`` is for this table: a built-in, or a ``/name`` nobody knows. False: not
        a command, or one the session handles (a template, skill or extension command: send it)."""
        name = command_name(text)
        return name is not None and (name in self.handlers or not is_session_command(self.session, name))

    async def run(self, text: str) -> None:
        """Run a line :meth:`knows`; a failure is one line in scrollback, the session goes on."""
        name = command_name(text)
        assert name is not None
        handler = self.handlers.get(name)
        if handler is None:
            self.show(render.notice(unknown_command(name), "yellow"))
            return
        try:
            await handler(text.partition(" ")[2].strip())
        except Exception as exc:  # a bad argument is reported in one line, the session goes on
            self.show(render.error_block(f"/{name}: {exc}"))

    def _ok(self, text: str) -> None:
        self.show(render.notice(text, "green"))

    # -- models ------------------------------------------------------------------------------

    async def model(self, args: str) -> None:
        """``/model pattern[:thinking]`` switches at once; ``/model`` lists the models to pick from."""
        session = self.session
        registry = session.model_registry
        if args and registry is not None:
            model, level = registry.resolve(args)
            session.set_model(model)
            if level:
                session.set_thinking_level(level)
        else:
            if registry is not None:
                registry.refresh()  # a provider added while pi runs can be picked (as the TUI)
            models = session.available_models()
            if not models:
                self.show(render.notice("No models available. Set an API key or add models.json.", "yellow"))
                return
            current: dict[str, object] = dict(session.model or {})
            labels = [
                f"{m['provider']}/{m['id']}"
                + (" (current)" if (m["provider"], m["id"]) == (current.get("provider"), current.get("id")) else "")
                for m in models
            ]
            picked = await self.dialogs.pick("Select model", labels)
            if picked is None:
                return
            session.set_model(models[picked])
        chosen = session.model
        assert chosen is not None
        self._ok(f"Model: {chosen['provider']}/{chosen['id']} • thinking {session.thinking_level}")

    async def thinking(self, args: str) -> None:
        if not args:
            levels = list(THINKING_LEVELS)
            current = self.session.thinking_level
            picked = await self.dialogs.pick(
                "Thinking level", [f"{level}{' (current)' if level == current else ''}" for level in levels]
            )
            if picked is None:
                return
            args = levels[picked]
        if args not in THINKING_LEVELS:
            raise ValueError(f"Unknown thinking level: {args} (use {', '.join(THINKING_LEVELS)})")
        self._ok(f"Thinking level: {self.session.set_thinking_level(args)}")

    # -- settings and access ---------------------------------------------------------------------

    async def settings(self, args: str) -> None:
        """The /settings rows; choosing one moves it to its next value and saves it (pi's /settings)."""
        rows = actions.settings_rows(self.session)
        picked = await self.dialogs.pick("Settings", [f"{r.label}: {r.value}" for r in rows])
        if picked is None:
            return
        key = rows[picked].key
        if key == "theme":
            names = self.session.themes.names()
            current = self.session.themes.selected
            chosen = await self.dialogs.pick("Theme", [f"{n}{' (current)' if n == current else ''}" for n in names])
            if chosen is not None:
                self._ok(actions.choose_theme(self.session, names[chosen]))
            return
        self._ok(actions.toggle_setting(self.session, key))

    async def reload(self, args: str) -> None:
        """pi's ``/reload``: the session's resources and extensions (inline binds its keys once:
        changed keybindings and extension shortcuts take a restart)."""
        status, problems = await actions.reload_session(self.session)
        for line in problems:
            self.show(render.notice(f"Warning: {line}", "yellow"))
        if status.startswith("Reloaded"):
            self._ok(status)
        else:
            self.show(render.notice(status, "yellow"))

    async def permissions(self, args: str) -> None:
        """``/permissions [auto|ask|read-only]``: show or set the approval mode for this session."""
        from pi_cli.permissions.policy import MODE_DETAILS

        gate = self.session.permissions
        if gate is not None and not args:
            modes = list(MODE_DETAILS)
            labels = [f"{mode}{' (current)' if mode == gate.mode else ''} — {MODE_DETAILS[mode]}" for mode in modes]
            picked = await self.dialogs.pick("Tool approval mode (Alt+M cycles)", labels)
            if picked is None:
                return
            args = modes[picked]
        self._ok(actions.set_permission_mode(self.session, args))

    async def sandbox(self, args: str) -> None:
        """``/sandbox [off|workspace|read-only]``: show or change the sandbox for this session."""
        from pi_cli.sandbox.policy import MODE_DETAILS

        if not args and self.session.sandbox is not None:
            modes = list(MODE_DETAILS)
            current = self.session.sandbox.policy.mode
            labels = [f"{mode}{' (current)' if mode == current else ''} — {MODE_DETAILS[mode]}" for mode in modes]
            picked = await self.dialogs.pick(f"Sandbox · now: {actions.sandbox_status(self.session)}", labels)
            if picked is None:
                return
            args = modes[picked]
        self._ok(actions.set_sandbox_mode(self.session, args))

    async def trust(self, args: str) -> None:
        """``/trust``: the saved decision; ``/trust yes|parent|no`` saves one for future pi processes."""
        from pi_cli.config.paths import agent_dir
        from pi_cli.permissions.trust import is_project_trusted, trust_options
        from pi_cli.permissions.trust_store import TrustStore

        cwd = str(self.session.cwd)
        store = TrustStore(agent_dir())
        options = trust_options(cwd)
        choice = {"yes": options[0], "no": options[-1]}
        if len(options) == 3:
            choice["parent"] = options[1]
        if args in choice:
            store.set_many(choice[args].updates)
            verdict = "trusted" if choice[args].trusted else "untrusted"
            self._ok(f"Saved trust decision: {verdict}. Restart pi for this to take effect.")
            return
        saved = store.entry(cwd)
        saved_text = "none" if saved is None else f"{'trusted' if saved.decision else 'untrusted'} ({saved.path})"
        current = "trusted" if is_project_trusted(cwd) else "untrusted"
        usage = " | ".join(f"/trust {key}" for key in choice)
        lines = [f"Project trust: {cwd}", f"Saved decision: {saved_text}", f"Current session: {current}", usage]
        self.show(render.notice("\n".join(lines), "default"))

    async def mcp(self, args: str) -> None:
        runtime = self.session.mcp
        if runtime is None:
            self.show(render.notice("No MCP servers configured (~/.pi/agent/mcp.json, see `pi mcp add`).", "yellow"))
            return
        from pi_cli.mcp.status import run_action

        self.show(render.notice(await run_action(runtime.manager, args), "default"))

    async def agents(self, args: str) -> None:
        from pi_cli.session.subagents.listing import agents_text

        self.show(render.notice(agents_text(self.session), "default"))

    async def login(self, args: str) -> None:
        self.login_flow.run("login", args)

    async def logout(self, args: str) -> None:
        self.login_flow.run("logout", args)

    # -- the session -------------------------------------------------------------------------------

    async def compact(self, args: str) -> None:
        result = await self.session.compact(args or None)
        before = result.get("tokensBefore") if isinstance(result, dict) else None
        from pi_cli.modes.display import format_tokens

        self._ok(f"Compacted ({format_tokens(before)} tokens before)." if before else "Compacted.")

    async def info(self, args: str) -> None:
        self.show(render.notice(actions.session_info_text(self.session), "default"))

    async def name(self, args: str) -> None:
        if not args:
            name = self.session.session_name
            self.show(render.notice(f"Session name: {name or '(none)'}. Usage: /name <name>", "dim"))
            return
        self.session.set_session_name(args)
        self._ok(f"Session name set: {args}")

    async def copy(self, args: str) -> None:
        text = self.session.get_last_assistant_text()
        if not text:
            self.show(render.notice("No agent messages to copy yet.", "yellow"))
            return
        self.copy_text(text)
        self._ok("Copied last agent message to clipboard")

    async def rewind(self, args: str) -> None:
        await rewind_command(self.session, args, self.show, self.dialogs, self.files.set_editor_text)

    async def hotkeys(self, args: str) -> None:
        text = "\n".join(f"{key:14} {what}" for key, what in HOTKEYS)
        runner = self.session.extensions
        if runner is not None and runner.shortcuts:
            from pi_cli.modes.inline.extensions import resolve_inline_shortcuts

            bound = resolve_inline_shortcuts(runner)[0]
            if bound:
                rows = [(s.canonical, s.description or s.source) for _keys, s in bound]
                text += "\n\nExtensions\n" + "\n".join(f"{key:14} {what}" for key, what in rows)
        self.show(render.notice(text, "default"))

    async def quit(self, args: str) -> None:
        self.quit_app()
