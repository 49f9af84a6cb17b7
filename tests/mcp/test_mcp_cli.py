"""``pi mcp add/remove/list`` run as a user would, in a subprocess with a scratch agent dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import SERVER, write_config


def _pi(args: list[str], agent_dir: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pi_cli", "mcp", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_add_remove_and_list(agent_dir: Path, project: Path) -> None:
    done = _pi(["add", "tools", "--env", "A=1", "--", sys.executable, SERVER], agent_dir, project)
    assert done.returncode == 0, done.stderr
    path = agent_dir / "mcp.json"
    assert f'Added user MCP server "tools" in {path}.' in done.stdout
    assert json.loads(path.read_text())["mcpServers"]["tools"] == {
        "command": sys.executable,
        "args": [SERVER],
        "env": {"A": "1"},
    }
    web = _pi(
        ["add", "web", "--url", "http://127.0.0.1:9/mcp", "--header", "X-A=b", "--bearer-token-env-var", "WEB_TOKEN"],
        agent_dir,
        project,
    )
    assert web.returncode == 0, web.stderr
    assert json.loads(path.read_text())["mcpServers"]["web"] == {
        "url": "http://127.0.0.1:9/mcp",
        "headers": {"X-A": "b", "Authorization": "Bearer ${WEB_TOKEN}"},
    }

    listed = _pi(["list"], agent_dir, project)
    assert listed.returncode == 1  # "web" cannot connect
    assert "tools: connected, 7 tools (deferred, global)" in listed.stdout  # pi's label for the user file
    assert "  tools: echo, add, picture, fail, crash, hang, grow" in listed.stdout
    assert "web: failed (deferred, global)" in listed.stdout
    assert 'MCP server "web" headers "Authorization": environment variable WEB_TOKEN is not set' in listed.stdout

    removed = _pi(["remove", "web"], agent_dir, project)
    assert removed.returncode == 0 and f'Removed user MCP server "web" from {path}.' in removed.stdout
    again = _pi(["remove", "web"], agent_dir, project)
    assert again.returncode == 1 and "No user MCP server named" in again.stderr
    ok = _pi(["list", "--json"], agent_dir, project)
    assert ok.returncode == 0, ok.stdout
    report = json.loads(ok.stdout)
    assert report["errors"] == [] and report["servers"][0]["state"] == "connected"


def test_bad_usage_and_invalid_entries(agent_dir: Path, project: Path) -> None:
    assert _pi(["add", "x"], agent_dir, project).returncode == 2
    assert _pi(["add", "x", "--url", "http://h/mcp", "--env", "A=1"], agent_dir, project).returncode == 2
    bad = _pi(["add", "x", "--exposure", "loud", "--", "cmd"], agent_dir, project)
    assert (
        bad.returncode == 1
        and bad.stderr.strip() == 'server "x": exposure: must be one of direct, deferred, hidden, codemode'
    )
    write_config(agent_dir / "mcp.json", {"broken": {"args": []}})
    listed = _pi(["list"], agent_dir, project)
    assert listed.returncode == 1 and "config error:" in listed.stdout and 'server "broken": command:' in listed.stdout


def test_project_config_is_ignored_without_trust(agent_dir: Path, project: Path) -> None:
    added = _pi(["add", "-l", "proj", "--", sys.executable, SERVER], agent_dir, project)
    assert added.returncode == 0
    assert "The project is not trusted" in added.stdout
    assert (project / ".pi" / "mcp.json").is_file()
    listed = _pi(["list"], agent_dir, project)
    assert "proj:" not in listed.stdout
    assert "is ignored because the project is not trusted" in listed.stdout
    # trusted through trust.json (pi 1.6's format, written by the permissions module's store)
    from pi_cli.permissions.trust_store import TrustStore

    TrustStore(agent_dir).set_many([(str(project.resolve()), True)])
    trusted = _pi(["list"], agent_dir, project)
    assert "proj: connected, 7 tools (deferred, project)" in trusted.stdout, trusted.stdout + trusted.stderr


def test_list_says_when_a_server_offers_resources(agent_dir: Path, project: Path) -> None:
    """pi 1.6.0's ``mcp list``: an "  offers resources" line after the tools, and ``"resources": true``
    in the JSON, for a server that declares the ``resources`` capability (absent otherwise)."""
    write_config(agent_dir / "mcp.json", {"res": {"command": sys.executable, "args": [SERVER, "--resources"]},
                                          "plain": {"command": sys.executable, "args": [SERVER]}})  # fmt: skip
    listed = _pi(["list"], agent_dir, project)
    assert listed.returncode == 0, listed.stdout
    lines = listed.stdout.splitlines()
    res = lines.index("res: connected, 7 tools (deferred, global)")
    assert lines[res + 2].startswith("  tools: ") and lines[res + 3] == "  offers resources"
    assert lines.count("  offers resources") == 1
    report = json.loads(_pi(["list", "--json"], agent_dir, project).stdout)
    by_name = {server["name"]: server for server in report["servers"]}
    assert by_name["res"]["resources"] is True and "resources" not in by_name["plain"]
