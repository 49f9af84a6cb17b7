"""``/mcp`` as text: the server list and the actions (reconnect, enable, disable, exposure).

Shared by the TUI's ``/mcp`` screens and the inline mode. Servers that need attention (failed,
disconnected) come first, as in pi.
"""

from __future__ import annotations

from typing import Any

from pi_cli.mcp.manager import McpManager, ServerState

_ORDER = {"failed": 0, "disconnected": 1, "connecting": 2, "connected": 3, "disabled": 4}
EXPOSURES = ("direct", "deferred", "hidden")
USAGE = "Usage: /mcp [reconnect|enable|disable <server>] [exposure <server> direct|deferred|hidden]"


def ordered(manager: McpManager) -> list[ServerState]:
    return sorted(manager.servers.values(), key=lambda s: _ORDER.get(s.status, 9))


def summary(state: ServerState) -> str:
    """``state, N tools, exposure, scope`` of one server."""
    count = len(state.tools)
    tools = f", {count} tool{'' if count == 1 else 's'}" if state.status in ("connected", "disconnected") else ""
    return f"{state.status}{tools}, {state.config.exposure}, {state.config.scope}"


async def status_text_of(manager: McpManager) -> str:
    """:func:`status_text` read where the servers live."""
    return str(await manager.dispatch(_as_coroutine(status_text, manager)))


async def _as_coroutine(fn: Any, *args: Any) -> Any:
    return fn(*args)


def status_text(manager: McpManager) -> str:
    """Every server with its state, tools and error; config errors last."""
    if not manager.servers and not manager.errors:
        return "No MCP servers configured."
    lines: list[str] = []
    for state in ordered(manager):
        lines.append(f"{state.config.name}: {summary(state)}")
        if state.tools:
            shown = [
                t.tool + ("" if state.exposure_of(t) == state.config.exposure else f" [{state.exposure_of(t)}]")
                for t in state.tools.values()
            ]
            lines.append(f"  tools: {', '.join(shown)}")
        if state.error and state.status != "connected":
            lines.append(f"  {state.error}")
            lines.extend(f"  stderr: {line}" for line in manager.log.stderr_tail(state.config.name)[-3:])
    lines.extend(f"config error: {line}" for line in manager.errors)
    return "\n".join(lines)


async def run_action(manager: McpManager, args: str) -> str:
    """``/mcp <action> <server> [value]``; returns the line to show. Raises ValueError on bad input.

    Runs where the servers live (the runtime's loop when there is one).
    """
    return str(await manager.dispatch(_run_action(manager, args)))


async def _run_action(manager: McpManager, args: str) -> str:
    words = args.split()
    if not words:
        return status_text(manager)
    action, rest = words[0], words[1:]
    if action not in ("reconnect", "enable", "disable", "exposure") or not rest:
        raise ValueError(USAGE)
    name = rest[0]
    state = manager.servers.get(name)
    if state is None:
        raise ValueError(f'no MCP server named "{name}"')
    if action == "reconnect":
        if not state.config.enabled:
            raise ValueError(f'MCP server "{name}" is disabled; enable it first')
        await manager.reconnect(name)
        return f"{name}: {summary(state)}" + (f"\n  {state.error}" if state.error else "")
    if action in ("enable", "disable"):
        await manager.set_enabled(name, action == "enable")
        return f"{name}: {summary(state)} (saved to {state.config.source})"
    if len(rest) < 2 or rest[1] not in EXPOSURES:
        raise ValueError(USAGE)
    manager.set_exposure(name, rest[1])  # type: ignore[arg-type]
    return f"{name}: exposure {rest[1]} (saved to {state.config.source})"
