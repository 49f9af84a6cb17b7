"""``pi mcp add|remove|list``: editing ``mcp.json`` and checking servers from the shell.

    pi mcp add NAME [-l] [--env K=V]... [--cwd DIR] [--exposure E] [--description T] -- CMD [ARGS...]
    pi mcp add NAME [-l] --url URL [--header K=V]... [--bearer-token-env-var NAME] [--exposure E]
    pi mcp remove NAME [-l]
    pi mcp list [--json]

``add``/``remove`` change the user file (``-l``: the project's ``.pi/mcp.json``) and do not
connect. ``list`` connects to every enabled server, prints its state, tools and errors, and exits 1
when an entry is invalid or an enabled server did not connect. Messages follow pi's wording.
Exit codes: 0 done, 1 failed, 2 bad usage.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_cli.mcp import config_edit
from pi_cli.mcp.config import load_mcp_config, validate_entry
from pi_cli.mcp.probe import project_config_path, user_config_path

USAGE = (
    "Usage: pi mcp add <server> [options] (--url <url> | -- <command> [args...])\n"
    "       pi mcp remove <server> [-l]\n"
    "       pi mcp list [--json]"
)
_VALUE_OPTIONS = {"--url", "--cwd", "--bearer-token-env-var", "--exposure", "--description"}
_LIST_OPTIONS = {"--env", "--header"}


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


class _Usage(Exception):
    pass


def _parse(args: list[str], allowed: set[str]) -> tuple[list[str], dict[str, Any], list[str]]:
    """Positional words, options (lists for repeatable ones) and the words after ``--``."""
    positional: list[str] = []
    options: dict[str, Any] = {}
    command: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            command = args[i + 1 :]
            break
        name, _, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in ("-l", "--local") and "--local" in allowed:
            options["--local"] = True
        elif name == "--json" and "--json" in allowed:
            options["--json"] = True
        elif name in allowed and (name in _VALUE_OPTIONS or name in _LIST_OPTIONS):
            if inline == "" and "=" not in arg:
                i += 1
                if i >= len(args):
                    raise _Usage(f"{name} needs a value")
                inline = args[i]
            if name in _LIST_OPTIONS:
                options.setdefault(name, []).append(inline)
            else:
                options[name] = inline
        elif arg.startswith("-"):
            raise _Usage(f"unknown option {arg}")
        else:
            positional.append(arg)
        i += 1
    return positional, options, command


def _pairs(option: str, values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in values:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise _Usage(f"{option} expects KEY=VALUE, got {key or pair!r}")
        out[key] = value
    return out


def run_mcp_command(args: list[str], cwd: Path, agent_dir: Path, trusted: Callable[[Path], bool]) -> int:
    """Run ``pi mcp <args>``; ``trusted(cwd)`` gives the project-trust decision (asked when needed)."""
    sub, rest = (args[0], args[1:]) if args else ("", [])
    try:
        if sub == "add":
            return _add(rest, cwd, agent_dir, trusted)
        if sub == "remove":
            return _remove(rest, cwd, agent_dir)
        if sub == "list":
            return _list(rest, cwd, agent_dir, trusted)
        if sub in ("login", "logout"):
            _err(f"pi mcp {sub}: OAuth sign-in for MCP servers is not supported yet; set an Authorization header")
            return 1
        if sub in ("-h", "--help", "help"):
            sys.stdout.write(USAGE + "\n")  # asked for: the usage is the answer, not an error
            return 0
        raise _Usage("" if sub == "" else f"unknown command {sub!r}")
    except _Usage as exc:
        _err(f"{exc}\n{USAGE}" if str(exc) else USAGE)
        return 2
    except config_edit.McpConfigEditError as exc:
        _err(str(exc))
        return 1


def _add(args: list[str], cwd: Path, agent_dir: Path, trusted: Callable[[Path], bool]) -> int:
    allowed = {"--local", *_VALUE_OPTIONS, *_LIST_OPTIONS}
    positional, options, command = _parse(args, allowed)
    url = options.get("--url")
    if len(positional) != 1 or (url is None) == (not command):
        raise _Usage("")
    name = positional[0]
    entry: dict[str, Any]
    if url is not None:
        misplaced: str | None = next((o for o in ("--env", "--cwd") if o in options), None)
        if misplaced:
            raise _Usage(f"{misplaced} only applies to stdio servers.")
        headers = _pairs("--header", options.get("--header", []))
        bearer = options.get("--bearer-token-env-var")
        if bearer:
            headers["Authorization"] = f"Bearer ${{{bearer}}}"
        entry = {"url": url, **({"headers": headers} if headers else {})}
    else:
        misplaced = next((o for o in ("--header", "--bearer-token-env-var") if o in options), None)
        if misplaced:
            raise _Usage(f"{misplaced} only applies to HTTP servers (--url).")
        env = _pairs("--env", options.get("--env", []))
        entry = {"command": command[0], **({"args": command[1:]} if command[1:] else {})}
        entry.update({"env": env} if env else {})
        entry.update({"cwd": options["--cwd"]} if "--cwd" in options else {})
    for option, key in (("--exposure", "exposure"), ("--description", "description")):
        if option in options:
            entry[key] = options[option]
    problem = validate_entry(name, entry)
    if problem is not None:
        _err(problem)
        return 1
    local = bool(options.get("--local"))
    path = project_config_path(cwd) if local else user_config_path(agent_dir)
    scope = "project" if local else "user"
    replaced = config_edit.add_server(path, name, entry)
    _out(f'{"Replaced" if replaced else "Added"} {scope} MCP server "{name}" in {path}.')
    if local and not trusted(cwd):
        _out(f"The project is not trusted, so {path} is ignored until you start pi in the project and trust it.")
    _out("Check it with: pi mcp list")
    return 0


def _remove(args: list[str], cwd: Path, agent_dir: Path) -> int:
    positional, options, command = _parse(args, {"--local"})
    if len(positional) != 1 or command:
        raise _Usage("")
    name = positional[0]
    local = bool(options.get("--local"))
    path = project_config_path(cwd) if local else user_config_path(agent_dir)
    scope = "project" if local else "user"
    if config_edit.remove_server(path, name):
        _out(f'Removed {scope} MCP server "{name}" from {path}.')
        return 0
    _err(f'No {scope} MCP server named "{name}" in {path}.')
    return 1


def _list(args: list[str], cwd: Path, agent_dir: Path, trust: Callable[[Path], bool]) -> int:
    positional, options, command = _parse(args, {"--json"})
    if positional or command:
        raise _Usage("")
    trusted = trust(cwd)
    config = load_mcp_config(agent_dir, cwd, trusted)
    note = None
    if not trusted and project_config_path(cwd).is_file():
        note = (
            f"{project_config_path(cwd)} is ignored because the project is not trusted. "
            "Start pi in the project to trust it."
        )
    reports = asyncio.run(_connect_all(config, cwd, agent_dir))
    failed = bool(config.errors) or any(r["enabled"] and r["state"] != "connected" for r in reports)
    if options.get("--json"):
        _out(json.dumps({"servers": reports, "errors": config.errors, **({"note": note} if note else {})}, indent=2))
        return 1 if failed else 0
    if not reports and not config.errors:
        _out(f"No MCP servers configured. Add them to {user_config_path(agent_dir)} or .pi/mcp.json.")
    for report in reports:
        count = len(report["tools"])
        state = (
            f"connected, {count} tool{'' if count == 1 else 's'}" if report["state"] == "connected" else report["state"]
        )
        # pi labels the user file's servers "global" (the JSON keeps pi_cli's scope names).
        label = {"user": "global"}.get(report["scope"], report["scope"])
        _out(f"{report['name']}: {state} ({report['exposure']}, {label})")
        _out(f"  {report['transport']}")
        if report["tools"]:
            _out(f"  tools: {', '.join(report['tools'])}")
        if report.get("resources"):
            _out("  offers resources")
        if report.get("error"):
            _out("  " + report["error"].replace("\n", "\n  "))
    for line in config.errors:
        _out(f"config error: {line}")
    if note:
        _out(note)
    return 1 if failed else 0


async def _connect_all(config: Any, cwd: Path, agent_dir: Path) -> list[dict[str, Any]]:
    from pi_cli.mcp.log import McpLog
    from pi_cli.mcp.manager import McpManager

    log = McpLog(agent_dir / "mcp.log")
    manager = McpManager(config, cwd, log)
    manager.start()
    try:
        await manager.wait_ready()
        reports = []
        for name, state in manager.servers.items():
            cfg = state.config
            transport = cfg.url if cfg.url is not None else " ".join([cfg.command or "", *cfg.args])
            tools = [f"{t.tool}" + _mark(cfg.exposure_of(t.tool), cfg.exposure) for t in state.tools.values()]
            report: dict[str, Any] = {
                "name": name,
                "scope": cfg.scope,
                "source": str(cfg.source),
                "enabled": cfg.enabled,
                "exposure": cfg.raw.get("exposure", cfg.exposure),
                "transport": transport,
                "state": state.status,
                "tools": tools,
            }
            if state.client is not None and state.client.has_resources:
                report["resources"] = True  # pi's field, present only when true
            if state.error and state.status != "connected":
                tail = log.stderr_tail(name)
                report["error"] = state.error + (
                    "\n" + "\n".join(tail[-5:]) if tail and state.status == "failed" else ""
                )
            reports.append(report)
        return reports
    finally:
        await manager.close()


def _mark(exposure: str, default: str) -> str:
    return "" if exposure == default else f" [{exposure}]"
