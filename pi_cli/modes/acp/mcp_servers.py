"""The MCP servers an ACP client hands over in ``session/new`` / ``session/load``.

They join the session's MCP layer next to ``mcp.json``'s servers (same names: the client's win, it
knows the editor's setup), stdio and streamable HTTP alike; SSE-only servers are not supported by
pi_cli's MCP client and are reported instead. Values are the client's literals: no ``${VAR}`` or
``!command`` expansion is applied to them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CLIENT_SOURCE = Path("<acp client>")


def _pairs(items: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        name = getattr(item, "name", None)
        value = getattr(item, "value", None)
        if isinstance(name, str) and isinstance(value, str):
            out[name] = value
    return out


def client_servers(specs: list[Any] | None) -> tuple[list[Any], list[str]]:
    """``(ServerConfig list, problems)`` for the client's server specs (SDK models)."""
    if not specs:
        return [], []
    from pi_cli.mcp.config import ServerConfig

    servers: list[Any] = []
    problems: list[str] = []
    for spec in specs:
        name = str(getattr(spec, "name", "") or "")
        kind = getattr(spec, "type", None)
        if not name:
            problems.append("an MCP server from the client has no name; skipped")
        elif kind == "sse":
            problems.append(f"MCP server {name}: SSE transport is not supported; skipped")
        elif kind == "http":
            servers.append(ServerConfig(name=name, source=CLIENT_SOURCE, scope="user", url=str(spec.url),
                                        headers=_pairs(spec.headers), exposure="direct"))  # fmt: skip
        elif getattr(spec, "command", None):
            servers.append(ServerConfig(name=name, source=CLIENT_SOURCE, scope="user", command=str(spec.command),
                                        args=tuple(str(a) for a in spec.args or []), env=_pairs(spec.env),
                                        exposure="direct"))  # fmt: skip
        else:
            problems.append(f"MCP server {name}: neither a command nor a URL; skipped")
    return servers, problems
