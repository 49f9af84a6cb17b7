"""``create_agent_session(options)``: settings, models, session file, tools, prompt and Agent.

Order of work: settings (bad files → warnings, defaults kept) → model registry → session manager
from the session flags → model and thinking level (see :mod:`model_select`) → tools → prompt
resources and system prompt → Agent (restored with the session's messages) → AgentSession.
Expected failures raise a :class:`~pi_cli.errors.PiError` with a one-line message; warnings end
up in ``session.startup_notices`` for the mode to show.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pi_cli.ai.types import Model
from pi_cli.errors import ConfigError, SessionError
from pi_cli.models.startup import choose_model
from pi_cli.session.agent_session import AgentSession
from pi_cli.session.options import SessionOptions
from pi_cli.session.store_bridge import SessionStoreBridge

DEFAULT_TOOLS = ("read", "bash", "edit", "write")


def load_registry() -> Any:
    from pi_cli.models.registry import ModelRegistry

    registry = ModelRegistry()
    registry.load()
    return registry


def open_session_manager(options: SessionOptions, settings: Any) -> Any:
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
            setting_session_dir=getattr(settings, "session_dir", None),
        )
    except (catalog.SessionNotFoundError, catalog.SessionArgsError, catalog.SessionAbortedError) as exc:
        raise SessionError(f"Error: {exc}") from None
    except SessionFileError as exc:
        raise SessionError(f"Error: {exc}") from None
    except OSError as exc:
        raise SessionError(f"Error: cannot open session: {exc.strerror or exc}") from None
    return SessionManager.in_memory(options.cwd)  # pragma: no cover - unreachable


def select_tools(options: SessionOptions, cwd: Path) -> list[Any]:
    """The active tool objects in pi's order (``--tools`` allowlist, ``--no-tools``)."""
    if options.no_tools or options.no_builtin_tools:
        return []
    from pi_cli.tools import create_all_tools

    available: dict[str, Any] = create_all_tools(str(cwd))
    names = options.tools if options.tools is not None else list(DEFAULT_TOOLS)
    return [available[name] for name in names if name in available]


def _stream_options(settings: Any) -> Any:
    from pi_cli.ai.options import StreamOptions

    opts = StreamOptions()
    provider = getattr(getattr(settings, "retry", None), "provider", None)
    if provider is not None:
        if getattr(provider, "max_retries", None) is not None:
            opts.max_retries = int(provider.max_retries)
        if getattr(provider, "max_retry_delay_ms", None) is not None:
            opts.max_retry_delay_ms = int(provider.max_retry_delay_ms)
        if getattr(provider, "timeout_ms", None):
            opts.timeout_s = int(provider.timeout_ms) / 1000.0
    return opts


def _probe_local() -> list[Model]:
    from pi_cli.models.local_probe import probe_local_servers

    return probe_local_servers()


def _package_resources(
    cwd: Path, trusted: bool, notices: list[str]
) -> tuple[dict[str, list[str]], dict[str, tuple[str, str]]]:
    """Skill and prompt paths of installed pi packages (pi_cli.packages) by scope, and each
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
        for kind in ("skills", "prompts")
    }
    return paths, {str(p.root): (p.declaration.source, p.scope) for p in packages.packages}


def create_agent_session(options: SessionOptions) -> AgentSession:
    """Build the session the options describe. Raises ``PiError`` subclasses for user errors."""
    from pi_cli.agent.agent import Agent
    from pi_cli.config.settings import load_settings, save_global_setting
    from pi_cli.permissions.trust import is_project_trusted
    from pi_cli.resources.loader import load_resources
    from pi_cli.session.model_control import clamp_level
    from pi_cli.store.entry_messages import convert_to_llm

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
    notices.extend(f"Warning: {line}" for line in getattr(registry, "errors", []))
    if options.prepare_registry is not None:
        notices.extend(f"Warning: {line}" for line in options.prepare_registry(settings, registry))

    manager = open_session_manager(options, settings)
    notices.extend(f"Warning: {line}" for line in getattr(manager, "warnings", []))
    # A huge session's messages stay in its file until the first request needs them (LazyMessages).
    context, lazy = manager.build_lazy_context() if manager is not None else (None, None)
    restored: Sequence[dict[str, Any]] = lazy if lazy is not None else list(getattr(context, "messages", []) or [])

    def has_key(model: Model) -> bool:
        return model["provider"] == "faux" or bool(registry.is_available(model))

    choice = choose_model(
        options,
        settings,
        registry,
        has_key,
        session_model=getattr(context, "model", None) if restored else None,
        probe=_probe_local,
    )
    notices.extend(choice.notices)
    model = choice.model
    if options.api_key:
        registry.set_runtime_api_key(model["provider"], options.api_key)

    level = (
        options.thinking
        or choice.thinking
        or (getattr(context, "thinking_level", None) if restored else None)
        or getattr(settings, "default_thinking_level", None)
        or "medium"
    )
    thinking = clamp_level(model, level)

    tools = select_tools(options, cwd)
    package_paths, package_origins = _package_resources(cwd, project_trusted, notices)
    resources = load_resources(
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
        project_trusted=project_trusted,
        package_paths=package_paths,
        package_origins=package_origins,
    )
    notices.extend(f"Warning: {line}" for line in resources.diagnostics)
    if not project_trusted and options.interactive:
        from pi_cli.permissions.trust import untrusted_notice

        notices.extend(untrusted_notice(cwd))
    system_prompt = resources.build_system_prompt([t.name for t in tools])

    holder: dict[str, AgentSession] = {}

    def get_api_key(provider: str) -> str | None:
        session = holder.get("session")
        return session.models.api_key_for_provider(provider) if session is not None else None

    agent_kwargs: dict[str, Any] = {
        "system_prompt": system_prompt,
        "model": model,
        "thinking_level": thinking,
        "tools": tools,
        "messages": restored,
        "convert_to_llm": convert_to_llm,
        "get_api_key": get_api_key,
        "steering_mode": settings.steering_mode,
        "follow_up_mode": settings.follow_up_mode,
        "session_id": getattr(manager, "session_id", None),
        "stream_options": _stream_options(settings),
    }
    if options.stream_fn is not None:
        agent_kwargs["stream_fn"] = options.stream_fn
    agent = Agent(**agent_kwargs)

    session = AgentSession(
        agent=agent,
        cwd=cwd,
        settings=settings,
        model_registry=registry,
        store=SessionStoreBridge(manager, cwd),
        scoped_models=choice.scoped,
        resources=resources,
        save_setting=save_global_setting,
    )
    holder["session"] = session
    session.models.extra_keys.update(choice.extra_keys)
    session.models.extra_models.extend(choice.extra_models)
    session.model_source = choice.source
    # ``-r`` in interactive mode: the UI shows its session picker first (non-interactive: like -c).
    session.resume_requested = bool(options.resume and options.interactive)
    if not restored:
        session.store.append_model_change(model["provider"], model["id"])
        session.store.append_thinking_level_change(thinking)
    session.startup_notices.extend(notices)
    return session
