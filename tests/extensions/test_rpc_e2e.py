"""Extensions over RPC: ctx.ui round trips (pi's extension_ui_request/response), commands in
get_commands and prompt, extension_error events, and tool_call running before the approval gate."""

from __future__ import annotations

from pathlib import Path

from cli.pi_harness import PiEnv, RpcClient

UI_EXT = """
def register(pi):
    async def ask(args, ctx):
        ok = await ctx.ui.confirm("Proceed?", "with " + args)
        choice = await ctx.ui.select("Pick", ["red", "blue"])
        text = await ctx.ui.input("Name", "your name")
        ctx.ui.set_status("demo", "busy")
        ctx.ui.set_widget("demo", ["line 1", "line 2"], placement="belowEditor")
        ctx.ui.set_editor_text("draft")
        ctx.ui.notify(f"ok={ok} choice={choice} text={text} ui={ctx.has_ui}", "warning")
    pi.register_command("ask", ask, "Ask three questions")

    def broken(event, ctx):
        raise RuntimeError("agent_start went wrong")
    pi.on("agent_start", broken)
"""


def _client(pi: PiEnv, *extra: str) -> RpcClient:
    ext = pi.root / "ui_ext.py"
    ext.write_text(UI_EXT)
    return RpcClient(pi, "-e", str(ext), *extra)


def test_get_commands_lists_extension_commands(pi: PiEnv) -> None:
    client = _client(pi)
    try:
        commands = client.request({"type": "get_commands"})["data"]["commands"]
        ask = [c for c in commands if c["name"] == "ask"]
        assert ask and ask[0]["source"] == "extension" and ask[0]["description"] == "Ask three questions"
    finally:
        assert client.close() == 0


def test_ui_round_trip_through_a_command(pi: PiEnv) -> None:
    client = _client(pi)
    try:
        response = client.request({"type": "prompt", "message": "/ask the plan"})
        assert response["success"] and response["data"] == {"disposition": "handled"}
        confirm = client.event("extension_ui_request")
        assert (confirm["method"], confirm["title"], confirm["message"]) == ("confirm", "Proceed?", "with the plan")
        client.send({"type": "extension_ui_response", "id": confirm["id"], "confirmed": True})
        select = client.event("extension_ui_request")
        assert select["method"] == "select" and select["options"] == ["red", "blue"]
        client.send({"type": "extension_ui_response", "id": select["id"], "value": "blue"})
        asked = client.event("extension_ui_request")
        assert asked["method"] == "input" and asked["placeholder"] == "your name"
        client.send({"type": "extension_ui_response", "id": asked["id"], "cancelled": True})
        status = client.event("extension_ui_request")
        assert (status["method"], status["statusKey"], status["statusText"]) == ("setStatus", "demo", "busy")
        widget = client.event("extension_ui_request")
        assert widget["method"] == "setWidget" and widget["widgetLines"] == ["line 1", "line 2"]
        assert widget["widgetPlacement"] == "belowEditor"
        editor = client.event("extension_ui_request")
        assert editor["method"] == "set_editor_text" and editor["text"] == "draft"
        note = client.event("extension_ui_request")
        assert note["method"] == "notify" and note["notifyType"] == "warning"
        assert note["message"] == "ok=True choice=blue text=None ui=True"
    finally:
        assert client.close() == 0
    assert pi.bodies() == []  # a command never reaches the model


def test_handler_error_is_an_extension_error_event_and_the_run_goes_on(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "fine"}])  # type: ignore[union-attr]
    client = _client(pi)
    try:
        assert client.request({"type": "prompt", "message": "hi"})["success"]
        error = client.event("extension_error")
        assert error["event"] == "agent_start" and error["extensionPath"].endswith("ui_ext.py")
        assert "RuntimeError: agent_start went wrong" in error["error"]
        end = client.event("agent_end")
        assert end["messages"][-1]["content"][0]["text"] == "fine"
    finally:
        assert client.close() == 0


def test_extension_tool_call_runs_before_the_approval_gate(pi: PiEnv, tmp_path: Path) -> None:
    ext = tmp_path / "block.py"
    ext.write_text(
        "from pi_cli.extensions import current_tool_call\n"
        "def register(pi):\n"
        "    def gate(event, ctx):\n"
        "        seen = current_tool_call.get()\n"
        "        assert seen == {'toolCallId': 'c1', 'toolName': 'bash', 'input': event['input']}\n"
        "        return {'block': True, 'reason': 'extension said no'}\n"
        "    pi.on('tool_call', gate)\n"
    )
    pi.server.add_turns(  # type: ignore[union-attr]
        [{"tool_calls": [{"name": "bash", "arguments": {"command": "touch made"}, "id": "c1"}]}, {"text": "ok"}]
    )
    client = RpcClient(pi, "--permissions", "ask", "-e", str(ext))
    try:
        assert client.request({"type": "prompt", "message": "go"})["success"]
        first = client.wait_for(lambda e: e.get("type") in ("extension_ui_request", "tool_execution_end"))
        assert first["type"] == "tool_execution_end"  # blocked before the gate could ask
        assert first["result"]["content"][0]["text"] == "extension said no"
        client.event("agent_end")
    finally:
        assert client.close() == 0
    assert not (pi.cwd / "made").exists()
