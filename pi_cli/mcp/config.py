"""``mcp.json`` in pi 1.6's format: reading, merging user and project files, and editing them.

``{"mcpServers": {name: {...}}}`` — the object Claude Desktop, Claude Code and Cursor use. The user
file is ``<agent dir>/mcp.json``; ``<cwd>/.pi/mcp.json`` is read only for a trusted project (the
caller decides, with :func:`pi_cli.permissions.trust.is_project_trusted`). A
project entry without ``command``/``url``/``type`` only overrides ``enabled``, ``exposure`` and
``toolExposure`` of the user entry of that name. ``"sandbox": false`` lets a stdio server run
outside pi_cli's sandbox; only the user file may say so (a project cannot take its servers out).
Every invalid entry becomes one line naming the file, the server and the field, and is skipped;
the others are kept. Values are never quoted in
errors (they may hold secrets). Stdlib only: this module is imported to decide whether MCP is on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pi_cli.mcp.probe import project_config_path, user_config_path

Exposure = Literal["direct", "deferred", "hidden"]
# pi's ``codemode`` runs a JavaScript sandbox we do not have; its tools are reachable through
# ``tool_search`` there too, so here it behaves as ``deferred`` (the written value is kept).
_EXPOSURES: dict[str, Exposure] = {
    "direct": "direct",
    "deferred": "deferred",
    "hidden": "hidden",
    "codemode": "deferred",
    "codemode-deferred": "deferred",
}
DEFAULT_EXPOSURE: Exposure = "deferred"
DEFAULT_TIMEOUT_S = 60.0
_OVERRIDE_KEYS = ("enabled", "exposure", "toolExposure")
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")
_KNOWN_KEYS = frozenset(
    {"type", "command", "args", "env", "cwd", "url", "headers", "timeout", "enabled", "description"}
    | {"exposure", "toolExposure", "oauth", "auth", "sandbox"}
)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One checked server entry; ``env``/``headers`` still hold unresolved ``${VAR}``/``!cmd`` values."""

    name: str
    source: Path  # the file that defines it (the project file for an override)
    scope: Literal["user", "project"]
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT_S
    enabled: bool = True
    description: str | None = None
    exposure: Exposure = DEFAULT_EXPOSURE
    tool_exposure: dict[str, Exposure] = field(default_factory=dict)
    sandbox: bool = True  # a stdio server runs inside the session's sandbox (when it is on)
    raw: dict[str, Any] = field(default_factory=dict)  # the entry as written (for overrides)

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command is not None else "http"

    def exposure_of(self, tool: str) -> Exposure:
        """``toolExposure`` for ``tool``: an exact name wins, then the first matching ``*`` pattern."""
        if tool in self.tool_exposure:
            return self.tool_exposure[tool]
        for pattern, value in self.tool_exposure.items():
            if "*" in pattern and re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), tool):
                return value
        return self.exposure


@dataclass(slots=True)
class McpConfig:
    """Servers in definition order (disabled ones included) and one line per problem."""

    servers: dict[str, ServerConfig] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def mcp_namespace(name: str) -> str:
    """The tool-name form of a server or tool name: anything but ``[A-Za-z0-9_]`` becomes ``_``."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def load_mcp_config(agent_dir: Path, cwd: Path, trusted: bool) -> McpConfig:
    """Read the user file and, when ``trusted``, the project file (project entries win)."""
    out = McpConfig()
    _read_file(user_config_path(agent_dir), "user", out)
    if trusted:
        _read_file(project_config_path(cwd), "project", out)
    return out


class _EntryError(ValueError):
    """``str()`` is ``field: problem``."""


def _read_file(path: Path, scope: Literal["user", "project"], out: McpConfig) -> None:
    if not path.is_file():
        return
    try:
        parsed = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        out.errors.append(f"{path}: cannot read: {exc.__class__.__name__}")
        return
    except json.JSONDecodeError as exc:
        out.errors.append(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
        return
    if not isinstance(parsed, dict) or not isinstance(parsed.get("mcpServers", {}), dict):
        out.errors.append(f'{path}: expected an object with an "mcpServers" object')
        return
    for name, entry in parsed.get("mcpServers", {}).items():
        try:
            server = _entry(name, entry, path, scope, out.servers)
        except _EntryError as exc:
            out.errors.append(f'{path}: server "{name}": {exc}')
            continue
        clash = next((o for o in out.servers if o != name and mcp_namespace(o) == mcp_namespace(name)), None)
        if clash is not None:
            out.errors.append(f'{path}: server "{name}": name conflicts with "{clash}"')
            continue
        out.servers[name] = server


def validate_entry(name: str, entry: dict[str, Any]) -> str | None:
    """The problem with a full (non-override) entry as one line, or None (``pi mcp add``)."""
    try:
        _entry(name, entry, Path("mcp.json"), "user", {})
    except _EntryError as exc:
        return f'server "{name}": {exc}'
    return None


def is_override(entry: dict[str, Any]) -> bool:
    return not any(key in entry for key in ("command", "url", "type"))


def _entry(
    name: str, entry: Any, path: Path, scope: Literal["user", "project"], known: dict[str, ServerConfig]
) -> ServerConfig:
    if not _NAME_RE.match(name):
        raise _EntryError("name: only letters, digits, '_' and '-' are allowed")
    if not isinstance(entry, dict):
        raise _EntryError("expected an object")
    if scope == "project" and is_override(entry):
        base = known.get(name)
        if base is None:
            raise _EntryError('command: needs "command" or "url", or a user-level server to override')
        extra = sorted(key for key in entry if key not in _OVERRIDE_KEYS)
        if extra:
            raise _EntryError(f"{extra[0]}: an override can only set {', '.join(_OVERRIDE_KEYS)}")
        merged = {**base.raw, **entry}
        return replace(_parse(name, merged, path, scope), raw=base.raw)
    return _parse(name, entry, path, scope)


def _parse(name: str, entry: dict[str, Any], path: Path, scope: Literal["user", "project"]) -> ServerConfig:
    unknown = sorted(key for key in entry if key not in _KNOWN_KEYS)
    if unknown:
        raise _EntryError(f"{unknown[0]}: unknown field")
    kind = entry.get("type")
    if kind is not None and kind not in ("stdio", "http", "streamable-http"):
        if kind == "sse":
            raise _EntryError('type: "sse" is not supported; use the streamable HTTP endpoint (often /mcp)')
        raise _EntryError('type: must be "stdio", "http" or "streamable-http"')
    command = _opt(entry, "command", str)
    url = _opt(entry, "url", str)
    if command is not None and url is not None:
        raise _EntryError('url: set either "command" or "url", not both')
    if command is None and url is None:
        raise _EntryError('command: needs "command" (stdio) or "url" (streamable HTTP)')
    if kind == "stdio" and command is None:
        raise _EntryError('command: type "stdio" needs "command"')
    if kind in ("http", "streamable-http") and url is None:
        raise _EntryError(f'url: type "{kind}" needs "url"')
    if command is not None and not command.strip():
        raise _EntryError("command: must not be empty")
    if url is not None and not re.match(r"^https?://", url):
        raise _EntryError("url: must start with http:// or https://")
    args = _opt(entry, "args", list) or []
    if not all(isinstance(a, str) for a in args):
        raise _EntryError("args: must be a list of strings")
    timeout = entry.get("timeout", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise _EntryError("timeout: must be a positive number of seconds")
    enabled = _opt(entry, "enabled", bool)
    sandboxed = _opt(entry, "sandbox", bool)
    if sandboxed is False and scope == "project":
        raise _EntryError("sandbox: only the user's mcp.json may run a server outside the sandbox")
    exposure = _exposure(entry.get("exposure"), "exposure")
    tool_exposure = {
        str(k): _exposure(v, f"toolExposure.{k}") or DEFAULT_EXPOSURE
        for k, v in (_opt(entry, "toolExposure", dict) or {}).items()
    }
    return ServerConfig(
        name=name,
        source=path,
        scope=scope,
        command=command,
        args=tuple(args),
        env=_str_map(entry, "env"),
        cwd=_opt(entry, "cwd", str),
        url=url,
        headers=_str_map(entry, "headers"),
        timeout=float(timeout),
        enabled=True if enabled is None else enabled,
        description=_opt(entry, "description", str),
        exposure=exposure or DEFAULT_EXPOSURE,
        tool_exposure=tool_exposure,
        sandbox=sandboxed is not False,
        raw=dict(entry),
    )


def _opt(entry: dict[str, Any], key: str, kind: type) -> Any:
    value = entry.get(key)
    if value is not None and not isinstance(value, kind):
        raise _EntryError(f"{key}: must be {_KIND_NAMES[kind]}")
    return value


_KIND_NAMES: dict[type, str] = {str: "a string", list: "a list", dict: "an object", bool: "true or false"}


def _str_map(entry: dict[str, Any], key: str) -> dict[str, str]:
    value = _opt(entry, key, dict) or {}
    for k, v in value.items():
        if not isinstance(v, str):
            raise _EntryError(f"{key}.{k}: must be a string")
    return dict(value)


def _exposure(value: Any, where: str) -> Exposure | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in _EXPOSURES:
        raise _EntryError(f"{where}: must be one of direct, deferred, hidden, codemode")
    return _EXPOSURES[value]
