"""``pi auth login|logout`` from the shell, against the fake server's login endpoints."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from pathlib import Path

import httpx
from cli.pi_harness import PI, FakeLLMServer, clean_env


def _env(agent_dir: Path, server: FakeLLMServer) -> dict[str, str]:
    return clean_env(PI_CODING_AGENT_DIR=str(agent_dir), PI_OAUTH_BASE_URL=server.base_url, BROWSER="true")


def test_login_with_the_browser_callback_then_logout(oauth_env: Path, server: FakeLLMServer) -> None:
    env = _env(oauth_env, server)
    proc = subprocess.Popen([*PI, "auth", "login", "anthropic"], env=env, stdin=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stderr is not None
    lines: list[str] = []
    url = None
    for line in proc.stderr:
        lines.append(line)
        match = re.search(r"(http://\S+/oauth/authorize\S+)", line)
        if match:
            url = match.group(1)
            break
    assert url is not None, lines
    redirect = httpx.get(url).headers["location"]
    assert httpx.get(redirect).status_code == 200
    rest = threading.Thread(target=lambda: lines.extend(proc.stderr or []))
    rest.start()
    assert proc.wait(timeout=30) == 0, "".join(lines)
    rest.join(5)
    assert "Logged in to Anthropic" in "".join(lines)
    record = json.loads((oauth_env / "auth.json").read_text())["anthropic"]
    assert record["type"] == "oauth"
    assert record["access"] not in "".join(lines)  # the token is never printed

    out = subprocess.run([*PI, "auth", "logout", "anthropic"], env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and "Logged out of anthropic" in out.stderr
    assert "anthropic" not in json.loads((oauth_env / "auth.json").read_text())


def test_login_with_an_api_key_from_stdin(oauth_env: Path, server: FakeLLMServer) -> None:
    out = subprocess.run([*PI, "auth", "login", "openai", "--api-key"], input="sk-test-123\n",
                         env=_env(oauth_env, server), capture_output=True, text=True, timeout=30)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads((oauth_env / "auth.json").read_text())["openai"] == {"type": "api_key", "key": "sk-test-123"}
    assert "sk-test-123" not in out.stderr


def test_bad_usage_and_unknown_providers_are_one_line_errors(oauth_env: Path, server: FakeLLMServer) -> None:
    env = _env(oauth_env, server)
    usage = subprocess.run([*PI, "auth", "login"], env=env, capture_output=True, text=True, timeout=30)
    assert usage.returncode == 2 and usage.stderr.startswith("Usage: pi auth login")
    unknown = subprocess.run([*PI, "auth", "login", "nope", "--no-browser"], env=env, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=30)  # fmt: skip
    assert unknown.returncode == 1
    assert unknown.stderr.strip().splitlines() == [
        "Error: Unknown login provider: nope (one of: anthropic, openai-codex, github-copilot)"
    ]
