"""``pi.send_message`` and ``model_select`` against a real AgentSession and the faux provider."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.config.settings import Settings
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.session.agent_session import AgentSession
from pi_cli.session.assembly import SessionParts, build_session
from pi_cli.session.store_bridge import SessionStoreBridge
from pi_cli.store.manager import SessionManager


@pytest.fixture
def faux_models() -> list[str]:
    return ["faux-1", "faux-2"]


def make(faux: Any, cwd: Path) -> tuple[AgentSession, ExtensionAPI, ExtensionRunner, SessionManager]:
    manager = SessionManager.in_memory(cwd)
    runner = ExtensionRunner(str(cwd))
    api = ExtensionAPI(runner, "test-ext")
    session = build_session(
        cwd=cwd, parts=SessionParts(extensions=runner), store=SessionStoreBridge(manager, cwd),
        system_prompt="test", model=faux.model("faux-1"),
    )  # fmt: skip
    return session, api, runner, manager


async def settle(runner: ExtensionRunner) -> None:
    while runner.pending:
        await asyncio.gather(*tuple(runner.pending))


def custom_entries(manager: SessionManager) -> list[dict[str, Any]]:
    return [e for e in manager.get_entries() if e["type"] == "custom_message"]


async def test_send_message_idle_appends_without_a_turn(faux: Any, tmp_path: Path) -> None:
    session, api, runner, manager = make(faux, tmp_path)
    api.send_message({"customType": "note", "content": "remember X", "display": True, "details": {"k": 1}})
    await settle(runner)
    assert faux.call_count == 0
    last = session.messages[-1]
    assert last["role"] == "custom" and last["customType"] == "note" and last["content"] == "remember X"
    entry = custom_entries(manager)[-1]
    assert entry["customType"] == "note" and entry["details"] == {"k": 1} and entry["display"] is True


async def test_send_message_trigger_turn_reaches_the_model(faux: Any, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant([faux_text("ok")])])
    session, api, runner, manager = make(faux, tmp_path)
    api.send_message({"customType": "ping", "content": "please answer"}, trigger_turn=True)
    await settle(runner)
    assert faux.call_count == 1
    sent = faux.requests[0].context["messages"]
    assert any("please answer" in str(m.get("content")) for m in sent)
    assert session.get_last_assistant_text() == "ok"
    assert len(custom_entries(manager)) == 1  # recorded once, as a custom_message entry


async def test_send_message_next_turn_joins_the_next_prompt(faux: Any, tmp_path: Path) -> None:
    faux.set_responses([faux_assistant([faux_text("ok")])])
    session, api, runner, _ = make(faux, tmp_path)
    runner.started = True
    api.send_message({"customType": "ctx", "content": "extra context"}, deliver_as="nextTurn")
    assert faux.call_count == 0 and runner.next_turn
    await session.prompt("hello")
    sent = str(faux.requests[0].context["messages"])
    assert "hello" in sent and "extra context" in sent
    assert runner.next_turn == []
    with pytest.raises(ValueError):
        api.send_message({"content": "x"}, deliver_as="later")


async def test_model_select_on_set_and_cycle_and_a_raising_handler_is_isolated(faux: Any, tmp_path: Path) -> None:
    session, api, runner, _ = make(faux, tmp_path)
    seen: list[tuple[str, str | None, str]] = []
    errors: list[dict[str, Any]] = []
    runner.on_error = errors.append

    def boom(event: dict[str, Any], ctx: Any) -> None:
        raise RuntimeError("broken handler")

    def record(event: dict[str, Any], ctx: Any) -> None:
        previous = event["previousModel"]
        seen.append((event["model"]["id"], previous["id"] if previous else None, event["source"]))

    api.on("model_select", boom)
    api.on("model_select", record)
    api.set_model(faux.model("faux-2"))
    await settle(runner)
    session.models.scoped = [(faux.model("faux-1"), None), (faux.model("faux-2"), None)]
    session.cycle_model()
    await settle(runner)
    assert seen == [("faux-2", "faux-1", "set"), ("faux-1", "faux-2", "cycle")]
    assert len(errors) == 2 and errors[0]["event"] == "model_select" and "broken handler" in errors[0]["error"]


async def test_user_bash_handler_answers_for_the_command(faux: Any, tmp_path: Path) -> None:
    session, api, runner, _ = make(faux, tmp_path)
    events: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    runner.on_error = errors.append

    def boom(event: dict[str, Any], ctx: Any) -> None:
        raise RuntimeError("bad bash hook")

    def answer(event: dict[str, Any], ctx: Any) -> dict[str, Any]:
        events.append(event)
        return {"result": {"output": "remote says hi", "exitCode": 0, "cancelled": False, "truncated": False}}

    api.on("user_bash", boom)
    api.on("user_bash", answer)
    marker = tmp_path / "ran"
    result = await session.run_bash(f"touch {marker}", exclude_from_context=True)
    assert not marker.exists()  # intercepted: never executed locally
    assert result["output"] == "remote says hi" and result["exitCode"] == 0
    assert events[0]["command"] == f"touch {marker}" and events[0]["excludeFromContext"] is True
    assert events[0]["cwd"] == str(tmp_path)
    last = session.messages[-1]
    assert last["role"] == "bashExecution" and last["output"] == "remote says hi"
    assert errors and errors[0]["event"] == "user_bash"


async def test_user_bash_without_an_answer_runs_locally(faux: Any, tmp_path: Path) -> None:
    session, api, _, _ = make(faux, tmp_path)
    api.on("user_bash", lambda event, ctx: None)
    result = await session.run_bash("echo local-run")
    assert "local-run" in result["output"] and result["exitCode"] == 0


def compact_session(faux: Any, tmp_path: Path) -> tuple[AgentSession, ExtensionAPI, ExtensionRunner, SessionManager]:
    from sessions.test_compaction import long_session

    manager = long_session(tmp_path, turns=6, size=4000)
    settings = Settings.from_dict({"compaction": {"enabled": True, "keepRecentTokens": 2500, "reserveTokens": 10000}})
    runner = ExtensionRunner(str(tmp_path))
    session = build_session(
        cwd=tmp_path, parts=SessionParts(extensions=runner), settings=settings,
        store=SessionStoreBridge(manager, tmp_path), system_prompt="t", model=faux.model("faux-1"),
        messages=list(manager.build_context().messages),
    )  # fmt: skip
    return session, ExtensionAPI(runner, "ext"), runner, manager


async def test_session_before_compact_supplies_the_summary_and_session_compact_follows(
    faux: Any, tmp_path: Path
) -> None:
    session, api, _, manager = compact_session(faux, tmp_path)
    seen: list[dict[str, Any]] = []

    def before(event: dict[str, Any], ctx: Any) -> dict[str, Any]:
        seen.append(event)
        prep = event["preparation"]
        return {"compaction": {"summary": "EXT SUMMARY", "firstKeptEntryId": prep["firstKeptEntryId"],
                               "tokensBefore": prep["tokensBefore"]}}  # fmt: skip

    api.on("session_before_compact", lambda event, ctx: 1 / 0)  # reported, the next handler decides
    api.on("session_before_compact", before)
    api.on("session_compact", lambda event, ctx: seen.append(event))
    result = await session.compact_now("focus")
    assert faux.call_count == 0  # no model summary: the extension supplied it
    assert result["summary"] == "EXT SUMMARY"
    before_event, after_event = seen
    assert before_event["reason"] == "manual" and before_event["customInstructions"] == "focus"
    assert before_event["willRetry"] is False and before_event["branchEntries"]
    assert after_event["fromExtension"] is True and after_event["compactionEntry"]["summary"] == "EXT SUMMARY"
    assert manager.get_entries()[-1]["fromHook"] is True


async def test_session_before_compact_can_cancel(faux: Any, tmp_path: Path) -> None:
    session, api, _, manager = compact_session(faux, tmp_path)
    api.on("session_before_compact", lambda event, ctx: {"cancel": True})
    count = len(manager.get_entries())
    with pytest.raises(Exception, match="cancelled"):
        await session.compact_now()
    assert len(manager.get_entries()) == count and faux.call_count == 0


async def test_new_and_switch_emit_shutdown_then_start_with_reasons(faux: Any, tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path), tmp_path / "sessions", fsync=False)
    manager.append_message({"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1})
    manager.append_message({"role": "assistant", "content": [{"type": "text", "text": "yo"}], "api": "faux",
                            "provider": "faux", "model": "faux-1", "stopReason": "stop", "timestamp": 2,
                            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                                               "total": 0}}})  # fmt: skip
    runner = ExtensionRunner(str(tmp_path))
    api = ExtensionAPI(runner, "ext")
    session = build_session(
        cwd=tmp_path, parts=SessionParts(extensions=runner), store=SessionStoreBridge(manager, tmp_path),
        system_prompt="t", model=faux.model("faux-1"),
    )  # fmt: skip
    seen: list[tuple[str, str, str | None]] = []
    api.on("session_start", lambda e, ctx: seen.append(("start", e["reason"], e.get("previousSessionFile"))))
    api.on("session_shutdown", lambda e, ctx: seen.append(("shutdown", e["reason"], e.get("targetSessionFile"))))
    await runner.start()
    first = session.session_file
    await session.new_session()
    second = session.session_file
    assert first is not None and second is not None and second != first
    await session.switch_session(first)
    assert seen == [
        ("start", "startup", None),
        ("shutdown", "new", second), ("start", "new", first),
        ("shutdown", "resume", first), ("start", "resume", second),
    ]  # fmt: skip


async def test_before_agent_start_system_prompt_holds_for_automatic_retries(faux: Any, tmp_path: Path) -> None:
    """As pi 1.6.0 (the run's prompt options live until the run settles): a retry of the same turn
    is sent with the system prompt ``before_agent_start`` chose; afterwards the original is back."""
    from pi_cli.ai.providers.faux import faux_assistant as reply

    session, api, _runner, _manager = make(faux, tmp_path)
    session.retry.policy.base_delay_ms = 1
    seen: list[str] = []
    api.on("before_agent_start", lambda event, ctx: seen.append(event["prompt"]) or {"systemPrompt": "EXTENDED"})
    faux.set_responses([reply("", stop_reason="error", error_message="503 service unavailable"), reply("ok")])
    await session.prompt("hello")
    assert faux.call_count == 2 and seen == ["hello"]  # the handler ran once, for the run
    assert [r.context["systemPrompt"] for r in faux.requests] == ["EXTENDED", "EXTENDED"]
    assert session.agent.state.system_prompt == "test"
    assert session.get_last_assistant_text() == "ok"
