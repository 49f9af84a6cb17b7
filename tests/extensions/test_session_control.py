"""Session and model control for extensions (issue 31, item 3): ``ctx.mode``, session names and
labels, ``ctx.session_manager``, context usage, commands, and the command context's session
operations, against a real AgentSession with the faux provider."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.context import CommandContext, ExtensionContext
from pi_cli.session.agent_session import AgentSession
from pi_cli.session.assembly import SessionParts, build_session
from pi_cli.session.store_bridge import SessionStoreBridge
from pi_cli.store.manager import SessionManager


def make(
    faux: Any, cwd: Path, manager: SessionManager | None = None
) -> tuple[AgentSession, ExtensionAPI, ExtensionRunner]:
    manager = manager if manager is not None else SessionManager.create(str(cwd), cwd / "sessions", fsync=False)
    runner = ExtensionRunner(str(cwd))
    session = build_session(
        cwd=cwd, parts=SessionParts(extensions=runner), store=SessionStoreBridge(manager, cwd),
        system_prompt="test", model=faux.model("faux-1"),
    )  # fmt: skip
    return session, ExtensionAPI(runner, "test-ext"), runner


async def one_turn(faux: Any, session: AgentSession, text: str = "hello") -> None:
    faux.set_responses([faux_assistant([faux_text("hi there")])])
    await session.prompt(text)


def test_mode_defaults_to_print_and_follows_the_runner(faux: Any, tmp_path: Path) -> None:
    _, _, runner = make(faux, tmp_path)
    assert ExtensionContext(runner).mode == "print"
    runner.mode = "rpc"
    assert runner.context().mode == "rpc"


def test_terminal_front_ends_name_their_mode_on_binding(faux: Any, tmp_path: Path) -> None:
    from pi_cli.modes.extension_bridge import bind_extension_ui

    session, _, runner = make(faux, tmp_path)
    quit_requests: list[str] = []
    bind_extension_ui(session, object(), lambda text, level: None, mode="inline",
                      shutdown=lambda: quit_requests.append("quit"))  # fmt: skip
    ctx = runner.context()
    assert ctx.mode == "inline" and ctx.has_ui
    ctx.shutdown()
    assert quit_requests == ["quit"]


def test_shutdown_without_a_front_end_handler_does_nothing(faux: Any, tmp_path: Path) -> None:
    _, _, runner = make(faux, tmp_path)
    runner.context().shutdown()  # print/json/acp: the process ends by itself (pi: a no-op)


async def test_quit_when_idle_waits_for_the_run(faux: Any, tmp_path: Path) -> None:
    from pi_cli.modes.extension_bridge import quit_when_idle

    session, _, _ = make(faux, tmp_path)
    quits: list[bool] = []
    faux.set_responses([faux_assistant([faux_text("slow")])])
    run = asyncio.ensure_future(session.prompt("go"))
    await asyncio.sleep(0)
    quit_when_idle(session, lambda: quits.append(session.is_streaming))()
    await run
    for _ in range(40):
        if quits:
            break
        await asyncio.sleep(0.05)
    assert quits == [False]  # called once, after the run had settled


async def test_session_name_round_trip_and_session_info_changed(faux: Any, tmp_path: Path) -> None:
    session, api, runner = make(faux, tmp_path)
    seen: list[Any] = []
    api.on("session_info_changed", lambda event, ctx: seen.append(event["name"]))
    assert api.get_session_name() is None
    api.set_session_name("Refactor auth")
    await asyncio.sleep(0)
    assert api.get_session_name() == "Refactor auth" == session.session_name
    assert runner.context().session_manager.get_session_name() == "Refactor auth"
    assert seen == ["Refactor auth"]


async def test_set_label_bookmarks_an_entry_and_clears_it(faux: Any, tmp_path: Path) -> None:
    session, api, runner = make(faux, tmp_path)
    await one_turn(faux, session)
    sm = runner.context().session_manager
    leaf = sm.get_leaf_id()
    assert leaf is not None
    api.set_label(leaf, "checkpoint")
    assert sm.get_label(leaf) == "checkpoint"
    labelled = [n for n in _walk(sm.get_tree()) if n.get("label") == "checkpoint"]
    assert labelled and labelled[0]["entry"]["id"] == leaf and "labelTimestamp" in labelled[0]
    api.set_label(leaf, None)
    assert sm.get_label(leaf) is None
    with pytest.raises(KeyError):
        api.set_label("no-such-entry", "x")


def _walk(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for node in nodes:
        out.append(node)
        out.extend(_walk(node["children"]))
    return out


async def test_session_manager_view_reads_the_live_session_and_hands_out_copies(faux: Any, tmp_path: Path) -> None:
    session, _, runner = make(faux, tmp_path)
    await one_turn(faux, session, "first question")
    sm = runner.context().session_manager
    assert sm.get_cwd() == str(tmp_path)
    assert sm.get_session_dir() == str(tmp_path / "sessions")
    assert sm.get_session_id() == session.session_id and sm.get_header()["id"] == session.session_id
    assert sm.get_session_file() == session.session_file
    branch = sm.get_branch()
    messages = [e for e in branch if e["type"] == "message"]
    assert [m["message"]["role"] for m in messages] == ["user", "assistant"]
    assert sm.get_leaf_entry() == branch[-1] and sm.get_leaf_id() == branch[-1]["id"]
    assert sm.get_entry(messages[0]["id"])["message"]["content"][0]["text"] == "first question"
    assert len(sm.get_entries()) >= len(branch)
    branch[-1]["message"]["content"] = "mutated by an extension"
    assert sm.get_leaf_entry()["message"]["content"] != "mutated by an extension"  # a copy, not the entry
    assert sm.get_entry("missing") is None
    context = sm.build_session_context()
    assert [m["role"] for m in context["messages"]] == ["user", "assistant"]
    assert context["model"] == {"provider": "faux", "modelId": "faux-1"} and context["thinkingLevel"]


def test_session_manager_view_without_a_session(tmp_path: Path) -> None:
    runner = ExtensionRunner(str(tmp_path))
    sm = runner.context().session_manager
    assert sm.get_cwd() == str(tmp_path)
    assert sm.get_entries() == [] and sm.get_branch() == [] and sm.get_tree() == []
    assert sm.get_leaf_id() is None and sm.get_session_file() is None and sm.get_header() is None


async def test_context_usage_thinking_level_model_and_system_prompt(faux: Any, tmp_path: Path) -> None:
    session, api, runner = make(faux, tmp_path)
    await one_turn(faux, session)
    ctx = runner.context()
    usage = ctx.get_context_usage()
    assert usage == session.context_usage() and usage is not None
    assert api.get_thinking_level() == session.thinking_level == ctx.thinking_level
    api.set_thinking_level("off")
    assert ctx.thinking_level == "off"  # read each time: pi's ctx.thinkingLevel is the effective level
    assert ExtensionRunner(str(tmp_path)).context().thinking_level is None
    assert ctx.model["id"] == "faux-1"
    assert ctx.get_system_prompt() == "test"
    assert ctx.has_pending_messages() is False
    assert ExtensionRunner(str(tmp_path)).context().get_context_usage() is None


def test_get_commands_lists_extension_commands_first(faux: Any, tmp_path: Path) -> None:
    _, api, _runner = make(faux, tmp_path)
    api.register_command("deploy", lambda args, ctx: None, "Deploy it")
    commands = api.get_commands()
    assert commands[0]["name"] == "deploy" and commands[0]["source"] == "extension"
    unbound = ExtensionAPI(ExtensionRunner(str(tmp_path)), "x")
    unbound.register_command("solo", lambda args, ctx: None)
    assert [c["name"] for c in unbound.get_commands()] == ["solo"]


async def test_compact_runs_in_the_background_and_reports(faux: Any, tmp_path: Path) -> None:
    from extensions.test_session_api import compact_session

    _session, api, runner, _ = compact_session(faux, tmp_path)
    api.on("session_before_compact", lambda event, ctx: {"compaction": {"summary": "S",
            "firstKeptEntryId": event["preparation"]["firstKeptEntryId"],
            "tokensBefore": event["preparation"]["tokensBefore"]}})  # fmt: skip
    done: list[Any] = []
    await runner.context().compact("focus", on_complete=done.append)
    assert done and done[0]["summary"] == "S"
    failures: list[BaseException] = []
    await runner.context().compact(on_error=failures.append)  # nothing left to compact: it fails
    assert failures and "already compacted" in str(failures[0]).lower()
    notices: list[tuple[str, str]] = []
    runner.ui = _Recorder(notices)
    await runner.context().compact()  # no on_error: the failure becomes an error notice
    assert notices and notices[0][1] == "error" and notices[0][0].startswith("Compaction failed")


class _Recorder:
    has_ui = True

    def __init__(self, notices: list[tuple[str, str]]) -> None:
        self.notices = notices

    def notify(self, text: str, level: str = "info") -> None:
        self.notices.append((text, level))


async def test_command_context_runs_session_operations(faux: Any, tmp_path: Path) -> None:
    session, api, runner = make(faux, tmp_path)
    await one_turn(faux, session, "keep me")
    first = session.session_file
    results: dict[str, Any] = {}

    async def command(args: str, ctx: Any) -> None:
        assert isinstance(ctx, CommandContext)
        await ctx.wait_for_idle()
        results["new"] = await ctx.new_session(parent_session=first)
        results["file"] = ctx.session_manager.get_session_file()
        results["switch"] = await ctx.switch_session(first)
        user = next(e for e in ctx.session_manager.get_branch() if e["type"] == "message")
        results["fork"] = await ctx.fork(user["id"])
        await ctx.reload()  # no files to import here: the same register functions run again
        results["reloaded"] = sorted(runner.commands)

    api.register_command("ops", command)
    await session.prompt("/ops")
    assert results["reloaded"] == []  # registered outside a register(): nothing to register again
    assert results["new"] == {"cancelled": False} and results["file"] != first
    assert results["switch"] == {"cancelled": False}
    assert results["fork"]["cancelled"] is False and results["fork"]["text"] == "keep me"
    assert session.session_file not in (first, results["file"])


async def test_event_handlers_get_the_plain_context(faux: Any, tmp_path: Path) -> None:
    session, api, _runner = make(faux, tmp_path)
    kinds: list[type] = []
    api.on("agent_start", lambda event, ctx: kinds.append(type(ctx)))
    await one_turn(faux, session)
    assert kinds == [ExtensionContext]  # no new_session/fork from inside a run (pi: commands only)


async def test_model_registry_view_reads_and_completes(faux: Any, tmp_path: Path) -> None:
    from pi_cli.models.registry import ModelRegistry

    _, _, runner = make(faux, tmp_path)
    view = runner.context().model_registry
    assert view.find("x", "y") is None and view.get_all() == [] and view.get_available() == []
    registry = ModelRegistry(models_json_path=tmp_path / "models.json")
    registry.register_provider(
        "local", {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "LOCAL_KEY",
                  "models": [{"id": "m1"}]},
    )  # fmt: skip
    runner.model_registry = registry
    view = runner.context().model_registry
    found = view.find("local", "m1")
    assert found is not None and found in view.get_all() and found in view.get_available()  # a local URL
    assert view.has_configured_auth(found) and view.get_api_key(found) == "LOCAL_KEY"
    faux.set_responses([faux_assistant([faux_text("summary text")])])
    reply = await view.complete(faux.model("faux-1"), {"messages": [{"role": "user", "content": "sum up"}]},
                                {"maxTokens": 50, "cacheRetention": "none"})  # fmt: skip
    assert reply["content"][0]["text"] == "summary text"
    assert faux.requests[-1].options.max_tokens == 50
    faux.set_responses([faux_assistant([faux_text("streamed")])])
    stream = view.stream_simple(faux.model("faux-1"), {"messages": [{"role": "user", "content": "go"}]})
    kinds = [event["type"] async for event in stream]
    assert kinds[-1] == "done" and (await stream.result())["content"][0]["text"] == "streamed"


async def test_command_context_navigates_the_tree(faux: Any, tmp_path: Path) -> None:
    session, api, _ = make(faux, tmp_path)
    await one_turn(faux, session, "first")
    await one_turn(faux, session, "second")
    results: list[Any] = []

    async def back(args: str, ctx: Any) -> None:
        first = next(e for e in ctx.session_manager.get_branch() if e["type"] == "message")
        results.append(await ctx.navigate_tree(first["id"]))
        results.append(ctx.session_manager.get_leaf_id())

    api.register_command("back", back)
    await session.prompt("/back")
    assert results[0] == {"cancelled": False, "editorText": "first"}
    assert [m["role"] for m in session.messages] == []  # before the first user message: nothing left
    api.on("session_before_tree", lambda event, ctx: {"cancel": True})
    await one_turn(faux, session, "third")
    await session.prompt("/back")
    assert results[2] == {"cancelled": True}


def test_unregister_provider_removes_its_models_and_restores_overrides(tmp_path: Path) -> None:
    from pi_cli.models.registry import ModelRegistry

    registry = ModelRegistry(models_json_path=tmp_path / "models.json")
    runner = ExtensionRunner(str(tmp_path))
    runner.apply_providers(registry)
    api = ExtensionAPI(runner, "ext")
    builtin = next(m for m in registry.all_models() if m["provider"] == "openai")
    api.register_provider("mine", {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
                                   "apiKey": "K", "models": [{"id": "m1"}]})  # fmt: skip
    api.register_provider("openai", {"baseUrl": "http://proxy.invalid/v1"})
    assert registry.find("mine", "m1") is not None
    assert registry.find("openai", builtin["id"])["baseUrl"] == "http://proxy.invalid/v1"  # type: ignore[index]
    api.unregister_provider("mine")
    api.unregister_provider("openai")
    api.unregister_provider("never-registered")
    assert registry.find("mine", "m1") is None and "mine" not in runner.providers
    assert registry.find("openai", builtin["id"])["baseUrl"] == builtin["baseUrl"]  # type: ignore[index]
