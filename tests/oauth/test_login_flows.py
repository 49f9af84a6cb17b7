"""Each subscription login end to end against the fake server, and token refresh under a lock."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli.pi_harness import FakeLLMServer

from pi_cli.config.auth import AuthStore
from pi_cli.oauth.anthropic import AnthropicFlow
from pi_cli.oauth.credentials import OAuthCredentials
from pi_cli.oauth.flow import LoginError
from pi_cli.oauth.github_copilot import CopilotFlow
from pi_cli.oauth.openai_codex import CodexFlow

from .browser import BrowserUI


async def test_anthropic_login_through_the_loopback_callback(oauth_env: Path, server: FakeLLMServer) -> None:
    ui = BrowserUI()
    record = await AnthropicFlow().login(ui)
    assert record["type"] == "oauth" and record["access"].startswith("sk-ant-oat01-fake-")
    assert record["refresh"].startswith("refresh-") and record["expires"] > time.time() * 1000
    assert ui.redirect is not None and ui.redirect.startswith("http://localhost:")
    assert server.oauth.grants["authorization_code"] == 1


async def test_anthropic_login_by_pasting_the_redirect_url(oauth_env: Path) -> None:
    record = await AnthropicFlow().login(BrowserUI(paste=True), manual=True)
    assert record["access"].startswith("sk-ant-oat01-fake-")


async def test_a_pasted_state_that_does_not_match_fails_the_login(oauth_env: Path) -> None:
    with pytest.raises(LoginError, match="state mismatch"):
        await AnthropicFlow().login(BrowserUI(paste=True, tamper_state=True), manual=True)


async def test_codex_login_stores_the_chatgpt_account(oauth_env: Path) -> None:
    record = await CodexFlow().login(BrowserUI())
    assert record["accountId"] == "acct_fake" and record["access"].count(".") == 2


async def test_copilot_device_login_polls_until_authorized(oauth_env: Path, server: FakeLLMServer) -> None:
    server.oauth.pending_polls = 2
    ui = BrowserUI()
    record = await CopilotFlow().login(ui)
    assert ui.device == ("https://github.com/login/device", "ABCD-1234")
    assert record["refresh"] == "gho_fake_github_token" and record["access"].startswith("tid=fake;")
    assert server.oauth.grants["device_code"] == 1 and server.oauth.grants["copilot_token"] == 1


async def test_expired_token_is_refreshed_and_saved_0600(oauth_env: Path, server: FakeLLMServer) -> None:
    credentials = OAuthCredentials()
    record = await AnthropicFlow().login(BrowserUI())
    credentials.save("anthropic", {**record, "expires": 0})
    token = credentials.access_token("anthropic")
    assert token is not None and token != record["access"]
    stored = json.loads((oauth_env / "auth.json").read_text())["anthropic"]
    assert stored["access"] == token and stored["expires"] > time.time() * 1000
    assert stat.S_IMODE(os.stat(oauth_env / "auth.json").st_mode) == 0o600
    assert credentials.access_token("anthropic") == token  # still valid: no second refresh
    assert server.oauth.grants["refresh_token"] == 1


async def test_a_failed_refresh_says_so_without_tokens(oauth_env: Path, server: FakeLLMServer) -> None:
    record = await AnthropicFlow().login(BrowserUI())
    OAuthCredentials().save("anthropic", {**record, "expires": 0})
    server.oauth.fail_refresh = True
    with pytest.raises(LoginError) as info:
        OAuthCredentials().access_token("anthropic")
    assert "refresh token not valid" in str(info.value)
    assert record["refresh"] not in str(info.value) and record["access"] not in str(info.value)


def test_two_processes_refresh_once(oauth_env: Path, server: FakeLLMServer) -> None:
    import asyncio

    record = asyncio.run(AnthropicFlow().login(BrowserUI()))
    OAuthCredentials().save("anthropic", {**record, "expires": 0})
    code = (
        "from pi_cli.oauth.credentials import OAuthCredentials\nprint(OAuthCredentials().access_token('anthropic'))\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=dict(os.environ))
        for _ in range(3)
    ]
    tokens = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert len(tokens) == 1 and server.oauth.grants["refresh_token"] == 1


async def test_registry_uses_the_oauth_token(oauth_env: Path) -> None:
    from pi_cli.models.registry import ModelRegistry

    record = await CodexFlow().login(BrowserUI())
    OAuthCredentials().save("openai-codex", record)
    registry = ModelRegistry()
    registry.load()
    assert registry.has_auth("openai-codex")
    assert registry.api_key_for_provider("openai-codex") == record["access"]
    assert AuthStore().has("openai-codex")


async def test_subscription_models_are_listed_once_logged_in(oauth_env: Path) -> None:
    from pi_cli.models.registry import ModelRegistry

    before = ModelRegistry().load()
    assert not [m for m in before.all_models() if m["provider"] == "github-copilot"]
    OAuthCredentials().save("github-copilot", await CopilotFlow().login(BrowserUI()))
    after = ModelRegistry().load()
    copilot = [m for m in after.all_models() if m["provider"] == "github-copilot"]
    assert copilot and after.is_available(copilot[0])
