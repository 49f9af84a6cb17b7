"""Command-line parsing with pi 0.73.1's flags, plus the help text.

Hand-written rather than argparse because pi's grammar has quirks argparse cannot express
(``@file`` arguments, ``--list-models`` taking an optional value that must not look like a flag or
file, invalid ``--mode`` values ignored, unknown long flags swallowing a following value) and
because this module sits on the ``pi --version`` fast path: it imports only the standard library
and :mod:`pi_cli.errors`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from pi_cli.errors import UsageError

Mode = Literal["text", "json", "rpc", "acp"]
THINKING_LEVEL_NAMES = ("off", "minimal", "low", "medium", "high", "xhigh")
TOOL_NAMES_ALL = ("read", "bash", "edit", "write", "grep", "find", "ls")
OWN_TOOL_NAMES = ("subagent",)  # pi_cli's built-in tools beyond pi's (pi has them as packages)
PERMISSION_MODES = ("auto", "ask", "read-only")
SANDBOX_MODES = ("off", "workspace", "read-only")


@dataclass(slots=True)
class CliArgs:
    """Everything the command line said. ``None`` means "not given" (settings decide)."""

    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    system_prompt: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)
    thinking: str | None = None
    mode: Mode | None = None
    print: bool = False
    continue_: bool = False
    resume: bool = False
    session: str | None = None
    fork: str | None = None
    session_dir: str | None = None
    no_session: bool = False
    models: list[str] | None = None
    tools: list[str] | None = None
    no_tools: bool = False
    no_builtin_tools: bool = False
    extensions: list[str] = field(default_factory=list)
    no_extensions: bool = False
    # With -e on the command line, unknown ``--name[=value]`` options are kept for the extensions'
    # register_flag (checked once they are loaded); without -e they stay an error.
    extension_flags: dict[str, str | bool] = field(default_factory=dict)
    # A bare ``--name`` followed by a plain word: the index of that word in ``messages``. Once the
    # extensions are loaded, a ``string`` flag takes it as its value (``--name value``).
    extension_flag_words: dict[str, int] = field(default_factory=dict)
    skills: list[str] = field(default_factory=list)
    no_skills: bool = False
    no_mcp: bool = False
    prompt_templates: list[str] = field(default_factory=list)
    no_prompt_templates: bool = False
    themes: list[str] = field(default_factory=list)
    no_themes: bool = False
    use_theme: str | None = None
    no_context_files: bool = False
    export: list[str] | None = None
    list_models: str | bool | None = None
    list_agents: bool = False
    verbose: bool = False
    offline: bool = False
    inline: bool = False
    approve: bool | None = None  # --approve / --no-approve: project trust for this process
    permissions: str | None = None  # --permissions auto|ask|read-only
    sandbox: str | None = None  # --sandbox off|workspace|read-only (None: settings decide)
    help: bool = False
    version: bool = False
    messages: list[str] = field(default_factory=list)
    file_args: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# Flags that take one value: flag -> attribute. Repeatable ones append.
_VALUE_FLAGS: dict[str, str] = {
    "--provider": "provider",
    "--model": "model",
    "--api-key": "api_key",
    "--system-prompt": "system_prompt",
    "--session": "session",
    "--fork": "fork",
    "--session-dir": "session_dir",
    "--use-theme": "use_theme",
}
_REPEATABLE: dict[str, str] = {
    "--append-system-prompt": "append_system_prompt",
    "--extension": "extensions",
    "-e": "extensions",
    "--skill": "skills",
    "--prompt-template": "prompt_templates",
    "--theme": "themes",
}
_BOOL_FLAGS: dict[str, str] = {
    "--print": "print",
    "-p": "print",
    "--continue": "continue_",
    "-c": "continue_",
    "--resume": "resume",
    "-r": "resume",
    "--no-session": "no_session",
    "--no-tools": "no_tools",
    "-nt": "no_tools",
    "--no-builtin-tools": "no_builtin_tools",
    "-nbt": "no_builtin_tools",
    "--no-extensions": "no_extensions",
    "-ne": "no_extensions",
    "--no-skills": "no_skills",
    "--no-mcp": "no_mcp",
    "-ns": "no_skills",
    "--no-prompt-templates": "no_prompt_templates",
    "-np": "no_prompt_templates",
    "--no-themes": "no_themes",
    "--no-context-files": "no_context_files",
    "-nc": "no_context_files",
    "--verbose": "verbose",
    "--offline": "offline",
    "--inline": "inline",
    "--help": "help",
    "-h": "help",
    "--version": "version",
    "-v": "version",
}


def _split_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _need_value(argv: list[str], i: int, flag: str) -> str:
    if i + 1 >= len(argv):
        raise UsageError(f"Error: {flag} requires a value.", hint="(see pi --help)")
    return argv[i + 1]


def _set_mode(out: CliArgs, value: str) -> None:
    if value in ("text", "json", "rpc", "acp"):
        out.mode = value  # type: ignore[assignment]
    else:  # pi ignores an invalid mode silently; we say so once.
        out.warnings.append(f'Warning: Invalid mode "{value}" ignored. Valid modes: text, json, rpc, acp')


def _set_models(out: CliArgs, value: str) -> None:
    out.models = _split_list(value)


def _set_tools(out: CliArgs, value: str) -> None:
    names = _split_list(value)
    # MCP tools (``mcp__server__tool``, with ``*`` patterns) and ``tool_search`` are known only once
    # servers connect; pi_cli.mcp applies them (pi's rule).
    valid = (*TOOL_NAMES_ALL, *OWN_TOOL_NAMES)
    known = [name for name in names if name in valid or name.startswith("mcp__") or name == "tool_search"]
    for name in names:
        if name not in known:
            out.warnings.append(f'Warning: Unknown tool "{name}". Valid tools: {", ".join(valid)}')
    out.tools = known


def _set_permissions(out: CliArgs, value: str) -> None:
    if value in PERMISSION_MODES:
        out.permissions = value
    else:
        raise UsageError(f'Error: Invalid --permissions "{value}". Valid values: {", ".join(PERMISSION_MODES)}')


def _set_sandbox(out: CliArgs, value: str) -> None:
    if value in SANDBOX_MODES:
        out.sandbox = value
    else:
        raise UsageError(f'Error: Invalid --sandbox "{value}". Valid values: {", ".join(SANDBOX_MODES)}')


def _set_thinking(out: CliArgs, value: str) -> None:
    if value in THINKING_LEVEL_NAMES:
        out.thinking = value
    else:
        valid = ", ".join(THINKING_LEVEL_NAMES)
        out.warnings.append(f'Warning: Invalid thinking level "{value}". Valid values: {valid}')


# Flags whose one value is checked or split: invalid values become warnings, as in pi.
_CHECKED_FLAGS: dict[str, Callable[[CliArgs, str], None]] = {
    "--mode": _set_mode,
    "--models": _set_models,
    "--tools": _set_tools,
    "-t": _set_tools,
    "--thinking": _set_thinking,
    "--permissions": _set_permissions,
    "--sandbox": _set_sandbox,
}
# Project trust overrides (pi 1.6.0): the last one given wins.
_APPROVE_FLAGS = {"--approve": True, "-a": True, "--no-approve": False, "-na": False}


def _optional_value(argv: list[str], i: int) -> str | None:
    """The argument after ``argv[i]`` when it is neither a flag nor an ``@file``."""
    if i + 1 < len(argv) and not argv[i + 1].startswith(("-", "@")):
        return argv[i + 1]
    return None


def parse_args(argv: list[str]) -> CliArgs:
    """Parse ``argv`` (without the program name). Raises :class:`UsageError` for unknown options."""
    out = CliArgs()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in _BOOL_FLAGS:
            setattr(out, _BOOL_FLAGS[arg], True)
        elif arg in _VALUE_FLAGS:
            setattr(out, _VALUE_FLAGS[arg], _need_value(argv, i, arg))
            i += 1
        elif arg in _REPEATABLE:
            getattr(out, _REPEATABLE[arg]).append(_need_value(argv, i, arg))
            i += 1
        elif arg in _CHECKED_FLAGS:
            _CHECKED_FLAGS[arg](out, _need_value(argv, i, arg))
            i += 1
        elif arg in _APPROVE_FLAGS:
            out.approve = _APPROVE_FLAGS[arg]
        elif arg == "--export":
            out.export = [_need_value(argv, i, arg)]
            i += 1
            target = _optional_value(argv, i)
            if target is not None:
                out.export.append(target)
                i += 1
        elif arg == "--list-agents":
            out.list_agents = True
        elif arg == "--list-models":
            search = _optional_value(argv, i)
            out.list_models = True if search is None else search
            if search is not None:
                i += 1
        elif arg.startswith("@") and len(arg) > 1:
            out.file_args.append(arg[1:])
        elif arg.startswith("--") and len(arg) > 2 and ("-e" in argv or "--extension" in argv):
            name, has_value, value = arg[2:].partition("=")
            out.extension_flags[name] = value if has_value else True
            following = argv[i + 1] if i + 1 < len(argv) else None
            if not has_value and following is not None and not following.startswith(("-", "@")):
                out.extension_flag_words[name] = len(out.messages)
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"Error: Unknown option: {arg.split('=', 1)[0]}", hint="(see pi --help)")
        else:
            out.messages.append(arg)
        i += 1
    return out


def select_mode(args: CliArgs, stdin_is_tty: bool) -> Literal["interactive", "print", "json", "rpc", "acp"]:
    """pi's rule: ``--mode rpc|json`` wins (and ``acp``, ours); ``-p`` or a non-TTY stdin means print;
    else interactive."""
    if args.mode in ("rpc", "acp"):
        return args.mode
    if args.mode == "json":
        return "json"
    if args.print or not stdin_is_tty:
        return "print"
    return "interactive"


HELP_TEXT = """pi - AI coding assistant with read, bash, edit, write tools (pi_cli {version})

Usage:
  pi [options] [@files...] [messages...]

Commands:
  pi install <source> [-l]       Install a package (pip:NAME, git:URL[@REF], a path) and add it to settings
  pi remove <source> [-l]        Remove a package and its settings entry (alias: pi uninstall)
  pi update [source]             Update installed packages
  pi list                        List installed packages from settings
  pi mcp add|remove|list         Configure MCP servers (mcp.json; -l for the project's)
  pi auth login|logout <prov>    Sign in with a subscription (anthropic, openai-codex, github-copilot)
  pi <command> --help            Show help for install/remove/update/list/mcp/auth

Options:
  --provider <name>              Provider name (used together with --model)
  --model <pattern>              Model pattern or id ("provider/id", fuzzy match, optional ":<thinking>")
  --api-key <key>                API key for the chosen model's provider (defaults to env vars / auth.json)
  --system-prompt <text|file>    Replace the default system prompt
  --append-system-prompt <t|f>   Append text or file contents to the system prompt (repeatable)
  --mode <mode>                  Output mode: text (default), json, rpc, or acp (Agent Client Protocol)
  --print, -p                    Non-interactive: process the prompt(s), print the answer, exit
  --continue, -c                 Continue the most recent session of this directory
  --resume, -r                   Pick a session to resume
  --session <path|id>            Use a specific session file (or id prefix)
  --fork <path|id>               Fork a session into a new session of this directory
  --session-dir <dir>            Directory for session storage and lookup
  --no-session                   Don't save the session (in memory only)
  --models <patterns>            Comma-separated model patterns for Ctrl+P cycling
  --tools, -t <tools>            Comma-separated tools to enable (default: read,bash,edit,write)
                                 Available: read, bash, edit, write, grep, find, ls
  --no-tools, -nt                Disable all tools
  --no-builtin-tools, -nbt       Disable the built-in tools
  --thinking <level>             Thinking level: off, minimal, low, medium, high, xhigh
  --no-context-files, -nc        Don't load AGENTS.md / CLAUDE.md files
  --skill <path>                 Load a skill file or directory (repeatable)
  --no-skills, -ns               Disable skills discovery
  --no-mcp                       Don't connect the MCP servers of mcp.json (pi mcp add|remove|list)
  --prompt-template <path>       Load a prompt template file or directory (repeatable)
  --no-prompt-templates, -np     Disable prompt template discovery
  --extension, -e <path>         Load a Python extension file/folder, or example:NAME (repeatable)
  --no-extensions, -ne           Disable extension discovery (explicit -e paths still load)
  --theme <path>                 Load a theme file or folder of them (repeatable)
  --no-themes                    Disable theme discovery (--theme paths still load)
  --use-theme <name>             Theme for this run: dark, light, system, a pair light/dark, or a
                                 custom theme's name (settings "theme" is the lasting choice)
  --export <in.jsonl> [out.html] Export a session file to HTML and exit
  --list-models [search]         List available models (optional fuzzy search)
  --list-agents                  List the subagent definitions (builtin, user, package, project)
  --inline                       Interactive mode without the full-screen UI
  --approve, -a                  Trust this project's .pi settings and resources for this run
  --no-approve, -na              Ignore trust-gated project settings and resources for this run
  --permissions <mode>           Tool approval: auto (default), ask, or read-only
  --sandbox <mode>               Confine the processes tools start (Linux Landlock): off (default),
                                 workspace (write only in the project and temp dir, no network),
                                 or read-only (write nowhere); settings "sandbox" refine it
  --verbose                      Force verbose startup
  --offline                      Disable startup network probes (same as PI_OFFLINE=1)
  --help, -h                     Show this help
  --version, -v                  Show the version

Examples:
  pi                                    # interactive
  pi -p "List all Python files in src/" # print the answer and exit
  pi @notes.md "Summarise this file"    # include a file in the first message
  pi --model openai/gpt-4o-mini -p "hi" # pick a model
  pi -c "What did we discuss?"          # continue the last session here

Environment:
  ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, GROQ_API_KEY, OPENROUTER_API_KEY, ...
                                 API keys per provider
  PI_CODING_AGENT_DIR            Config directory (default: ~/.pi/agent)
  PI_CODING_AGENT_SESSION_DIR    Session directory (default: <config dir>/sessions)
  PI_OFFLINE                     Disable startup network operations when set to 1/true/yes

With no API key configured, pi looks for a local Ollama or LM Studio server and otherwise starts on an
offline demo model. Configure a provider with an API key environment variable, auth.json, or models.json.
"""


def print_help() -> None:
    from pi_cli import __version__

    sys.stdout.write(HELP_TEXT.format(version=__version__))
