"""The runner and API in process: async register, tool sets, exec, hooks and their error paths."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pi_cli.agent.types import AgentToolResult
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.loader import load_all


class FakeTool:
    def __init__(self, name: str) -> None:
        self.name, self.label, self.description = name, name, f"built-in {name}"
        self.parameters: dict[str, Any] = {"type": "object"}
        self.execution_mode = None

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(self, *args: Any) -> AgentToolResult:
        return AgentToolResult(content=[{"type": "text", "text": self.name}])


class FakeSession:
    def __init__(self) -> None:
        tools = [FakeTool("read"), FakeTool("bash")]
        self.agent = SimpleNamespace(state=SimpleNamespace(tools=tools, system_prompt="S"))
        self.mcp = None
        self.sandbox = None
        self.listeners: list[Any] = []
        self.prompts: list[str] = []
        self.is_streaming = False

    def subscribe(self, listener: Any) -> Any:
        self.listeners.append(listener)
        return lambda: None

    async def prompt(self, text: str) -> None:
        self.prompts.append(text)

    def set_tool_prompts(self, snippets: dict[str, str], guidelines: dict[str, list[str]]) -> None:
        self.tool_prompts = (snippets, guidelines)


def _call_context(args: dict[str, Any]) -> Any:
    return SimpleNamespace(tool_call={"id": "t1", "name": "bash"}, args=args)


def test_async_register_tool_replacing_a_builtin_and_active_tools(tmp_path: Path) -> None:
    ext = tmp_path / "ext.py"
    ext.write_text(
        "import asyncio\n"
        "async def register(pi):\n"
        "    await asyncio.sleep(0)\n"
        "    pi.register_tool({'name': 'read', 'description': 'mine', 'execute': lambda *a: 'ext read'})\n"
        "    pi.register_tool({'name': 'extra', 'description': 'new', 'execute': lambda *a: {'content': 'x'}})\n"
    )
    runner = ExtensionRunner(str(tmp_path))
    assert load_all(runner, agent_dir=tmp_path / "none", cwd=tmp_path, trusted=True, cli_entries=[str(ext)]) == []
    session = FakeSession()
    runner.bind(session)  # type: ignore[arg-type]
    session.agent.state.tools.append(FakeTool("mcp__x"))  # what pi_cli.mcp merges in before a run

    async def go() -> None:
        await runner.start()
        tools = session.agent.state.tools
        assert [t.name for t in tools] == ["read", "bash", "mcp__x", "extra"]
        assert tools[0].description == "mine"
        assert (await tools[0].execute("id", {}, None, None)).content == [{"type": "text", "text": "ext read"}]
        api = ExtensionAPI(runner, "t")
        assert {t["name"] for t in api.get_all_tools()} == {"read", "bash", "extra"}
        api.set_active_tools(["extra", "bash", "nope"])
        assert [t.name for t in session.agent.state.tools] == ["extra", "bash", "mcp__x"]  # MCP tools stay
        assert api.get_active_tools() == ["extra", "bash", "mcp__x"]

    asyncio.run(go())


def test_tool_call_hooks_mutate_and_block() -> None:
    runner = ExtensionRunner(".")
    seen: list[Any] = []

    def replace(event: dict[str, Any], ctx: Any) -> None:
        seen.append(dict(event["input"]))
        event["input"] = {"command": "safe"}

    async def block(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        return {"block": True, "reason": "r", "terminate": True} if event["input"]["command"] == "safe" else None

    api = ExtensionAPI(runner, "x.py")
    api.on("tool_call", replace)
    args: dict[str, Any] = {"command": "rm"}
    assert asyncio.run(runner.tool_call(_call_context(args))) is None
    assert args == {"command": "safe"}  # a replaced dict is copied into the arguments execute gets
    assert seen == [{"command": "rm"}]
    api.on("tool_call", block)
    verdict = asyncio.run(runner.tool_call(_call_context({"command": "x"})))
    assert verdict == {"block": True, "reason": "r", "terminate": True}


def test_raising_tool_call_fails_closed_and_reports() -> None:
    runner = ExtensionRunner(".")
    errors: list[dict[str, Any]] = []
    runner.on_error = errors.append

    def bad(event: dict[str, Any], ctx: Any) -> None:
        raise ValueError("boom")

    ExtensionAPI(runner, "bad.py").on("tool_call", bad)
    verdict = asyncio.run(runner.tool_call(_call_context({})))
    assert verdict is not None and verdict["block"] is True and "ValueError: boom" in verdict["reason"]
    assert errors[0]["type"] == "extension_error" and errors[0]["extensionPath"] == "bad.py"
    assert errors[0]["event"] == "tool_call" and "test_runner.py:" in errors[0]["error"]


def test_input_transform_handled_and_before_agent_start() -> None:
    from pi_cli.extensions.prompts import before_agent_start, run_input

    runner = ExtensionRunner(".")
    api = ExtensionAPI(runner, "x.py")
    api.on("input", lambda e, c: {"action": "handled"} if e["text"] == "ping" else None)
    api.on("input", lambda e, c: {"action": "transform", "text": e["text"].upper()})
    api.on("before_agent_start", lambda e, c: {"systemPrompt": e["systemPrompt"] + "+", "message": {"content": "m"}})
    queued = [{"role": "custom", "customType": "next", "content": "n", "display": True, "timestamp": 1}]

    async def go() -> tuple[Any, Any, Any]:
        handled = await run_input(runner, "ping", None, "interactive", None)
        given = await run_input(runner, "hello", None, "interactive", None)
        message = {"role": "user", "content": [{"type": "text", "text": "q"}]}
        return handled, given, await before_agent_start(runner, message, "S", queued)

    handled, given, decision = asyncio.run(go())
    assert handled is None and given == ("HELLO", [])
    assert decision.system_prompt == "S+"  # the session applies it for this run only
    assert [m["content"] for m in decision.messages] == ["n", "m"]  # nextTurn messages first
    assert decision.messages[1]["role"] == "custom"


def test_exec_exit_codes_and_timeout(tmp_path: Path) -> None:
    api = ExtensionAPI(ExtensionRunner(str(tmp_path)), "x.py")

    sleep = [sys.executable, "-c", "import time; time.sleep(30)"]

    async def go() -> list[dict[str, Any]]:
        ok = await api.exec(sys.executable, ["-c", "import sys; print('hi'); sys.exit(3)"])
        slow = await api.exec(sleep[0], sleep[1:], timeout=200)  # milliseconds, as pi
        seconds = await api.exec(sleep[0], sleep[1:], timeout_seconds=0.2)
        options = await api.exec(sleep[0], sleep[1:], {"timeout": 200})  # pi's options object
        quick = await api.exec(sys.executable, ["-c", "import time; time.sleep(0.3); print('done')"], timeout=5000)
        return [ok, slow, seconds, options, quick]

    ok, slow, seconds, options, quick = asyncio.run(go())
    assert ok["stdout"] == "hi\n" and ok["code"] == 3 and ok["killed"] is False
    for killed in (slow, seconds, options):
        assert killed["killed"] is True and killed["code"] == 128 + 9
    assert quick["killed"] is False and quick["stdout"] == "done\n"  # 5000 is 5 s, not 5000 s or 5 ms
    with pytest.raises(ValueError, match="not both"):
        asyncio.run(api.exec("true", timeout=1, timeout_seconds=1))


def test_exec_signal_kills_and_cwd_is_used(tmp_path: Path) -> None:
    from pi_cli.ai.abort import AbortController

    api = ExtensionAPI(ExtensionRunner(str(tmp_path)), "x.py")
    (tmp_path / "sub").mkdir()

    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        controller = AbortController()
        asyncio.get_running_loop().call_later(0.2, controller.abort)
        aborted = await api.exec(sys.executable, ["-c", "import time; time.sleep(30)"], signal=controller.signal)
        where = await api.exec(sys.executable, ["-c", "import os; print(os.getcwd())"], cwd=str(tmp_path / "sub"))
        return aborted, where

    aborted, where = asyncio.run(go())
    assert aborted["killed"] is True and aborted["code"] == 128 + 9
    assert where["stdout"].strip() == str(tmp_path / "sub")


def test_send_user_message_prompts_when_idle_and_queues_while_streaming() -> None:
    runner = ExtensionRunner(".")
    session = FakeSession()
    session.steer = lambda text: session.prompts.append(f"steer:{text}")  # type: ignore[attr-defined]
    session.follow_up = lambda text: session.prompts.append(f"follow:{text}")  # type: ignore[attr-defined]
    runner.bind(session)  # type: ignore[arg-type]
    api = ExtensionAPI(runner, "x.py")

    async def go() -> None:
        api.send_user_message("now")
        await asyncio.gather(*runner.pending)
        session.is_streaming = True
        api.send_user_message("a")
        api.send_user_message("b", deliver_as="followUp")

    asyncio.run(go())
    assert session.prompts == ["now", "steer:a", "follow:b"]


def test_missing_register_and_bad_tool_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "exts").mkdir()
    (tmp_path / "exts" / "empty.py").write_text("x = 1\n")
    (tmp_path / "exts" / "badtool.py").write_text("def register(pi):\n    pi.register_tool({'name': 't'})\n")
    runner = ExtensionRunner(str(tmp_path))
    errors = load_all(runner, agent_dir=tmp_path, cwd=tmp_path, trusted=False, cli_entries=["exts", "gone.py"])
    assert len(errors) == 3
    assert any("badtool.py:2" in e and "missing description, execute" in e for e in errors)
    assert any("empty.py: no register(pi) function" in e for e in errors)
    assert any("gone.py: no such file or folder" in e for e in errors)


def test_a_dict_result_keeps_terminate() -> None:
    from pi_cli.extensions.tools import to_result

    assert to_result({"content": "bye", "terminate": True}).terminate is True
    assert to_result({"content": "on", "terminate": False}).terminate is False
    assert to_result({"content": "plain"}).terminate is None
