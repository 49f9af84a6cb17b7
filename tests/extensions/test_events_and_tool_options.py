"""Events and tool options for extensions (issue 31, item 4): ``session_before_switch`` /
``session_before_fork`` (may cancel), ``session_info_changed``, ``pi.events``, ``register_tool``'s
``prompt_snippet`` / ``prompt_guidelines`` in the system prompt, and the tool-execute context."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.context import ExtensionContext
from pi_cli.resources.loader import Resources
from pi_cli.session.agent_session import AgentSession
from pi_cli.session.assembly import SessionParts, build_session
from pi_cli.session.store_bridge import SessionStoreBridge
from pi_cli.store.manager import SessionManager
from pi_cli.tools import create_coding_tools


def make(faux: Any, cwd: Path, *, resources: bool = False) -> tuple[AgentSession, ExtensionAPI, ExtensionRunner]:
    manager = SessionManager.create(str(cwd), cwd / "sessions", fsync=False)
    runner = ExtensionRunner(str(cwd))
    loaded = Resources(str(cwd), str(cwd / "agent")) if resources else None
    tools = create_coding_tools(str(cwd))
    prompt = loaded.build_system_prompt([t.name for t in tools]) if loaded is not None else "test"
    session = build_session(
        cwd=cwd, parts=SessionParts(extensions=runner), store=SessionStoreBridge(manager, cwd), resources=loaded,
        system_prompt=prompt, model=faux.model("faux-1"), tools=tools,
    )  # fmt: skip
    return session, ExtensionAPI(runner, "test-ext"), runner


async def chat(faux: Any, session: AgentSession, text: str) -> None:
    faux.set_responses([faux_assistant([faux_text("ok")])])
    await session.prompt(text)


# -- session_before_switch / session_before_fork ---------------------------------------------------


async def test_before_switch_cancels_new_and_resume_and_says_why(faux: Any, tmp_path: Path) -> None:
    session, api, runner = make(faux, tmp_path)
    await chat(faux, session, "hello")
    first = session.session_file
    seen: list[dict[str, Any]] = []
    lifecycle: list[str] = []
    errors: list[dict[str, Any]] = []
    runner.on_error = errors.append

    def broken(event: dict[str, Any], ctx: Any) -> None:
        raise RuntimeError("broken guard")

    def guard(event: dict[str, Any], ctx: Any) -> dict[str, Any]:
        seen.append(dict(event))
        return {"cancel": True}

    api.on("session_before_switch", broken)  # reported; it does not cancel
    api.on("session_before_switch", guard)
    api.on("session_shutdown", lambda e, ctx: lifecycle.append("shutdown"))
    await runner.start()
    assert await session.new_session() == {"cancelled": True}
    assert session.session_file == first and session.messages  # nothing changed
    assert await session.switch_session(str(first)) == {"cancelled": True}
    assert seen[0] == {"type": "session_before_switch", "reason": "new"}
    assert seen[1]["reason"] == "resume" and seen[1]["targetSessionFile"] == first
    assert lifecycle == [] and errors and errors[0]["event"] == "session_before_switch"


async def test_before_switch_that_lets_it_go_on(faux: Any, tmp_path: Path) -> None:
    session, api, _ = make(faux, tmp_path)
    await chat(faux, session, "hello")
    first = session.session_file
    api.on("session_before_switch", lambda event, ctx: {"cancel": False})
    assert await session.new_session() == {"cancelled": False}
    assert session.session_file != first


async def test_before_fork_cancels_fork_and_clone_with_pi_positions(faux: Any, tmp_path: Path) -> None:
    session, api, _ = make(faux, tmp_path)
    await chat(faux, session, "fork me")
    first = session.session_file
    seen: list[dict[str, Any]] = []
    api.on("session_before_fork", lambda event, ctx: seen.append(dict(event)) or {"cancel": True})
    user = next(e for e in session.store.manager.get_branch() if e["type"] == "message")  # type: ignore[union-attr]
    result = await session.fork(user["id"])
    assert result["cancelled"] is True and result["text"] == "fork me"
    assert (await session.clone())["cancelled"] is True
    assert session.session_file == first
    leaf = session.store.manager.get_leaf_id()  # type: ignore[union-attr]
    assert seen == [
        {"type": "session_before_fork", "entryId": user["id"], "position": "before"},
        {"type": "session_before_fork", "entryId": leaf, "position": "at"},
    ]


async def test_session_info_changed_reaches_handlers(faux: Any, tmp_path: Path) -> None:
    session, api, runner = make(faux, tmp_path)
    names: list[str] = []
    api.on("session_info_changed", lambda event, ctx: names.append(event["name"]))
    session.set_session_name("from /name")
    await asyncio.sleep(0)
    while runner.pending:
        await asyncio.gather(*tuple(runner.pending))
    assert names == ["from /name"]


# -- pi.events ------------------------------------------------------------------------------------


async def test_event_bus_between_two_extensions(tmp_path: Path) -> None:
    runner = ExtensionRunner(str(tmp_path))
    errors: list[dict[str, Any]] = []
    runner.on_error = errors.append
    sender, listener = ExtensionAPI(runner, "sender"), ExtensionAPI(runner, "listener")
    got: list[Any] = []
    late: list[Any] = []

    async def slow(data: Any) -> None:
        await asyncio.sleep(0)
        late.append(data)

    def broken(data: Any) -> None:
        raise ValueError("bad listener")

    unsubscribe = listener.events.on("demo:ping", got.append)
    listener.events.on("demo:ping", slow)
    listener.events.on("demo:ping", broken)
    sender.events.emit("demo:ping", {"n": 1})
    assert got == [{"n": 1}] and late == []  # sync handlers at once, async ones as tasks
    await asyncio.gather(*tuple(runner.pending))
    assert late == [{"n": 1}]
    assert errors[0]["extensionPath"] == "listener" and errors[0]["event"] == "events:demo:ping"
    unsubscribe()
    sender.events.emit("demo:ping", 2)
    sender.events.emit("other", 3)
    await asyncio.gather(*tuple(runner.pending))
    assert got == [{"n": 1}] and late == [{"n": 1}, 2]


# -- prompt_snippet / prompt_guidelines -------------------------------------------------------------


def _tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": f"{name} tool", "execute": lambda *a: "ok", **extra}


async def test_prompt_snippet_and_guidelines_join_the_system_prompt_while_active(faux: Any, tmp_path: Path) -> None:
    session, api, _ = make(faux, tmp_path, resources=True)
    before = session.agent.state.system_prompt
    api.register_tool(_tool("todo", prompt_snippet="List or add items\n   in the todo list",
                            prompt_guidelines=["Use todo for task lists instead of editing files."]))  # fmt: skip
    api.register_tool(_tool("quiet"))  # no snippet: not listed (pi leaves such tools out)
    prompt = session.agent.state.system_prompt
    assert "- todo: List or add items in the todo list" in prompt  # one line, as pi lists it
    assert "- Use todo for task lists instead of editing files." in prompt
    assert "quiet" not in prompt and "- read:" in prompt
    api.set_active_tools(["read", "quiet"])  # todo (and bash, edit, write) inactive: its lines go
    prompt = session.agent.state.system_prompt
    assert "todo" not in prompt and "- bash:" not in prompt and "- read:" in prompt
    api.set_active_tools(["read", "bash", "edit", "write"])
    assert session.agent.state.system_prompt == before  # same tools, same prompt as at start-up


async def test_pi_camel_case_options_and_a_session_without_resources(faux: Any, tmp_path: Path) -> None:
    session, api, _ = make(faux, tmp_path)  # a fixed prompt (no resources): kept as it is
    api.register_tool(_tool("todo", promptSnippet="Todo list", promptGuidelines="One bullet"))
    assert session.agent.state.system_prompt == "test"
    todo = next(t for t in session.agent.state.tools if t.name == "todo")
    assert todo.prompt_snippet == "Todo list" and todo.prompt_guidelines == ["One bullet"]


# -- the tool-execute context ---------------------------------------------------------------------


async def test_execute_with_five_parameters_gets_the_tool_context(faux: Any, tmp_path: Path) -> None:
    session, api, runner = make(faux, tmp_path)
    runner.mode = "json"
    seen: dict[str, Any] = {}

    async def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> str:
        seen.update(ctx=ctx, signal=signal, cwd=ctx.cwd, mode=ctx.mode, ui=ctx.ui.has_ui,
                    leaf=ctx.session_manager.get_leaf_id(), idle=ctx.is_idle())  # fmt: skip
        return "done"

    def four(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        return "four"

    api.register_tool({"name": "ctxtool", "description": "d", "execute": execute})
    api.register_tool({"name": "plain", "description": "d", "execute": four})
    faux.set_responses([
        faux_assistant([faux_tool_call("ctxtool", {}), faux_tool_call("plain", {})]),
        faux_assistant([faux_text("ok")]),
    ])  # fmt: skip
    await session.prompt("use the tools")
    assert isinstance(seen["ctx"], ExtensionContext) and seen["ctx"].signal is seen["signal"]
    assert seen["signal"] is not None and seen["cwd"] == str(tmp_path) and seen["mode"] == "json"
    assert seen["ui"] is False and seen["leaf"] is not None and seen["idle"] is False
    results = [m for m in session.messages if m["role"] == "toolResult"]
    assert [r["content"][0]["text"] for r in results] == ["done", "four"]


async def test_a_tool_returning_terminate_in_a_dict_ends_the_run(faux: Any, tmp_path: Path) -> None:
    session, api, _ = make(faux, tmp_path)
    api.register_tool({"name": "finish", "description": "d",
                       "execute": lambda *a: {"content": "finished", "terminate": True}})  # fmt: skip
    faux.set_responses([faux_assistant([faux_tool_call("finish", {})]), faux_assistant([faux_text("never")])])
    await session.prompt("finish up")
    assert faux.call_count == 1  # pi: a batch whose every result says terminate ends the run
    assert session.messages[-1]["role"] == "toolResult" and "terminate" not in session.messages[-1]


async def test_tool_set_changed_during_a_run_outlives_the_runs_prompt_replacement(faux: Any, tmp_path: Path) -> None:
    session, api, _ = make(faux, tmp_path, resources=True)
    api.on("before_agent_start", lambda event, ctx: {"systemPrompt": event["systemPrompt"] + "\nRUN ONLY"})

    def narrow(*args: Any) -> str:
        api.set_active_tools(["read", "todo"])  # mid-run: the session's own prompt changes
        return "narrowed"

    api.register_tool(_tool("todo", prompt_snippet="Todo list", execute=narrow))
    faux.set_responses([faux_assistant([faux_tool_call("todo", {})]), faux_assistant([faux_text("ok")])])
    await session.prompt("go")
    during = faux.requests[-1].context["systemPrompt"]
    assert during.endswith("RUN ONLY")  # the replacement held for the whole run
    after = session.agent.state.system_prompt
    assert "RUN ONLY" not in after and "- todo: Todo list" in after and "- bash:" not in after


async def test_tools_set_in_before_agent_start_reach_that_runs_prompt(faux: Any, tmp_path: Path) -> None:
    session, api, _ = make(faux, tmp_path, resources=True)
    api.register_tool(_tool("todo", prompt_snippet="Todo list"))
    api.set_active_tools(["read"])
    api.on("before_agent_start", lambda event, ctx: api.set_active_tools(["read", "todo"]))
    await chat(faux, session, "plan")
    assert "- todo: Todo list" in faux.requests[-1].context["systemPrompt"]
    assert "- todo: Todo list" in session.agent.state.system_prompt


# -- dialog options ---------------------------------------------------------------------------------


class SlowDialogs:
    """A front end whose questions are answered after ``delay`` seconds (or never)."""

    def __init__(self, delay: float | None) -> None:
        self.delay = delay
        self.withdrawn = 0

    async def select(self, title: str, options: list[str]) -> str | None:
        try:
            await asyncio.sleep(self.delay if self.delay is not None else 3600)
        except asyncio.CancelledError:
            self.withdrawn += 1  # the front end takes its question away
            raise
        return options[0]

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        return await self.select(title, ["typed"])


async def test_dialog_timeout_and_signal_withdraw_the_question(tmp_path: Path) -> None:
    from pi_cli.ai.abort import AbortController
    from pi_cli.extensions.ui import DialogUI

    runner = ExtensionRunner(str(tmp_path))
    never = SlowDialogs(None)
    runner.ui = DialogUI(never, lambda text, level: None)
    ctx = runner.context()
    assert await ctx.ui.confirm("Proceed?", "auto-no in 50 ms", timeout=50) is False
    assert await ctx.ui.select("Pick", ["a", "b"], timeout=50) is None
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.05, controller.abort)
    assert await ctx.ui.input("Name", signal=controller.signal) is None
    assert never.withdrawn == 3
    runner.ui = DialogUI(SlowDialogs(0.01), lambda text, level: None)
    assert await runner.context().ui.confirm("Proceed?", timeout=5000) is True  # answered in time
    assert await runner.context().ui.select("Pick", ["a", "b"]) == "a"  # no options: as before
    assert runner.context().ui.has_ui is True


# -- resources_discover ---------------------------------------------------------------------------


async def test_resources_discover_adds_skills_and_templates(faux: Any, tmp_path: Path) -> None:
    skill_dir = tmp_path / "ext-skills" / "tidy-up"
    skill_dir.mkdir(parents=True)
    (skill_dir / "SKILL.md").write_text("---\nname: tidy-up\ndescription: Tidy the repository\n---\nSteps.\n")
    prompts = tmp_path / "ext-prompts"
    prompts.mkdir()
    (prompts / "greet.md").write_text("---\ndescription: Say hello\n---\nSay hello to $1\n")
    session, api, runner = make(faux, tmp_path, resources=True)
    errors: list[dict[str, Any]] = []
    runner.on_error = errors.append
    seen: list[dict[str, Any]] = []

    def discover(event: dict[str, Any], ctx: Any) -> dict[str, Any]:
        seen.append(dict(event))
        return {"skillPaths": [str(tmp_path / "ext-skills")], "promptPaths": ["ext-prompts", "missing-dir"],
                "themePaths": ["ignored"]}  # fmt: skip

    api.on("resources_discover", discover)
    await runner.start()
    assert seen == [{"type": "resources_discover", "cwd": str(tmp_path), "reason": "startup"}]
    assert "tidy-up" in session.agent.state.system_prompt and "Tidy the repository" in session.agent.state.system_prompt
    assert any(c["name"] == "greet" and c["source"] == "prompt" for c in session.get_commands())
    assert session.expand_text("/greet Ada") == "Say hello to Ada"
    assert len(errors) == 1 and "missing-dir" in errors[0]["error"] and errors[0]["event"] == "resources_discover"
