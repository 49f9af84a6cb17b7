"""A subagent's child session, assembled as every session is — from its parent's loaded parts.

:func:`build_child_session` is the :class:`~pi_cli.session.subagents.runtime.ChildFactory` the
assembly gives a session's subagent runtime. It goes through :func:`build_session`, so the
child's agent has the same hook chains, in the same order, as any session; what differs is where
the parts come from. Nothing is read from disk again (the figure: ``tools/bench_subagents.py``):

* shared with the parent (loaded once, used by both): settings, the model registry (keys,
  extensions' providers), the approval gate (one mode and rule set; its dialogs name the child),
  the sandbox (the child's tools are built confined by it; the child never closes it), the MCP
  runtime's servers (a child never starts its own) and the stream function;
* the child's own: an extension runner with the parent's extensions registered again (handlers
  see the child as their session), its built-in tools for its cwd, the MCP tools its agent names
  (fixed for its one task: no ``tool_search``, no MCP turn hook), a ``subagent`` tool only when
  its agent names one and it is not already at :data:`~pi_cli.session.subagents.runtime.MAX_DEPTH`,
  and a session file beside the parent's whose header names it (``parentSession``), or none when
  the parent keeps none;
* a fresh context: the agent's prompt replaces the default one, followed by the parent's context
  files (the project's AGENTS.md, as loaded at start-up), the date and the child's cwd; no skills;
  no messages. Its model is the call's ``model``, else the agent's, else the parent's current one;
  its thinking level the model's ``:level``, else the agent's ``thinking``, else the parent's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_cli.errors import ModelError
from pi_cli.session.assembly.assemble import build_session
from pi_cli.session.assembly.parts import SessionParts
from pi_cli.session.store_bridge import SessionStoreBridge
from pi_cli.session.subagents.runtime import MAX_DEPTH, SubagentRuntime
from pi_cli.session.subagents.tool import SNIPPET, SubagentTool

if TYPE_CHECKING:
    from pi_cli.ai.types import Model
    from pi_cli.resources.agents import AgentDefinition
    from pi_cli.session.agent_session import AgentSession
    from pi_cli.session.subagents.calls import ChildRequest

DEFAULT_CHILD_TOOLS = ("read", "bash", "edit", "write")  # an agent without ``tools``: pi's default set


def child_model(parent: AgentSession, request: ChildRequest) -> tuple[Model, str]:
    """The child's model and thinking level (see the module docstring). Raises ModelError."""
    from pi_cli.models.registry import ModelNotFoundError
    from pi_cli.session.model_control import clamp_level

    agent = request.agent
    pattern = request.model or agent.model
    model, level = parent.model, None
    if pattern:
        registry = parent.model_registry
        try:
            if registry is None:
                raise ModelNotFoundError(f'Model "{pattern}" not found (no model registry)')
            model, level = registry.resolve(pattern)
        except ModelNotFoundError as exc:
            hint = agent.model_is_hint and not request.model
            if not hint:  # a Claude Code alias (sonnet, opus) may name nothing here: the parent's
                raise ModelError(f"subagent {request.label}: {exc}") from None
        else:
            if agent.model_is_hint and not request.model and not parent.models.has_credentials(model):
                model, level = parent.model, None
    if model is None:
        raise ModelError(f"subagent {request.label}: no model selected")
    return model, clamp_level(model, level or agent.thinking or parent.thinking_level)


def _tools(
    parent: AgentSession, request: ChildRequest, names: list[str], runtime: SubagentRuntime[AgentSession] | None
) -> list[Any]:
    """The built-in tools and the ``subagent`` tool ``names`` asks for, in its order (the
    extension runner adds the extension tools, the caller the MCP ones)."""
    from pi_cli.tools import create_all_tools

    built = create_all_tools(str(request.cwd), sandbox=parent.sandbox, approver=parent.permissions)
    tools: list[Any] = []
    for name in names:
        if name in built:
            tools.append(built[name])
        elif name == "subagent" and runtime is not None:
            tools.append(SubagentTool(runtime))
    return tools


def _store(parent: AgentSession, request: ChildRequest) -> SessionStoreBridge:
    """A new session beside the parent's file, its header naming the parent; in memory when the
    parent keeps no file."""
    from pi_cli.store.manager import SessionManager

    manager = parent.store.manager
    cwd = request.cwd
    if manager is None or not manager.persist or manager.session_dir is None:
        return SessionStoreBridge(SessionManager.in_memory(cwd), cwd)
    child = SessionManager.create(cwd, manager.session_dir, fsync=manager.fsync, parent_session=parent.session_file)
    return SessionStoreBridge(child, cwd)


def _prompt(parent: AgentSession, agent: AgentDefinition, cwd: str, tool_names: list[str]) -> str:
    from pi_cli.resources.system_prompt import build_system_prompt

    context = parent.resources.context_files if parent.resources is not None else []
    snippets = {"subagent": SNIPPET}
    return build_system_prompt(cwd, tool_names, agent.system_prompt, context_files=context, tool_snippets=snippets)


async def build_child_session(parent: AgentSession, request: ChildRequest, depth: int) -> AgentSession:
    """The child session ``request`` describes, at ``depth`` (1: a child of a top-level
    session). Raises :class:`~pi_cli.errors.PiError` (one line) when it cannot be built."""
    agent = request.agent
    model, thinking = child_model(parent, request)
    names = list(agent.tools) if agent.tools is not None else list(DEFAULT_CHILD_TOOLS)
    runtime = None
    if "subagent" in names and depth < MAX_DEPTH and parent.subagents is not None:
        settings = parent.settings.subagents
        runtime = SubagentRuntime(parent.subagents.catalog, build_child_session, settings.max_concurrency, depth)
    tools = _tools(parent, request, names, runtime)
    if parent.mcp is not None and any(name.startswith("mcp__") for name in names):
        tools.extend(await parent.mcp.tools_named(names))
    extensions = None
    if parent.extensions is not None:
        from pi_cli.extensions.loader import child_runner

        allowed = set(names) if agent.tools is not None else None
        extensions = child_runner(parent.extensions, str(request.cwd), allowed)
    store = _store(parent, request)
    parts = SessionParts(
        extensions=extensions, permissions=parent.permissions, sandbox=parent.sandbox, subagents=runtime, parent=parent
    )
    cwd = str(request.cwd)
    session = build_session(
        cwd=request.cwd,
        parts=parts,
        settings=parent.settings,
        registry=parent.model_registry,
        store=store,
        system_prompt=_prompt(parent, agent, cwd, [tool.name for tool in tools]),
        model=model,
        thinking_level=thinking,
        tools=tools,
        steering_mode=parent.steering_mode,
        follow_up_mode=parent.follow_up_mode,
        session_id=store.session_id,
        stream_fn=parent.agent.stream_fn,
        stream_options=parent.agent.stream_options,
    )
    session.models.extra_keys.update(parent.models.extra_keys)  # e.g. --api-key, a local server's
    store.append_model_change(model["provider"], model["id"])
    store.append_thinking_level_change(thinking)
    title = " ".join(request.task.split())
    store.set_name(f"{request.label}: {title[:60]}{'…' if len(title) > 60 else ''}")
    return session
