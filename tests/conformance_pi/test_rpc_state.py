"""RPC state after model and session changes, as pi reports it.

* Leaving a model without reasoning (whose level is a forced ``off``) for a reasoning model takes
  ``defaultThinkingLevel`` when the settings have one, announced by a ``thinking_level_changed``
  event before the ``set_model`` response; without one, pi 1.6.0 keeps the current level, so
  ``off`` stays ``off`` and no event is sent (pi 0.73.1 took ``medium`` here; issue 28).
  Going from a level back to a model without reasoning clamps to ``off`` with an event.
* ``new_session`` starts unnamed: ``get_state`` has no ``sessionName`` afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cli.pi_harness import PiEnv, RpcClient


def test_switch_to_reasoning_model_keeps_off_without_a_default_level(pi: PiEnv) -> None:
    client = RpcClient(pi)
    try:
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "off"
        client.send({"id": "s1", "type": "set_model", "provider": "fake", "modelId": "fake-think"})
        event = client.wait_for(lambda o: o.get("type") in ("thinking_level_changed", "response"))
        assert event["type"] == "response" and event["data"]["id"] == "fake-think"  # pi 1.6.0: no event
        assert client.request({"type": "get_state"})["data"]["thinkingLevel"] == "off"
        assert client.request({"type": "set_thinking_level", "level": "medium"})["success"]

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
