"""Slash commands of inline mode: the ones that make sense in scrollback, printed as notices.

``run_command`` returns False for a name it does not know, so the caller sends the text on —
prompt templates and skills are expanded by the session, anything else reaches the model as is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from rich.console import RenderableType

from pi_cli.ai.types import THINKING_LEVELS
from pi_cli.modes.display import format_tokens
from pi_cli.modes.inline import render
from pi_cli.modes.inline.approvals import permissions_command, trust_command
from pi_cli.modes.inline.rewind import rewind_command

COMMANDS: dict[str, str] = {
    "model": "Switch model: /model <provider/id or fuzzy name>[:thinking]",
    "thinking": "Set the thinking level: /thinking off|minimal|low|medium|high|xhigh",
    "session": "Show session file, messages, tokens and cost",
    "name": "Name this session: /name <name>",
    "new": "Start a new session",
    "compact": "Summarise older context now: /compact [instructions]",
    "hotkeys": "Show the keys",
    "login": "Log in with a subscription: /login [anthropic|openai-codex|github-copilot]",
    "logout": "Remove a stored login: /logout <provider>",
    "mcp": "MCP servers: /mcp [reconnect|enable|disable <server>] [exposure <server> <mode>]",
    "permissions": "Tool approval mode: /permissions auto|ask|read-only",
    "trust": "Save a project trust decision: /trust yes|parent|no",
    "rewind": "Restore files and/or conversation to before a message: /rewind [N [both|files|conversation]]",
    "quit": "Quit pi",
}

HOTKEYS = (
    ("enter", "send; while the agent works: queue a steering message"),
    ("alt+enter", "while the agent works: queue a follow-up (idle: send)"),
    ("ctrl+j", "newline"),
    ("alt+up", "pull queued messages back into the editor"),
    ("alt+m", "cycle the tool approval mode (auto / ask / read-only)"),
    ("ctrl+c / esc", "abort the run or a ! command; idle: clear, twice quits"),
    ("ctrl+d", "quit on an empty editor"),
    ("up / down", "history"),
    ("@ / /", "complete a path / a command"),
)


async def run_command(
    session: Any, text: str, show: Callable[[RenderableType], None], quit_app: Callable[[], None]
) -> bool:
    """Run ``/name args``; False when ``name`` is not an inline command."""
    name, _, args = text[1:].partition(" ")
    args = args.strip()
    handler = _HANDLERS.get(name)
    if handler is None:
        return False
    if name in ("quit", "exit"):
        quit_app()
        return True
    try:
        await handler(session, args, show)
    except Exception as exc:  # a bad argument is reported in one line, the session goes on
        show(render.error_block(str(exc)))
    return True


async def _model(session: Any, args: str, show: Callable[[RenderableType], None]) -> None:
    if not args:
        names = ", ".join(f"{m['provider']}/{m['id']}" for m in session.available_models()[:20])
        show(render.notice(f"Usage: /model <pattern>. Available: {names or 'none'}", "dim"))
        return
    model, level = session.model_registry.resolve(args)
    session.set_model(model)
    if level:
        session.set_thinking_level(level)
    show(render.notice(f"Model: {model['provider']}/{model['id']} • thinking {session.thinking_level}", "green"))


async def _thinking(session: Any, args: str, show: Callable[[RenderableType], None]) -> None:
    if args not in THINKING_LEVELS:
        show(render.notice(f"Usage: /thinking {'|'.join(THINKING_LEVELS)} (now {session.thinking_level})", "dim"))
        return
    show(render.notice(f"Thinking level: {session.set_thinking_level(args)}", "green"))


async def _session(session: Any, args: str, show: Callable[[RenderableType], None]) -> None:
    stats = session.get_session_stats()
    tokens = stats.get("tokens") or {}
    lines = [
        f"File: {stats.get('sessionFile') or 'in memory'}",
        f"ID: {stats.get('sessionId')}",
        f"Messages: user {stats.get('userMessages', 0)}, assistant {stats.get('assistantMessages', 0)}, "
        f"tool calls {stats.get('toolCalls', 0)}, total {stats.get('totalMessages', 0)}",
        f"Tokens: ↑{format_tokens(tokens.get('input', 0))} ↓{format_tokens(tokens.get('output', 0))} "
        f"total {format_tokens(tokens.get('total', 0))}",
        f"Cost: ${float(stats.get('cost', 0.0)):.4f}",
    ]
    show(render.notice("\n".join(lines), "default"))


async def _name(session: Any, args: str, show: Callable[[RenderableType], None]) -> None:
    if not args:
        show(render.notice(f"Session name: {session.session_name or '(none)'}. Usage: /name <name>", "dim"))
        return
    session.set_session_name(args)
    show(render.notice(f"Session name set: {args}", "green"))


async def _new(session: Any, args: str, show: Callable[[RenderableType], None]) -> None:
    await session.new_session()
    show(render.notice("✓ New session started", "green"))


async def _compact(session: Any, args: str, show: Callable[[RenderableType], None]) -> None:
    result = await session.compact_now(args or None)
    before = result.get("tokensBefore") if isinstance(result, dict) else None
    show(render.notice(f"Compacted ({format_tokens(before)} tokens before)." if before else "Compacted.", "green"))


async def _hotkeys(session: Any, args: str, show: Callable[[RenderableType], None]) -> None:
    text = "\n".join(f"{key:14} {what}" for key, what in HOTKEYS)
    runner = getattr(session, "extensions", None)
    if runner is not None and runner.shortcuts:
        from pi_cli.modes.inline.extensions import resolve_inline_shortcuts

        bound = resolve_inline_shortcuts(runner)[0]
        if bound:
            rows = [(s.canonical, s.description or s.source) for _keys, s in bound]
            text += "\n\nExtensions\n" + "\n".join(f"{key:14} {what}" for key, what in rows)
    show(render.notice(text, "default"))


async def _mcp(session: Any, args: str, show: Callable[[RenderableType], None]) -> None:
    manager = getattr(getattr(session, "mcp", None), "manager", None)
    if manager is None:
        show(render.notice("No MCP servers configured (~/.pi/agent/mcp.json, see `pi mcp add`).", "yellow"))
        return
    from pi_cli.mcp.status import run_action

    try:
        show(render.notice(await run_action(manager, args), "default"))
    except ValueError as exc:
        show(render.notice(f"/mcp: {exc}", "red"))


async def _quit(session: Any, args: str, show: Callable[[RenderableType], None]) -> None:
    return None  # handled by run_command, which owns the app's exit


_Handler = Callable[[Any, str, Callable[[RenderableType], None]], Awaitable[None]]
_HANDLERS: dict[str, _Handler] = {
    "model": _model,
    "thinking": _thinking,
    "session": _session,
    "name": _name,
    "new": _new,
    "compact": _compact,
    "hotkeys": _hotkeys,
    "mcp": _mcp,
    "permissions": permissions_command,
    "trust": trust_command,
    "rewind": rewind_command,
    "quit": _quit,
    "exit": _quit,
}
