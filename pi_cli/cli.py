"""The ``pi`` command: parse flags, pick a mode, build the session, run the mode.

Fast path: ``--version`` and ``--help`` import only :mod:`pi_cli.cli_args` and the standard
library (no textual, httpx or pydantic). Modes are imported lazily.

Exit codes (pi §1.5): 0 success (rpc on stdin EOF);
1 for CLI errors (unknown option/provider/model, missing key or ``@file``, session not found) and
for print mode when the last answer is an error or abort (json mode: an error); 129/143 on SIGHUP/SIGTERM. Expected
errors print one line to stderr, never a traceback.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.cli_args import CliArgs, parse_args, print_help, select_mode
from pi_cli.config import paths
from pi_cli.errors import PiError

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession


def take_flag_words(args: CliArgs, runner: Any) -> None:
    """``--name value`` for string flags: the word after a bare ``--name`` leaves ``args.messages``
    and becomes the flag's value (the flag's type is only known after loading)."""
    for name, index in sorted(args.extension_flag_words.items(), key=lambda item: -item[1]):
        flag = runner.flags.get(name)
        wants_word = flag is not None and flag.type == "string" and runner.flag_values.get(name) is True
        if wants_word and index < len(args.messages):
            runner.flag_values[name] = args.messages.pop(index)
            args.extension_flags[name] = runner.flag_values[name]


def _err(line: str) -> None:
    sys.stderr.write(line.rstrip("\n") + "\n")
    sys.stderr.flush()


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


def list_models(search: str | None, args: CliArgs | None = None) -> int:
    """``--list-models [search]``: a table of the models that have credentials (extensions'
    providers included)."""
    from pi_cli.session.assembly import load_registry

    registry = load_registry()
    if args is not None and (args.extensions or not args.no_extensions):
        from pi_cli.config.settings import load_settings
        from pi_cli.permissions.trust import is_project_trusted
        from pi_cli.session.assembly.extensions import load_extensions

        cwd = Path.cwd()
        settings = load_settings(cwd, project_trusted=is_project_trusted(cwd))[0]
        loaded = load_extensions(cwd, args.extensions, args.extension_flags, settings, discover=not args.no_extensions)
        if loaded is not None:
            registry.errors = [*registry.errors, *loaded[1], *loaded[0].apply_providers(registry)]
    for line in getattr(registry, "errors", []):
        _err(f"Warning: {line}")
    text: str = registry.format_list(search)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def list_agents() -> int:
    """``--list-agents``: the agents the ``subagent`` tool offers here (name, source, tools, model,
    description, file); bad agent files are warnings on stderr. Project agents only in a trusted
    folder (as the session would load them; nothing is asked here)."""
    from pi_cli.permissions.trust import is_project_trusted
    from pi_cli.session.subagents.listing import agent_listing

    text, warnings = agent_listing(Path.cwd(), is_project_trusted(Path.cwd()))
    for line in warnings:
        _err(f"Warning: {line}")
    sys.stdout.write(text + "\n")
    return 0


def export_session(args: CliArgs) -> int:
    """``--export in.jsonl [out.html]``, in the colours ``/export`` would use here: the theme of
    ``--use-theme`` or settings ``theme``, found as a session finds it (``--theme`` files too)."""
    from pi_cli.session.assembly import session_themes
    from pi_cli.store.export_html import export_file_to_html

    paths = args.export or []
    catalog = session_themes(session_options(args, "print", Path.cwd()))
    for warning in catalog.warnings:
        _err(f"Warning: {warning}")
    theme = catalog.active()
    try:
        result = export_file_to_html(
            Path(paths[0]).expanduser(), paths[1] if len(paths) > 1 else None, {**theme.colors, **theme.export}
        )
    except (OSError, ValueError) as exc:
        _err(f"Error: {exc}")
        return 1
    print(f"Exported to: {result}")
    return 0


def session_options(args: CliArgs, mode: str, cwd: Path) -> Any:
    """The :class:`SessionOptions` for ``args``: every field the two dataclasses share, by name."""
    from dataclasses import fields

    from pi_cli.session.assembly import SessionOptions

    shared = {f.name for f in fields(SessionOptions)} & {f.name for f in fields(CliArgs)}
    values = {name: getattr(args, name) for name in shared - {"mode", "offline"}}
    values = {name: type(value)(value) if isinstance(value, list | dict) else value for name, value in values.items()}
    return SessionOptions(cwd=cwd, mode=mode, offline=args.offline or paths.offline(), **values)


def _wants_inline(args: CliArgs, session: AgentSession) -> bool:
    return args.inline or session.settings.ui == "inline"


def run_interactive_mode(args: CliArgs, session: AgentSession, initial: list[str]) -> int:
    """The inline front end (``--inline`` or settings ``ui: inline``) or the full-screen TUI."""
    if _wants_inline(args, session):
        import asyncio

        from pi_cli.modes.inline import run_inline

        _resume_gc()
        return asyncio.run(run_inline(session, initial))
    from pi_cli.modes.interactive import run_interactive

    return run_interactive(session, initial, after_first_paint=_resume_gc)


def run_acp(args: CliArgs) -> int:
    """``--mode acp``: sessions are made per ``session/new``/``session/load`` in the client's cwd."""
    import asyncio

    from pi_cli.modes.acp.server import run_acp_mode

    def prepare() -> None:  # after the first answer: initialize need not wait for these imports
        from pi_cli.permissions.trust import set_trust_override

        set_trust_override(args.approve)  # each client cwd then resolves without a prompt

    def make_session(cwd: Path, session_file: str | None, mcp_servers: list[Any] | None = None) -> Any:
        from pi_cli.modes.acp.mcp_servers import client_servers
        from pi_cli.session.assembly import create_agent_session

        options = session_options(args, "acp", cwd)
        options.continue_ = options.resume = False
        options.fork = None
        options.session = session_file
        options.mcp_servers, problems = client_servers(mcp_servers)
        session = create_agent_session(options)
        session.startup_notices.extend(f"Warning: {line}" for line in problems)
        for notice in session.startup_notices:
            _err(notice)
        return session

    _resume_gc()
    return asyncio.run(run_acp_mode(make_session, prepare))


def decide_project_trust(args: CliArgs, mode: str, cwd: Path) -> Any:
    """Resolve project trust before any project file loads: ``--approve`` / ``--no-approve``,
    extensions' ``project_trust``, the saved decision, ``defaultProjectTrust``, else (interactive
    with a terminal) a start-up question. Returns the extensions loaded to hear ``project_trust``
    (for :func:`load_extensions`), or None."""
    from pi_cli.permissions import trust

    trust.set_trust_override(args.approve)
    choose = None
    if mode == "interactive" and _stdin_is_tty() and sys.stdout.isatty():
        from pi_cli.modes.trust_prompt import choose_in_terminal

        choose = choose_in_terminal
    warnings: list[str] = []
    pre = _project_trust_event(args, mode, cwd, choose is not None) if trust.needs_decision(cwd) else None
    trust.resolve_project_trust(cwd, choose=choose, warnings=warnings)
    for line in warnings:
        _err(f"Warning: {line}")
    return pre


def _project_trust_event(args: CliArgs, mode: str, cwd: Path, terminal: bool) -> Any:
    """Load the user's and ``-e`` extensions (project ones wait for trust) and let their
    ``project_trust`` handlers decide (pi_cli.extensions.project_trust)."""
    from pi_cli.config.settings import load_settings
    from pi_cli.session.assembly.extensions import load_extensions

    settings = load_settings(cwd, project_trusted=False)[0]
    pre = load_extensions(
        cwd, args.extensions, args.extension_flags, settings, discover=not args.no_extensions, trusted=False
    )
    if pre is not None and pre[0].has_handlers("project_trust"):
        from pi_cli.extensions.project_trust import decide_at_startup
        from pi_cli.modes.trust_prompt import terminal_dialogs

        name = ("inline" if args.inline else "tui") if mode == "interactive" else mode
        pre[1].extend(decide_at_startup(pre[0], cwd, name, *(terminal_dialogs() if terminal else ())))
    return pre


_gc_paused: list[bool] = []  # [True] while run() holds the collector off


def _pause_gc() -> None:
    """Start-up (imports, session, first frame) allocates a few hundred thousand long-lived
    objects and almost no garbage, yet the collector ran ~120 passes over them (30+ ms of a 0.3 s
    TUI start on a 2-core machine). Paused until the mode runs (the TUI: its first frame)."""
    if gc.isenabled():
        gc.disable()
        _gc_paused.append(True)


def _resume_gc(*, freeze: bool = False) -> None:
    """Undo :func:`_pause_gc` (idempotent). The TUI freezes what start-up built right after
    (``PiApp._warm_up``), so no pass ever walks it; a full pass here first cost 50-90 ms of the
    idle time after the first paint, to reclaim a few hundred kB of start-up cycles.

    ``freeze``: what start-up built goes to the permanent generation first (``gc.freeze``), for a
    mode that answers at once: everything allocated while paused sits in the youngest generation,
    so the first collection would walk it all (RPC: ~25 ms inside the first ``get_messages`` of a
    resumed 20k-entry session). Frozen objects are still freed when unreferenced."""
    if _gc_paused:
        _gc_paused.clear()
        if freeze:
            gc.freeze()
        gc.enable()


def run(args: CliArgs) -> int:
    """Everything after the fast path. Raises ``PiError`` for expected failures."""
    _pause_gc()
    for warning in args.warnings:
        _err(warning)
    if args.offline:
        os.environ["PI_OFFLINE"] = "1"
    if args.list_models is not None:
        return list_models(args.list_models if isinstance(args.list_models, str) else None, args)
    if args.list_agents:
        return list_agents()
    if args.export:
        return export_session(args)

    from pi_cli.cli_input import compose_initial_input, read_piped_stdin

    mode = select_mode(args, _stdin_is_tty())
    if mode in ("rpc", "acp") and args.file_args:
        _err(f"Error: @file arguments are not supported in {mode.upper()} mode")
        return 1
    if mode == "acp":
        return run_acp(args)
    cwd = Path.cwd()
    stdin_text = read_piped_stdin() if mode != "rpc" and not _stdin_is_tty() else None
    initial = compose_initial_input(stdin_text, args.file_args, args.messages, cwd)
    if mode == "print" and initial.empty:
        return 0
    mode_name = "inline" if mode == "interactive" and args.inline else mode
    pre = decide_project_trust(args, mode, cwd)

    from pi_cli.session.assembly import create_agent_session

    options = session_options(args, mode_name, cwd)
    options.preloaded_extensions = pre
    words = len(args.messages)
    session = create_agent_session(options)
    if session.extensions is not None:
        take_flag_words(args, session.extensions)
    if len(args.messages) != words:  # a string flag took a word: the prompt is the rest
        initial = compose_initial_input(stdin_text, args.file_args, args.messages, cwd)
        if mode == "print" and initial.empty:
            return 0

    import asyncio

    if mode == "print":
        from pi_cli.modes.print_mode import run_print_mode

        _resume_gc()
        return asyncio.run(run_print_mode(session, initial.first, initial.images, initial.rest))
    if mode == "json":
        from pi_cli.modes.json_mode import run_json_mode

        _resume_gc()
        return asyncio.run(run_json_mode(session, initial.first, initial.images, initial.rest))
    if mode == "rpc":
        from pi_cli.modes.rpc.server import run_rpc_mode

        _resume_gc(freeze=True)
        return asyncio.run(run_rpc_mode(session))
    messages = [m for m in [initial.first, *initial.rest] if m]
    return run_interactive_mode(args, session, messages)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pi`` script; returns the exit code."""
    raw = sys.argv[1:] if argv is None else argv
    if raw[:1] == ["auth"]:
        from pi_cli.oauth.cli import run_auth_command

        return run_auth_command(raw[1:])
    if raw[:1] and raw[0] in ("install", "remove", "uninstall", "list", "update"):
        from pi_cli.packages.cli import run_package_command

        return run_package_command(raw, Path.cwd(), paths.agent_dir())
    if raw[:1] == ["mcp"]:
        from pi_cli.mcp.cli import run_mcp_command
        from pi_cli.permissions.trust import is_project_trusted

        return run_mcp_command(raw[1:], Path.cwd(), paths.agent_dir(), is_project_trusted)
    try:
        args = parse_args(raw)
    except PiError as exc:
        _err(str(exc))
        return exc.exit_code
    if args.version:
        from pi_cli import __version__

        sys.stdout.write(__version__ + "\n")
        return 0
    if args.help:
        print_help()
        return 0
    try:
        return run(args)
    except PiError as exc:
        _err(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``pi -p ... | head``); silence the final flush of stdout too.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # e.g. an unwritable session dir: one line, not a traceback
        _err(f"Error: {exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}")
        return 1
    finally:
        _resume_gc()  # an early return or error (and in-process callers, such as the tests)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
