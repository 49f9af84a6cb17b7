"""``session_before_tree`` / ``session_tree`` around ``AgentSession.navigate_tree`` (pi 1.6.0's
``navigateTree``), against a real session and the faux provider."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.errors import SessionError
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.session.agent_session import AgentSession
from pi_cli.store.manager import SessionManager

from .test_session_api import make


def _text(role: str, text: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1}
    if role == "assistant":
        message.update(api="faux", provider="faux", model="faux-1", usage={}, stopReason="stop")
    return message


def two_branches(faux: Any, cwd: Path) -> tuple[AgentSession, ExtensionAPI, SessionManager, dict[str, str]]:
    """q1 → a1 → q2 → a2, the leaf at a2; the agent holds that branch."""
    session, api, _runner, manager = make(faux, cwd)
    ids: dict[str, str] = {}
    for key, role, text in [("q1", "user", "first"), ("a1", "assistant", "one"),
                            ("q2", "user", "second"), ("a2", "assistant", "two")]:  # fmt: skip
        ids[key] = manager.append_message(_text(role, text))
    session.agent.state.messages = list(manager.build_context().messages)
    return session, api, manager, ids


async def test_before_tree_gets_pi_preparation_and_session_tree_reports_the_move(faux: Any, tmp_path: Path) -> None:
    session, api, manager, ids = two_branches(faux, tmp_path)
    seen: list[dict[str, Any]] = []
    api.on("session_before_tree", lambda event, ctx: seen.append(event))
    api.on("session_tree", lambda event, ctx: seen.append(event))
    result = await session.navigate_tree(ids["q2"])
    before, after = seen
    prep = before["preparation"]
    assert before["type"] == "session_before_tree" and "signal" in before
    assert prep["targetId"] == ids["q2"] and prep["oldLeafId"] == ids["a2"]
    assert prep["commonAncestorId"] == ids["q2"]
    assert [e["id"] for e in prep["entriesToSummarize"]] == [ids["a2"]]
    assert prep["userWantsSummary"] is False and prep["label"] is None
    assert set(prep) == {"targetId", "oldLeafId", "commonAncestorId", "entriesToSummarize", "userWantsSummary",
                         "customInstructions", "replaceInstructions", "label"}  # fmt: skip
    assert after == {"type": "session_tree", "newLeafId": ids["a1"], "oldLeafId": ids["a2"],
                     "summaryEntry": None, "fromExtension": None}  # fmt: skip
    assert result.editor_text == "second" and manager.get_leaf_id() == ids["a1"]
    assert [m["role"] for m in session.messages] == ["user", "assistant"]  # the agent sees the new branch


async def test_cancel_leaves_the_leaf_and_skips_session_tree(faux: Any, tmp_path: Path) -> None:
    session, api, manager, ids = two_branches(faux, tmp_path)
    after: list[Any] = []
    api.on("session_before_tree", lambda event, ctx: {"cancel": True})
    api.on("session_tree", lambda event, ctx: after.append(event))
    result = await session.navigate_tree(ids["a1"], summarize=True)
    assert result.cancelled and not result.aborted
    assert manager.get_leaf_id() == ids["a2"] and len(session.messages) == 4
    assert after == [] and faux.call_count == 0


async def test_extension_summary_replaces_the_summariser(faux: Any, tmp_path: Path) -> None:
    session, api, manager, ids = two_branches(faux, tmp_path)
    trees: list[dict[str, Any]] = []

    async def summarise(event: dict[str, Any], ctx: Any) -> dict[str, Any]:
        return {"summary": {"summary": "hook branch summary", "details": {"k": 1}}}

    api.on("session_before_tree", summarise)
    api.on("session_tree", lambda event, ctx: trees.append(event))
    result = await session.navigate_tree(ids["a1"], summarize=True)
    assert faux.call_count == 0  # no model call: the handler wrote the summary
    entry = manager.get_entry(result.summary_entry_id or "")
    assert entry is not None and entry["type"] == "branch_summary"
    assert entry["summary"] == "hook branch summary" and entry["fromHook"] is True and entry["details"] == {"k": 1}
    (tree,) = trees
    assert tree["summaryEntry"]["id"] == entry["id"] and tree["fromExtension"] is True
    assert tree["newLeafId"] == entry["id"] and tree["oldLeafId"] == ids["a2"]
    assert session.messages[-1]["role"] == "branchSummary"


async def test_summary_is_ignored_unless_the_user_asked_for_one(faux: Any, tmp_path: Path) -> None:
    session, api, manager, ids = two_branches(faux, tmp_path)
    api.on("session_before_tree", lambda event, ctx: {"summary": {"summary": "unwanted"}})
    result = await session.navigate_tree(ids["a1"])
    assert result.summary_entry_id is None and manager.get_leaf_id() == ids["a1"]
    assert not any(e["type"] == "branch_summary" for e in manager.get_entries())


async def test_overrides_reach_the_summariser_and_the_label(faux: Any, tmp_path: Path) -> None:
    session, api, manager, ids = two_branches(faux, tmp_path)
    faux.set_responses([faux_assistant([faux_text("model summary")])])
    answers = [
        {"customInstructions": "ignored, a later handler answers"},
        {"customInstructions": "only the files", "replaceInstructions": True, "label": "checkpoint"},
    ]
    api.on("session_before_tree", lambda event, ctx: answers[0])
    api.on("session_before_tree", lambda event, ctx: answers[1])  # as pi: the last answer is used
    result = await session.navigate_tree(ids["a1"], summarize=True, custom_instructions="user focus")
    prompt = str(faux.requests[0].context["messages"][0]["content"][0]["text"])
    assert prompt.rstrip().endswith("only the files")  # replaceInstructions: no default prompt around it
    assert "## Goal" not in prompt and "user focus" not in prompt
    entry = manager.get_entry(result.summary_entry_id or "")
    assert entry is not None and entry["fromHook"] is False and "model summary" in entry["summary"]
    assert manager.get_label(entry["id"]) == "checkpoint"


async def test_a_raising_handler_is_reported_and_navigation_goes_on(faux: Any, tmp_path: Path) -> None:
    session, api, manager, ids = two_branches(faux, tmp_path)
    errors: list[dict[str, Any]] = []
    assert session.extensions is not None
    session.extensions.on_error = errors.append

    def broken(event: dict[str, Any], ctx: Any) -> None:
        raise RuntimeError("tree handler broke")

    api.on("session_before_tree", broken)
    api.on("session_tree", broken)
    await session.navigate_tree(ids["a1"])
    assert manager.get_leaf_id() == ids["a1"]
    assert [e["event"] for e in errors] == ["session_before_tree", "session_tree"]
    assert "tree handler broke" in errors[0]["error"]


async def test_no_handlers_and_no_op_moves_emit_nothing(faux: Any, tmp_path: Path) -> None:
    session, api, _manager, ids = two_branches(faux, tmp_path)
    seen: list[Any] = []
    api.on("session_tree", lambda event, ctx: seen.append(event))
    result = await session.navigate_tree(ids["a2"])  # already there
    assert not result.moved and seen == []
    with pytest.raises(SessionError, match="not found"):
        await session.navigate_tree("no-such-entry")
    run = session.runs.start_user_run({"role": "user", "content": [], "timestamp": 0})  # busy from here on
    with pytest.raises(SessionError, match="Wait for the current response"):
        await session.navigate_tree(ids["a1"])
    run.close()
