"""The approval gate over RPC: pi's extension_ui_request select (what pi-acp maps to ACP's
request_permission), every answer, steering and abort while the dialog waits."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cli.pi_harness import PiEnv, RpcClient

ALLOW_ONCE, DENY, DENY_WITH_MESSAGE = "Allow once", "Deny", "Deny with a message to the model"


def start(pi: PiEnv, command: str = "touch made") -> tuple[RpcClient, dict[str, Any]]:
    pi.server.add_turns(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}, "id": "c1"}]}, {"text": "ok"}]
    )
    client = RpcClient(pi, "--permissions", "ask")
    assert client.request({"type": "prompt", "message": "go"})["success"]
    request = client.event("extension_ui_request")
    return client, request


def tool_end_text(client: RpcClient) -> str:
    end = client.event("tool_execution_end")
    return "".join(part.get("text", "") for part in end["result"]["content"])


def test_select_request_shape_and_allow_once(pi: PiEnv) -> None:
    client, request = start(pi)
    try:
        assert request["method"] == "select"
        assert request["title"].startswith("Allow bash?\n$ touch made")
        assert request["options"] == [ALLOW_ONCE, "Allow always (bash(touch made*))", DENY, DENY_WITH_MESSAGE]
        client.send({"type": "extension_ui_response", "id": request["id"], "value": ALLOW_ONCE})
        assert client.event("tool_execution_end")["isError"] is False
        client.event("agent_end")
    finally:
        assert client.close() == 0
    assert (pi.cwd / "made").exists()


def test_allow_always_saves_and_applies(pi: PiEnv) -> None:
    client, request = start(pi)
    try:
        client.send({"type": "extension_ui_response", "id": request["id"], "value": request["options"][1]})
        client.event("agent_end")
    finally:
        client.close()
    assert (pi.cwd / "made").exists()
    saved = json.loads((pi.cwd / ".pi" / "settings.json").read_text())
    assert saved["permissions"]["allow"] == ["bash(touch made*)"]


@pytest.mark.parametrize("answer", [{"value": DENY}, {"cancelled": True}])
def test_deny_and_cancel(pi: PiEnv, answer: dict[str, Any]) -> None:
    client, request = start(pi)
    try:
        client.send({"type": "extension_ui_response", "id": request["id"], **answer})
        assert tool_end_text(client).startswith("Permission denied: the user declined this bash call.")
        client.event("agent_end")
    finally:
        client.close()
    assert not (pi.cwd / "made").exists()


def test_deny_with_a_message_asks_for_the_text(pi: PiEnv) -> None:
    client, request = start(pi)
    try:
        client.send({"type": "extension_ui_response", "id": request["id"], "value": DENY_WITH_MESSAGE})
        second = client.event("extension_ui_request")
        assert second["method"] == "input"
        client.send({"type": "extension_ui_response", "id": second["id"], "value": "use git rm"})
        assert tool_end_text(client) == "Permission denied: the user declined this bash call and said: use git rm"
        client.event("agent_end")
    finally:
        client.close()
    sent = json.dumps(pi.bodies()[-1]["messages"])
    assert "and said: use git rm" in sent


def test_steer_queues_and_abort_cancels_while_the_dialog_waits(pi: PiEnv) -> None:
    client, _request = start(pi)
    try:
        assert client.request({"type": "steer", "message": "try ls instead"})["success"]
        state = client.request({"type": "get_state"})["data"]
        assert state["pendingMessageCount"] == 1
        assert client.request({"type": "abort"})["success"]  # answers once the run has settled
        [end] = [e for e in client.seen if e.get("type") == "tool_execution_end"]
        assert end["result"]["content"][0]["text"] == "Operation aborted"
        assert any(e.get("type") == "agent_end" for e in client.seen)
    finally:
        client.close()
    assert not (pi.cwd / "made").exists()
