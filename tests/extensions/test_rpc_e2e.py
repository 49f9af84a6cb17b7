"""Extensions over RPC: ctx.ui round trips (pi's extension_ui_request/response), commands in
get_commands and prompt, extension_error events, and tool_call running before the approval gate."""

from __future__ import annotations

import json
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
        ctx.ui.set_widget("plain", ["no placement"])
        ctx.ui.notify("no level")
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
        # pi's sourceInfo of an extension named with -e (its resource loader's CLI metadata, no baseDir)
        path = str((pi.root / "ui_ext.py").resolve())
        assert ask[0]["sourceInfo"] == {"path": path, "source": "cli", "scope": "temporary", "origin": "top-level"}
        assert "path" not in ask[0]
    finally:
        assert client.close() == 0


def test_ui_round_trip_through_a_command(pi: PiEnv) -> None:
    client = _client(pi)
    try:
        # As pi 1.6.0, the response follows the command's end (its dialogs answered).
        client.send({"type": "prompt", "message": "/ask the plan", "id": "p1"})
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
        # Not given → key left out, as pi 1.6.0 sends ``options?.placement`` / ``type`` (undefined).
        plain = client.event("extension_ui_request")
        assert plain["method"] == "setWidget" and plain["widgetLines"] == ["no placement"]
        assert "widgetPlacement" not in plain
        bare = client.event("extension_ui_request")
        assert bare["method"] == "notify" and bare["message"] == "no level" and "notifyType" not in bare
        response = client.wait_for(lambda o: o.get("type") == "response" and o.get("id") == "p1")
        assert response["success"] and response["data"] == {"disposition": "handled"}
        assert not any(o.get("type") == "response" for o in client.seen[:-1])  # not before the command ended
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


STREAM_EXT = """
def register(pi):
    def mark(args, ctx):
        ctx.ui.notify(f"mark {args} idle={ctx.is_idle()}")
    pi.register_command("mark", mark, "record a mark")

    def on_input(event, ctx):
        if event["text"] == "drop":
            return {"action": "handled"}
        if event["streamingBehavior"]:
            return {"action": "transform", "text": event["text"].upper() + " via " + event["source"]}
    pi.on("input", on_input)
"""


def _stream_client(pi: PiEnv) -> RpcClient:
    ext = pi.root / "stream_ext.py"
    ext.write_text(STREAM_EXT)
    return RpcClient(pi, "-e", str(ext))


def test_input_handled_prompt_answers_handled_and_starts_nothing(pi: PiEnv) -> None:
    """pi 1.6.0: an ``input`` handler consuming the text makes ``prompt`` answer ``handled``."""
    client = _stream_client(pi)
    try:
        response = client.request({"type": "prompt", "message": "drop"})
        assert response["success"] and response["data"] == {"disposition": "handled"}
        state = client.request({"type": "get_state"})["data"]
        assert state["isStreaming"] is False and state["messageCount"] == 0
    finally:
        assert client.close() == 0
    assert pi.bodies() == [] and not any(o.get("type") == "agent_start" for o in client.seen)


def test_commands_run_while_streaming_and_steer_refuses_them(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "held for a while", "stall_after": 2}])  # type: ignore[union-attr]
    client = _stream_client(pi)
    try:
        assert client.request({"type": "prompt", "message": "hi"})["data"] == {"disposition": "started"}
        client.event("message_update")  # the model is streaming now
        handled = client.request({"type": "prompt", "message": "/mark busy"})
        assert handled["success"] and handled["data"] == {"disposition": "handled"}
        note = next(o for o in client.seen if o.get("method") == "notify")
        assert note["message"] == "mark busy idle=False"  # it ran during the stream, before the answer
        refused = client.request({"type": "steer", "message": "/mark again"})
        assert not refused["success"]
        assert refused["error"] == (
            'Extension command "/mark" cannot be queued. Use prompt() or execute the command when not streaming.'
        )
        dropped = client.request({"type": "follow_up", "message": "drop"})
        assert dropped["data"] == {"disposition": "handled"}
        queued = client.request({"type": "prompt", "message": "later", "streamingBehavior": "steer"})
        assert queued["data"] == {"disposition": "queued"}
        steered = client.request({"type": "steer", "message": "more"})
        assert steered["data"] == {"disposition": "queued"}
        state = client.request({"type": "get_state"})["data"]
        assert state["isStreaming"] and state["pendingMessageCount"] == 2
        updates = [o["steering"] for o in client.seen if o.get("type") == "queue_update"]
        assert updates[-1] == ["LATER via rpc", "MORE via rpc"]  # transformed by `input` (source rpc)
        assert client.request({"type": "abort"})["success"]
    finally:
        assert client.close() == 0
    assert not any("/mark" in str(body) for body in pi.bodies())


TIMEOUT_EXT = """
def register(pi):
    async def hurry(args, ctx):
        picked = await ctx.ui.select("Quick", ["a", "b"], timeout=300)
        sure = await ctx.ui.confirm("Sure?", "", timeout=300)
        ctx.ui.notify(f"picked={picked} sure={sure}")
    pi.register_command("hurry", hurry, "Dialogs that time out")
"""


def test_dialog_timeout_is_sent_and_gives_the_default_when_unanswered(pi: PiEnv) -> None:
    """pi's dialog ``timeout`` option (ms) is in the request; no answer in time → None / False."""
    ext = pi.root / "timeout_ext.py"
    ext.write_text(TIMEOUT_EXT)
    client = RpcClient(pi, "-e", str(ext))
    try:
        client.send({"type": "prompt", "message": "/hurry", "id": "p1"})
        select = client.event("extension_ui_request")
        assert select["method"] == "select" and select["timeout"] == 300
        confirm = client.event("extension_ui_request")
        assert confirm["method"] == "confirm" and confirm["timeout"] == 300
        note = client.event("extension_ui_request")
        assert note["method"] == "notify" and note["message"] == "picked=None sure=False"
        client.send({"type": "extension_ui_response", "id": select["id"], "value": "a"})  # too late: ignored
        assert client.wait_for(lambda o: o.get("id") == "p1")["success"]
    finally:
        assert client.close() == 0


EDITOR_EXT = """
def register(pi):
    async def write(args, ctx):
        ctx.ui.set_title("pi: writing")
        text = await ctx.ui.editor("Message", "draft text")
        ctx.ui.paste_to_editor("pasted")
        ctx.ui.notify(f"mode={ctx.mode} text={text} editor={ctx.ui.get_editor_text()!r}")
    pi.register_command("write", write, "Title, editor and paste")
"""


def test_mode_title_and_editor_calls_over_rpc(pi: PiEnv) -> None:
    """pi 1.6's ``ctx.mode`` ("rpc"), ``setTitle``, the ``editor`` dialog and ``pasteToEditor``."""
    ext = pi.root / "editor_ext.py"
    ext.write_text(EDITOR_EXT)
    client = RpcClient(pi, "-e", str(ext))
    try:
        client.send({"type": "prompt", "message": "/write", "id": "p1"})
        title = client.event("extension_ui_request")
        assert (title["method"], title["title"]) == ("setTitle", "pi: writing")
        editor = client.event("extension_ui_request")
        assert (editor["method"], editor["title"], editor["prefill"]) == ("editor", "Message", "draft text")
        client.send({"type": "extension_ui_response", "id": editor["id"], "value": "line 1\nline 2"})
        paste = client.event("extension_ui_request")
        assert (paste["method"], paste["text"]) == ("set_editor_text", "pasted")
        note = client.event("extension_ui_request")
        assert note["message"] == "mode=rpc text=line 1\nline 2 editor=''"
        assert client.wait_for(lambda o: o.get("id") == "p1")["success"]
    finally:
        assert client.close() == 0


def test_ctx_mode_names_print_and_json_as_pi(pi: PiEnv) -> None:
    ext = pi.root / "mode_ext.py"
    ext.write_text(
        "def register(pi):\n    pi.register_command('mode', lambda a, ctx: ctx.ui.notify(f'mode={ctx.mode}'))\n"
    )
    for flag, expected in (("-p", "mode=print"), ("--mode=json", "mode=json")):
        done = pi.run("-e", str(ext), *flag.split("="), "/mode")
        assert expected in done.stderr, (flag, done.stderr)


APPEND_EXT = """
def register(pi):
    async def remember(args, ctx):
        pi.append_entry("my-state", {"n": 1})
    pi.register_command("remember", remember, "Store a custom entry")

    async def turn_end(event, ctx):
        pi.append_entry("turn-state", {"t": True})
    pi.on("turn_end", turn_end)
"""


def test_append_entry_is_announced_as_entry_appended(pi: PiEnv) -> None:
    # Measured with pi 1.6.0 and a TypeScript twin: pi.appendEntry sends entry_appended at once, so
    # before the command's response and before the turn_end it was appended in; keys in pi's order.
    ext = pi.root / "append_ext.py"
    ext.write_text(APPEND_EXT)
    pi.server.add_turns([{"text": "Hello."}])
    client = RpcClient(pi, "-e", str(ext))
    try:
        assert client.request({"type": "prompt", "message": "/remember"})["success"]
        kinds = [e.get("type") for e in client.seen]
        appended = next(e for e in client.seen if e.get("type") == "entry_appended")
        assert kinds.index("entry_appended") < kinds.index("response")
        entry = appended["entry"]
        assert list(entry) == ["type", "customType", "data", "id", "parentId", "timestamp"]
        assert (entry["customType"], entry["data"]) == ("my-state", {"n": 1})
        start = len(client.seen)
        assert client.request({"type": "prompt", "message": "hi"})["success"]
        client.event("agent_end")
        later = [e.get("type") for e in client.seen[start:]]
        assert later.index("entry_appended") < later.index("turn_end")
        state = client.request({"type": "get_state"})["data"]
        stored = [json.loads(line) for line in Path(state["sessionFile"]).read_text().splitlines()]
        customs = [e["customType"] for e in stored if e["type"] == "custom" and e["customType"] != "pi_cli.checkpoint"]
        assert customs == ["my-state", "turn-state"]
    finally:
        assert client.close() == 0
