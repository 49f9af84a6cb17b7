"""The one assembly step from options: :func:`create_agent_session`.

Order of work: settings (bad files → warnings, defaults kept) → model registry → extensions (their
providers count for ``--model``) → session manager from the session flags → model and thinking
level → sandbox, MCP runtime, approval gate → tools (with the ``subagent`` tool: the agent
definitions and the subagent runtime) → prompt resources and system prompt →
:func:`~pi_cli.session.assembly.assemble.build_session`: Agent (its hook chains from the parts,
restored with the session's messages) → AgentSession → parts bound to it. Every mode builds its
session here; a child session takes its parent's parts instead
(:mod:`pi_cli.session.assembly.children`) and ends in the same ``build_session``. Expected failures raise a
:class:`~pi_cli.errors.PiError` with a one-line message; warnings end up in
``session.startup_notices`` for the mode to show.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.ai.types import Model
from pi_cli.errors import ConfigError, SessionError
from pi_cli.models.startup import choose_model
from pi_cli.session.agent_session import AgentSession
from pi_cli.session.assembly.assemble import build_session
from pi_cli.session.assembly.extensions import load_extensions, provider_problems
from pi_cli.session.assembly.options import SessionOptions
from pi_cli.session.assembly.parts import SessionParts
from pi_cli.session.store_bridge import SessionStoreBridge

if TYPE_CHECKING:
    from pi_cli.config.settings import Settings
    from pi_cli.models.registry import ModelRegistry
    from pi_cli.resources.loader import Resources
    from pi_cli.resources.themes import ThemeCatalog
    from pi_cli.session.subagents.runtime import SubagentRuntime
    from pi_cli.store.manager import SessionManager

DEFAULT_TOOLS = ("read", "bash", "edit", "write")


def load_registry() -> ModelRegistry:
    from pi_cli.models.registry import ModelRegistry

    registry = ModelRegistry()
    registry.load()
    return registry


def open_session_manager(options: SessionOptions, settings: Settings) -> SessionManager:
    """The SessionManager the session flags ask for (in memory with ``--no-session``)."""
    from pi_cli.store import catalog
    from pi_cli.store.jsonl import SessionFileError
    from pi_cli.store.manager import SessionManager

    try:
        return catalog.open_session_for_cli(
            options.cwd,
            continue_=options.continue_ or (options.resume and not options.interactive),
            session=options.session,
            fork=options.fork,
            session_dir=options.session_dir,
            no_session=options.no_session,
            resumed=options.resume,
            setting_session_dir=settings.session_dir,
        )
    except (catalog.SessionNotFoundError, catalog.SessionArgsError, catalog.SessionAbortedError) as exc:
        raise SessionError(f"Error: {exc}") from None
    except SessionFileError as exc:
        raise SessionError(f"Error: {exc}") from None
    except OSError as exc:
        raise SessionError(f"Error: cannot open session: {exc.strerror or exc}") from None
    return SessionManager.in_memory(options.cwd)  # pragma: no cover - unreachable


def select_tools(options: SessionOptions, cwd: Path, sandbox: Any = None, approver: Any = None) -> list[Any]:
    """The active tool objects in pi's order (``--tools`` allowlist, ``--no-tools``), built with the
    session's sandbox and the approver of runs outside it."""
    if options.no_tools or options.no_builtin_tools:
        return []
    from pi_cli.tools import create_all_tools

    available: dict[str, Any] = create_all_tools(str(cwd), sandbox=sandbox, approver=approver)
    names = options.tools if options.tools is not None else list(DEFAULT_TOOLS)
    return [available[name] for name in names if name in available]


# ctx.mode by front end: pi's four names (inline is a terminal UI; ACP serves what pi-acp drives
# through pi's rpc mode).

# Print mode shows nothing before the answer ends, so a trickling stream may gather this long
# between reads: one wake-up per ~20 events at 1,000 events/s instead of one per event.
PRINT_GATHER_MS = 20.0


def _stream_options(settings: Settings, mode: str) -> Any:
    from pi_cli.ai.options import StreamOptions

    opts = StreamOptions(gather_ms=PRINT_GATHER_MS if mode == "print" else 0.0)
    provider = settings.retry.provider
    if provider.max_retries is not None:
        opts.max_retries = int(provider.max_retries)
    opts.max_retry_delay_ms = int(provider.max_retry_delay_ms)
    if provider.timeout_ms:
        opts.timeout_s = int(provider.timeout_ms) / 1000.0
    return opts


def _probe_local() -> list[Model]:
    from pi_cli.models.local_probe import probe_local_servers

    return probe_local_servers()


def _package_resources(
    cwd: Path, trusted: bool, notices: list[str]
) -> tuple[dict[str, list[str]], dict[str, tuple[str, str]]]:
    """Skill, prompt, theme and agent paths of installed pi packages (pi_cli.packages) by scope, and each
    package's root → (source, scope); a package that cannot load is one warning. Two small JSON
    reads when none is declared."""
    from pi_cli.config.paths import agent_dir
    from pi_cli.packages.probe import declared_packages

    packages = declared_packages(agent_dir(), cwd, trusted)
    if packages is None:
        return {}, {}
    notices.extend(f"Warning: {line}" for line in packages.warnings)
    paths = {
        f"{scope}_{kind}": packages.resource_paths(kind, scope)
        for scope in ("user", "project")
        for kind in ("skills", "prompts", "themes", "agents")
    }
    return paths, {str(p.root): (p.declaration.source, p.scope) for p in packages.packages}


def create_agent_session(options: SessionOptions) -> AgentSession:
    """Build the session the options describe. Raises ``PiError`` subclasses for user errors."""
    from pi_cli.config.settings import load_settings, save_global_setting
    from pi_cli.permissions.trust import is_project_trusted
    from pi_cli.resources.loader import load_resources
    from pi_cli.session.model_control import clamp_level

    cwd = options.cwd.resolve()
    # Decided at start-up (cli.decide_project_trust: prompt, flags, trust.json, defaultProjectTrust);
    # an untrusted folder's .pi settings (but sessionDir) and protected resources do not load.
    project_trusted = is_project_trusted(cwd)
    settings, setting_errors = load_settings(cwd, project_trusted=project_trusted)
    notices = [f"Warning: {line}" for line in setting_errors]
    try:
        registry = load_registry()
    except (OSError, ValueError) as exc:
        raise ConfigError(f"Error: could not load models: {exc}") from None
    notices.extend(f"Warning: {line}" for line in registry.errors)
    loaded = load_extensions(
        cwd, options.extensions, options.extension_flags, settings,
        discover=not options.no_extensions, pre=options.preloaded_extensions,
    )  # fmt: skip
    notices.extend(f"Warning: {line}" for line in provider_problems(loaded, registry))
    if loaded is not None:  # ``ctx.mode``; the TUI or inline front end names itself when it binds
        loaded[0].mode = "tui" if options.mode == "interactive" else options.mode

    manager = open_session_manager(options, settings)
    notices.extend(f"Warning: {line}" for line in manager.warnings)
    # A huge session's messages stay in its file until the first request needs them (LazyMessages).
    context, lazy = manager.build_lazy_context()
    restored: Sequence[dict[str, Any]] = lazy if lazy is not None else list(context.messages)

    def has_key(model: Model) -> bool:
        return model["provider"] == "faux" or bool(registry.is_available(model))

    choice = choose_model(
        options, settings, registry, has_key, session_model=context.model if restored else None, probe=_probe_local
    )
    notices.extend(choice.notices)
    if choice.source == "demo" and options.mode in ("print", "json"):
        from pi_cli.models.startup import configuration_problem

        problem = configuration_problem(registry, settings)
        if problem is not None:  # a script must not take the demo's answer for success
            raise ConfigError(f"Error: no usable model: {problem}", hint="(pi --list-models shows what is available)")
    model = choice.model
    if options.api_key:
        registry.set_runtime_api_key(model["provider"], options.api_key)
    level = (
        options.thinking
        or choice.thinking
        or (context.thinking_level if restored else None)
        or (settings.model_thinking_levels or {}).get(f"{model['provider']}/{model['id']}")  # pi 1.6's per-model level
        or settings.default_thinking_level
        or "medium"
    )
    thinking = clamp_level(model, level)

    parts = SessionParts(extensions=loaded[0] if loaded is not None else None)
    parts.sandbox = _sandbox(options, cwd, project_trusted, parts.notices)
    parts.mcp = _mcp_runtime(options, cwd, project_trusted, parts.sandbox, parts.notices)
    parts.notices.extend(f"Warning: {line}" for line in (loaded[1] if loaded is not None else []))
    parts.permissions = _gate(options, cwd, settings, project_trusted, parts.sandbox, parts.notices)
    tools = select_tools(options, cwd, parts.sandbox, parts.permissions)
    package_paths, package_origins = _package_resources(cwd, project_trusted, notices)
    snippets: dict[str, str] = {}
    if wants_subagents(options, settings):  # nothing of subagents is imported otherwise
        from pi_cli.session.subagents.tool import SNIPPET, SubagentTool

        parts.subagents = _subagents(cwd, settings, project_trusted, package_paths, notices)
        tools = _with_subagent_tool(options, tools, SubagentTool(parts.subagents))
        snippets["subagent"] = SNIPPET
    parts.themes = _themes(options, cwd, settings, project_trusted, package_paths)
    parts.notices.extend(f"Warning: {line}" for line in parts.themes.warnings)
    packaged = package_paths, package_origins
    resources = _resources(options, cwd, settings, project_trusted, notices, load_resources, *packaged)
    if not project_trusted and options.interactive:
        from pi_cli.permissions.trust import untrusted_notice

        notices.extend(untrusted_notice(cwd))

    session = build_session(
        cwd=cwd,
        parts=parts,
        settings=settings,
        registry=registry,
        store=SessionStoreBridge(manager, cwd),
        resources=resources,
        scoped_models=choice.scoped,
        save_setting=save_global_setting,
        notices=notices,
        system_prompt=resources.build_system_prompt([t.name for t in tools], tool_snippets=snippets),
        model=model,
        thinking_level=thinking,
        tools=tools,
        messages=restored,
        steering_mode=settings.steering_mode,
        follow_up_mode=settings.follow_up_mode,
        session_id=manager.session_id,
        stream_options=_stream_options(settings, options.mode),
        **({"stream_fn": options.stream_fn} if options.stream_fn is not None else {}),
    )

    # ``/reload`` reads the resources again the way start-up did (problems come back as its lines)
    def reload_resources() -> Resources:  # a fresh notices list each time: reload reports its own
        return _resources(options, cwd, settings, project_trusted, [], load_resources, *packaged)

    session.resource_reloader = reload_resources
    session.models.extra_keys.update(choice.extra_keys)
    session.models.extra_models.extend(choice.extra_models)
    session.model_source = choice.source
    # ``-r`` in interactive mode: the UI shows its session picker first (non-interactive: like -c).
    session.resume_requested = bool(options.resume and options.interactive)
    if not restored:
        session.store.append_model_change(model["provider"], model["id"])
        session.store.append_thinking_level_change(thinking)
    if parts.mcp is not None:
        parts.mcp.start()  # connecting begins now, in every mode, on the MCP thread
    return session


def _themes(
    options: SessionOptions, cwd: Path, settings: Settings, trusted: bool, package_paths: dict[str, list[str]]
) -> ThemeCatalog:
    """The themes found for ``cwd`` (see :mod:`pi_cli.resources.themes`) and the one chosen:
    ``--use-theme``, else settings ``theme``."""
    from pi_cli.config.paths import agent_dir
    from pi_cli.resources.themes import discover_themes

    return discover_themes(
        cwd, agent_dir(), selected=options.use_theme or settings.theme or "dark", project_trusted=trusted,
        settings_paths=settings.themes, package_paths=package_paths, cli_paths=options.themes,
        no_themes=options.no_themes,
    )  # fmt: skip


def session_themes(options: SessionOptions) -> ThemeCatalog:
    """The themes a session in ``options.cwd`` would have, without building one: for what draws
    outside a session in the same colours (``pi --export``). Settings and package themes load as
    :func:`create_agent_session` loads them (an untrusted project's are left out)."""
    from pi_cli.config.settings import load_settings
    from pi_cli.permissions.trust import is_project_trusted

    cwd = options.cwd.resolve()
    trusted = is_project_trusted(cwd)
    settings, _ = load_settings(cwd, project_trusted=trusted)
    package_paths, _ = _package_resources(cwd, trusted, [])
    return _themes(options, cwd, settings, trusted, package_paths)


def wants_subagents(options: SessionOptions, settings: Settings) -> bool:
    """Whether the session gets the ``subagent`` tool: ``--tools`` names it, or (without
    ``--tools``) settings ``subagents.enabled``; never with ``--no-tools``/``--no-builtin-tools``."""
    if options.no_tools or options.no_builtin_tools:
        return False
    if options.tools is not None:
        return "subagent" in options.tools
    return bool(settings.subagents.enabled)


def _subagents(
    cwd: Path, settings: Settings, trusted: bool, package_paths: dict[str, list[str]], notices: list[str]
) -> SubagentRuntime[AgentSession]:
    """The agent definitions (bad files: one warning each) and the runtime that runs them."""
    from pi_cli.config.paths import agent_dir
    from pi_cli.resources.agents import load_agents
    from pi_cli.session.assembly.children import build_child_session
    from pi_cli.session.subagents.runtime import SubagentRuntime

    packaged = {key: package_paths.get(key, []) for key in ("user_agents", "project_agents")}
    catalog = load_agents(cwd, agent_dir(), project_trusted=trusted, package_paths=packaged)
    notices.extend(f"Warning: {line}" for line in catalog.warnings)
    return SubagentRuntime(catalog, build_child_session, settings.subagents.max_concurrency)


def _with_subagent_tool(options: SessionOptions, tools: list[Any], tool: Any) -> list[Any]:
    """``tool`` where ``--tools`` lists it, else after the others."""
    if options.tools is None or "subagent" not in options.tools:
        return [*tools, tool]
    order = {name: index for index, name in enumerate(options.tools)}
    return sorted([*tools, tool], key=lambda t: order.get(t.name, len(order)))


def _resources(
    options: SessionOptions,
    cwd: Path,
    settings: Settings,
    trusted: bool,
    notices: list[str],
    load: Any,
    package_paths: dict[str, list[str]],
    package_origins: dict[str, tuple[str, str]],
) -> Resources:
    resources: Resources = load(
        cwd,
        None,
        settings,
        options.no_context_files,
        no_skills=options.no_skills,
        no_prompt_templates=options.no_prompt_templates,
        skill_paths=options.skills,
        prompt_template_paths=options.prompt_templates,
        system_prompt=options.system_prompt,
        append_system_prompt=options.append_system_prompt,
        project_trusted=trusted,
        package_paths=package_paths,
        package_origins=package_origins,
    )
    notices.extend(f"Warning: {line}" for line in resources.diagnostics)
    return resources


def _sandbox(options: SessionOptions, cwd: Path, trusted: bool, notices: list[str]) -> Any:
    """The session's sandbox (``--sandbox`` beats user settings; a trusted project may narrow).
    Built even when off, so ``/sandbox`` can turn it on; where an active one cannot be had
    (no Landlock), :class:`~pi_cli.errors.SandboxUnavailableError` stops the start-up."""
    from pi_cli.config.paths import agent_dir
    from pi_cli.sandbox.controller import Sandbox
    from pi_cli.sandbox.settings import load_sandbox_policy

    policy, problems = load_sandbox_policy(cwd, flag=options.sandbox, project_trusted=trusted, agent_dir=agent_dir())
    notices.extend(f"Warning: {line}" for line in problems)
    return Sandbox(policy, str(cwd))


def _mcp_runtime(options: SessionOptions, cwd: Path, trusted: bool, sandbox: Any, notices: list[str]) -> Any:
    """The MCP servers of ``mcp.json`` (and, in a trusted project, ``.pi/mcp.json``) plus
    ``options.mcp_servers``; None, with nothing imported beyond a stat of those files, when there
    are none. ``--no-mcp`` and ``--no-tools`` skip them."""
    if options.no_mcp or options.no_tools:
        return None
    from pi_cli.config.paths import agent_dir
    from pi_cli.mcp.probe import has_mcp_config

    if not options.mcp_servers and not has_mcp_config(agent_dir(), cwd, trusted):
        return None
    from pi_cli.mcp.runtime import McpRuntime

    runtime = McpRuntime.load(cwd, agent_dir(), trusted, options.mcp_servers, options.tools, sandbox)
    notices.extend(runtime.notices)
    return runtime


def _gate(
    options: SessionOptions, cwd: Path, settings: Settings, trusted: bool, sandbox: Any, notices: list[str]
) -> Any:
    """The approval gate: ``--permissions`` beats settings; its problems become notices."""
    from pi_cli.permissions.gate import gate_for_session

    gate = gate_for_session(cwd, mode=options.permissions, settings_mode=settings.permissions.mode,
                            project_trusted=trusted, sandbox=sandbox)  # fmt: skip
    notices.extend(f"Warning: {line}" for line in gate.notices)
    gate.notices.clear()
    return gate
