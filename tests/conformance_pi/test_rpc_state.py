"""RPC state after model and session changes, as pi 0.73.1 reports it.

* Leaving a model without reasoning (whose level is a forced ``off``) for a reasoning model takes
  ``defaultThinkingLevel`` (else ``medium``), announced by a ``thinking_level_changed`` event
  before the ``set_model`` response; going back clamps to ``off`` with another event.
* ``new_session`` starts unnamed: ``get_state`` has no ``sessionName`` afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cli.pi_harness import PiEnv, RpcClient


def test_switch_to_reasoning_model_restores_the_default_level(pi: PiEnv) -> None:
    client = RpcClient(pi)
    try:
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "off"
        client.send({"id": "s1", "type": "set_model", "provider": "fake", "modelId": "fake-think"})
        event = client.wait_for(lambda o: o.get("type") in ("thinking_level_changed", "response"))
        assert event == {"type": "thinking_level_changed", "level": "medium"}
        assert client.event("response")["data"]["id"] == "fake-think"
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "medium"

        client.send({"id": "s2", "type": "set_model", "provider": "fake", "modelId": "fake-model"})
        event = client.wait_for(lambda o: o.get("type") in ("thinking_level_changed", "response"))
        assert event == {"type": "thinking_level_changed", "level": "off"}
    finally:
        client.close()


def test_default_thinking_level_setting_wins_over_medium(tmp_path: Path, server: Any) -> None:
    env = PiEnv(tmp_path, server, settings={"defaultThinkingLevel": "low"})
    client = RpcClient(env)
    try:
        client.request({"type": "set_model", "provider": "fake", "modelId": "fake-think"})
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "low"
    finally:
        client.close()


def test_new_session_drops_the_session_name(pi: PiEnv) -> None:
    client = RpcClient(pi)
    try:
        assert client.request({"type": "set_session_name", "name": "my sess"})["success"]
        assert client.request({"type": "get_state"})["data"]["sessionName"] == "my sess"
        assert client.request({"type": "new_session"})["data"] == {"cancelled": False}
        assert "sessionName" not in client.request({"type": "get_state"})["data"]
    finally:
        client.close()
