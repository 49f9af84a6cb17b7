"""The built-in slash commands, one table for both terminal front ends.

Each :class:`CommandInfo` names a command, says what it does and which front ends have it; the
TUI's and inline's command runners map the names to their handlers (explicit dicts, as RPC's
``HANDLERS``), and both complete ``/`` from :func:`completion_entries`. A line that looks like a
command (:func:`command_name`) is run when a front end knows it, sent to the session when it names
a prompt template, a skill or an extension command (the session expands or runs those), and
otherwise answered locally with :func:`unknown_command` — it never reaches the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

TUI = "tui"
INLINE = "inline"
_BOTH = frozenset({TUI, INLINE})
_NAME = re.compile(r"/([A-Za-z][\w:.-]*)(?:\s|$)")


@dataclass(frozen=True, slots=True)
class CommandInfo:
    name: str
    description: str
    front_ends: frozenset[str] = _BOTH


BUILTIN_COMMANDS: tuple[CommandInfo, ...] = (
    CommandInfo("model", "Select model (opens selector)"),
    CommandInfo("thinking", "Set thinking level"),
    CommandInfo("settings", "Open settings menu"),
    CommandInfo("new", "Start a new session"),
    CommandInfo("resume", "Resume a different session"),
    CommandInfo("tree", "Navigate the session tree (switch branches)"),
    CommandInfo("fork", "Create a new fork from a previous message"),
    CommandInfo("clone", "Duplicate the current session at the current position"),
    CommandInfo("compact", "Manually compact the session context"),
    CommandInfo("session", "Show session info and stats"),
    CommandInfo("name", "Set session display name"),
    CommandInfo("copy", "Copy last agent message to clipboard"),
    CommandInfo("export", "Export session to HTML file (or .jsonl)"),
    CommandInfo("share", "Share session as a secret GitHub gist (needs gh)"),
    CommandInfo("rewind", "Restore files and/or conversation to before a message"),
    CommandInfo("permissions", "Tool approval mode: auto, ask or read-only"),
    CommandInfo("trust", "Save a project trust decision for future pi processes"),
    CommandInfo("sandbox", "Show or change the sandbox: off, workspace or read-only"),
    CommandInfo("mcp", "MCP servers: status, reconnect, enable, disable, exposure"),
    CommandInfo("agents", "List the subagent definitions (source, tools, model)"),
    CommandInfo("login", "Log in with a subscription (Anthropic, ChatGPT, GitHub Copilot)"),
    CommandInfo("logout", "Remove a stored login"),
    CommandInfo("reload", "Reload keybindings, extensions, skills, prompts and context files"),
    CommandInfo("hotkeys", "Show all keyboard shortcuts"),
    CommandInfo("quit", "Quit pi"),
)
ALIASES = {"exit": "quit"}


def builtin_entries(front_end: str) -> list[tuple[str, str]]:
    """``(name, description)`` of the built-ins ``front_end`` has, in the table's order."""
    return [(c.name, c.description) for c in BUILTIN_COMMANDS if front_end in c.front_ends]


def completion_entries(session: AgentSession, front_end: str) -> list[tuple[str, str]]:
    """What ``/`` completes to: the built-ins, then the session's extension commands, prompt
    templates and skills (a name already listed is not repeated)."""
    entries = builtin_entries(front_end)
    known = {name for name, _ in entries}
    return entries + [(name, desc) for name, desc in session.command_names() if name not in known]


def command_name(text: str) -> str | None:
    """The command a submitted line names (``/name`` or ``/name args``), aliases resolved; None
    for anything else (``/usr/bin/env is broken`` is a path, not a command)."""
    match = _NAME.match(text)
    if match is None:
        return None
    name = match.group(1)
    return ALIASES.get(name, name)


def is_session_command(session: AgentSession, name: str) -> bool:
    """Whether the session handles ``/name`` itself: a prompt template, a skill or an extension
    command (the text is then sent to it, as pi does)."""
    return any(entry == name for entry, _ in session.command_names())


def unknown_command(name: str) -> str:
    return f"Unknown command: /{name} (type / to see the commands)"
