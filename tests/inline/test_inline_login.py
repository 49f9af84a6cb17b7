"""/login and /logout in inline mode: the URL in scrollback, a pasted redirect answers the login."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pi_cli.modes.inline.app import InlineApp

from .test_inline_app import CTRL_C, CTRL_D, ENTER, _agent_dir, drive, faux, make_session, wait_for

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from fake_llm_server import FakeLLMServer

__all__ = ["_agent_dir", "faux"]  # the agent dir fixture is autouse: auth.json stays in tmp_path


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


async def test_login_by_pasting_the_redirect_then_logout(faux: Any, tmp_path: Path, oauth_server: Any) -> None:
    session = make_session(faux, tmp_path)
    auth = tmp_path / "agent" / "auth.json"

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("/login anthropic" + ENTER)
        await wait_for(lambda: app.controller.login.waiting)
        url = re.search(r"(http://\S+/oauth/authorize\S+)", out.getvalue().replace("\n", ""))
        assert url is not None
        async with httpx.AsyncClient() as client:
            redirect = (await client.get(url.group(1))).headers["location"]
        pipe.send_text(redirect + ENTER)
        await wait_for(lambda: "Logged in to Anthropic" in out.getvalue())
        pipe.send_text("/logout anthropic" + ENTER)
        await wait_for(lambda: "Logged out of anthropic" in out.getvalue())
        pipe.send_text(CTRL_D)

    code, _text = await drive(session, script)
    assert code == 0
    assert json.loads(auth.read_text()) == {}
    assert session.messages == []  # nothing reached the model


async def test_ctrl_c_cancels_a_waiting_login(faux: Any, tmp_path: Path, oauth_server: Any) -> None:
    session = make_session(faux, tmp_path)

    async def script(pipe: Any, app: InlineApp, out: io.StringIO) -> None:
        pipe.send_text("/login anthropic" + ENTER)
        await wait_for(lambda: app.controller.login.waiting)
        pipe.send_text(CTRL_C)
        await wait_for(lambda: "Login cancelled" in out.getvalue())
        pipe.send_text(CTRL_D)

    code, _text = await drive(session, script)
    assert code == 0 and not (tmp_path / "agent" / "auth.json").exists()
