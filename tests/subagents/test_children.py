"""The ``subagent`` tool end to end, on sessions from the real assembly: fresh context, the agent's
tools and model, parallel start, progress, answers in the parent's next request, session files,
usage roll-up, depth, steering and bad parameters."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pi_cli.ai.providers.faux import FauxProvider, faux_assistant, faux_tool_call
from pi_cli.store import catalog
from pi_cli.store.jsonl import read_header

from .harness import Script, answer, delegate, last_text, parent_session, write_agent

BARRIER_TIMEOUT_S = 20  # a guard against a hang, not a timing assert


def tool_names(context: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in context.get("tools") or []]


def tool_result_text(context: dict[str, Any]) -> str:
    results = [m for m in context["messages"] if m.get("role") == "toolResult"]
    return "".join(block.get("text", "") for block in results[-1]["content"] if block.get("type") == "text")


async def test_parallel_children_fresh_context_own_tools_model_and_answers(
    project: Path, faux: FauxProvider, tmp_path: Path
) -> None:
    front = "name: finder\ndescription: finds\ntools: read, ls\nmodel: fx/small"
    write_agent(project / ".pi" / "agents", "finder", front, "You are finder. FINDER-PROMPT")
    started: set[str] = set()
    both = asyncio.Event()

    def child(name: str, text: str) -> Any:
        async def handler(context: dict[str, Any], count: int) -> Any:
            started.add(name)
            if len(started) == 2:
                both.set()
            await asyncio.wait_for(both.wait(), BARRIER_TIMEOUT_S)  # neither answers before both asked
            return faux_assistant(text)

        return handler

    tasks = {"tasks": [{"agent": "finder", "task": "find alpha"}, {"agent": "reviewer", "task": "check beta"}]}
    script = Script(
        faux,
        {
            "parent": delegate(tasks),
            "finder": child("finder", "FINDER-ANSWER"),
            "reviewer": child("reviewer", "REVIEW-ANSWER"),
        },
    )
    parent = parent_session(project, faux, tmp_path)
    events: list[dict[str, Any]] = []
    parent.subscribe(events.append)
    await parent.prompt("go")

    (finder,) = script.requests("finder")
    (reviewer,) = script.requests("reviewer")
    # fresh context: the agent's prompt, the project's AGENTS.md, the task as the only message
    assert finder["systemPrompt"].startswith("You are finder. FINDER-PROMPT")
    assert "PROJECT RULES 42" in finder["systemPrompt"]
    assert [m["role"] for m in finder["messages"]] == ["user"] and last_text(finder) == "find alpha"
    assert last_text(reviewer) == "check beta" and "go" not in json.dumps(reviewer["messages"])
    # only the agent's tools; its model, else the parent's
    assert tool_names(finder) == ["read", "ls"]
    assert tool_names(reviewer) == ["read", "grep", "find", "ls", "bash"]
    assert script.models("finder") == ["small"] and script.models("reviewer") == ["big"]
    # the parent's next request carries both answers, one labelled section each
    second = script.requests("parent")[1]
    result = tool_result_text(second)
    assert "## finder (done)" in result and "FINDER-ANSWER" in result
    assert "## reviewer (done)" in result and "REVIEW-ANSWER" in result
    assert parent.get_last_assistant_text() == "parent done"

    updates = [e for e in events if e["type"] == "tool_execution_update" and e["toolName"] == "subagent"]
    assert updates and all(e["toolCallId"] == "sub-0" for e in updates)
    first = updates[0]["partialResult"]
    assert first["details"]["mode"] == "parallel"
    assert [c["label"] for c in first["details"]["results"]] == ["finder", "reviewer"]
    assert "finder" in first["content"][0]["text"]  # a readable line per child
    running = [e for e in updates if all(c["status"] == "running" for c in e["partialResult"]["details"]["results"])]
    assert running, "no update showed both children running at once"
    (end,) = [e for e in events if e["type"] == "tool_execution_end"]
    children = end["result"]["details"]["results"]
    assert [c["status"] for c in children] == ["done", "done"]
    assert [c["model"] for c in children] == ["fx/small", "fx/big"]
    assert all(c["usage"]["turns"] == 1 and c["usage"]["input"] > 0 for c in children)


async def test_child_session_files_name_the_parent_and_usage_rolls_up(
    project: Path, faux: FauxProvider, tmp_path: Path
) -> None:
    Script(faux, {"parent": delegate({"agent": "scout", "task": "map the code"}), "scout": answer("MAP")})
    parent = parent_session(project, faux, tmp_path)
    own_before = parent.get_session_stats()["tokens"]["input"]
    assert own_before == 0
    await parent.prompt("go")

    end = next(m for m in parent.messages if m.get("role") == "toolResult")
    (child,) = end["details"]["results"]
    child_file = Path(child["sessionFile"])
    assert child_file.parent == Path(parent.session_file).parent  # beside the parent's file
    header = read_header(child_file)
    assert header is not None and header["parentSession"] == parent.session_file
    lines = [json.loads(line) for line in child_file.read_text().splitlines()]  # noqa: ASYNC240
    texts = json.dumps([e.get("message") for e in lines if e["type"] == "message"])
    assert "map the code" in texts and "MAP" in texts
    assert any(e["type"] == "session_info" and e["name"].startswith("scout: map the code") for e in lines)

    # the parent's statistics hold its own usage plus the child's
    own = sum(int((m.get("usage") or {}).get("input") or 0) for m in parent.messages if m.get("role") == "assistant")
    stats = parent.get_session_stats()
    assert child["usage"]["input"] > 0
    assert stats["tokens"]["input"] == own + child["usage"]["input"]

    # the catalog lists the child under its parent
    listed = catalog.threaded(catalog.list_sessions(project, tmp_path / "sessions"))
    assert [(info.path.name, depth) for info, depth in listed] == [
        (Path(parent.session_file).name, 0),
        (child_file.name, 1),
    ]


async def test_children_get_subagent_only_when_their_tools_name_it_and_depth_stops_at_two(
    project: Path, faux: FauxProvider, tmp_path: Path
) -> None:
    agents = project / ".pi" / "agents"
    write_agent(agents, "lead", "name: lead\ndescription: delegates\ntools: read, subagent", "You are lead.")
    write_agent(agents, "deep", "name: deep\ndescription: nested\ntools: read, subagent", "You are deep.")
    script = Script(
        faux,
        {
            "parent": delegate({"tasks": [{"agent": "lead", "task": "t1"}, {"agent": "worker", "task": "t2"}]}),
            "lead": delegate({"agent": "deep", "task": "t3"}, final="LEAD-DONE"),
            "deep": answer("DEEP-DONE"),
            "worker": answer("WORKER-DONE"),
        },
    )
    parent = parent_session(project, faux, tmp_path)
    await parent.prompt("go")
    assert tool_names(script.requests("worker")[0]) == ["read", "bash", "edit", "write", "grep", "find", "ls"]
    assert tool_names(script.requests("lead")[0]) == ["read", "subagent"]  # its tools name it
    assert tool_names(script.requests("deep")[0]) == ["read"]  # depth 2: never
    assert "DEEP-DONE" in tool_result_text(script.requests("lead")[1])
    result = tool_result_text(script.requests("parent")[1])
    assert "LEAD-DONE" in result and "WORKER-DONE" in result


async def test_steering_typed_while_children_run_goes_to_the_parent(
    project: Path, faux: FauxProvider, tmp_path: Path
) -> None:
    asked = asyncio.Event()
    release = asyncio.Event()

    async def slow(context: dict[str, Any], count: int) -> Any:
        asked.set()
        await asyncio.wait_for(release.wait(), BARRIER_TIMEOUT_S)
        return faux_assistant("SCOUTED")

    script = Script(faux, {"parent": delegate({"agent": "scout", "task": "look"}), "scout": slow})
    parent = parent_session(project, faux, tmp_path)
    run = asyncio.ensure_future(parent.prompt("go"))
    await asyncio.wait_for(asked.wait(), BARRIER_TIMEOUT_S)
    parent.steer("STEER-NOTE")
    release.set()
    await run
    assert "STEER-NOTE" not in json.dumps(script.requests("scout"))
    second = script.requests("parent")[1]
    texts = [last_text({"messages": [m]}) for m in second["messages"] if m["role"] == "user"]
    assert texts[-1] == "STEER-NOTE"  # delivered after the subagent call, as for any tool
    assert second["messages"][-2]["role"] == "toolResult"


async def test_bad_parameters_and_a_child_that_cannot_be_built(
    project: Path, faux: FauxProvider, tmp_path: Path
) -> None:
    write_agent(project / ".pi" / "agents", "ghost", "name: ghost\ndescription: x\nmodel: fx/nope", "You are ghost.")
    calls = iter(
        [
            {"agent": "nobody", "task": "x"},
            {"task": "no agent"},
            {"tasks": [{"agent": "ghost", "task": "a"}, {"agent": "scout", "task": "b"}]},
        ]
    )

    def parent_turn(context: dict[str, Any], count: int) -> Any:
        if count == 3:
            return faux_assistant("end")
        return faux_assistant([faux_tool_call("subagent", next(calls), id=f"c{count}")])

    Script(faux, {"parent": parent_turn, "scout": answer("SCOUT-OK")})
    parent = parent_session(project, faux, tmp_path)
    await parent.prompt("go")
    results = [m for m in parent.messages if m.get("role") == "toolResult"]
    unknown, no_mode, mixed = (r["content"][0]["text"] for r in results)
    assert results[0]["isError"] and unknown.startswith('Unknown agent: "nobody". Available agents: scout (builtin)')
    assert results[1]["isError"] and no_mode.startswith("Invalid parameters. Provide exactly one mode.")
    assert not results[2]["isError"]
    assert "## ghost (failed: subagent ghost: " in mixed and "nope" in mixed
    assert "## scout (done)" in mixed and "SCOUT-OK" in mixed


async def test_agents_text_lists_the_sessions_agents_or_says_how_to_turn_the_tool_on(
    project: Path, faux: FauxProvider, tmp_path: Path
) -> None:
    from pi_cli.session.subagents.listing import ENABLE_HINT, agents_text

    write_agent(project / ".pi" / "agents", "finder", "name: finder\ndescription: finds things", "You are finder.")
    with_tool = parent_session(project, faux, tmp_path)
    text = agents_text(with_tool)
    assert "finder [project]  finds things" in text and ENABLE_HINT not in text
    without = parent_session(project, faux, tmp_path, tools=["read"])
    assert without.subagents is None
    text = agents_text(without)
    assert "finder [project]" in text and text.endswith(ENABLE_HINT)
