"""/login and /logout in the TUI, against the fake server's login endpoints."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_session_screens import SIZE, screen_of, send, stored_session, wait_until

from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.screens.login import LoginScreen
from pi_cli.modes.interactive.screens.picker import PickerScreen

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from fake_llm_server import FakeLLMServer


@pytest.fixture
def oauth_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    server = FakeLLMServer([])
    server.start_in_thread()
    monkeypatch.setenv("PI_OAUTH_BASE_URL", server.base_url)
    monkeypatch.setenv("BROWSER", "true")
    try:
        yield server
    finally:
        server.stop_thread()


async def test_login_through_the_picker_and_the_browser_callback(
    faux: Any, workdir: Path, oauth_server: FakeLLMServer, tmp_path: Path
) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/login")
        picker = await screen_of(pilot, app, PickerScreen)
        await pilot.press(*"codex", "enter")
        del picker
        login = await screen_of(pilot, app, LoginScreen)
        await wait_until(pilot, lambda: login.url is not None)
        assert login.url is not None
        async with httpx.AsyncClient() as client:
            redirect = (await client.get(login.url)).headers["location"]
            assert (await client.get(redirect)).status_code == 200
        await wait_until(pilot, lambda: not isinstance(app.screen, LoginScreen))
    record = json.loads((tmp_path / "agent" / "auth.json").read_text())["openai-codex"]
    assert record["type"] == "oauth" and record["accountId"] == "acct_fake"


async def test_login_by_pasting_and_logout(
    faux: Any, workdir: Path, oauth_server: FakeLLMServer, tmp_path: Path
) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/login anthropic")
        login = await screen_of(pilot, app, LoginScreen)
        await wait_until(pilot, lambda: login.url is not None and login.query_one("#login-paste").display)
        assert login.url is not None
        async with httpx.AsyncClient() as client:
            redirect = (await client.get(login.url)).headers["location"]  # the browser stops here
        login.query_one("#login-paste").value = redirect  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, LoginScreen))
        auth = tmp_path / "agent" / "auth.json"
        assert json.loads(auth.read_text())["anthropic"]["type"] == "oauth"
        await send(pilot, app, "/logout anthropic")
        await wait_until(pilot, lambda: "anthropic" not in json.loads(auth.read_text()))


async def test_escape_cancels_a_login(faux: Any, workdir: Path, oauth_server: FakeLLMServer, tmp_path: Path) -> None:
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, app, "/login github-copilot")
        await screen_of(pilot, app, LoginScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, LoginScreen))
    assert not (tmp_path / "agent" / "auth.json").exists()
