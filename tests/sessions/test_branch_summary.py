"""/tree navigation with and without a summary of the branch being left."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.providers.faux import FauxProvider, faux_assistant, register_faux_provider
from pi_cli.compaction.branch_summary import collect_entries_for_branch_summary, navigate_tree
from pi_cli.store.manager import SessionManager

from .helpers import assistant, tool_result, user


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = register_faux_provider()
    yield provider
    provider.unregister()


def two_branches(tmp_path: Path) -> tuple[SessionManager, dict[str, str]]:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    ids = {"u1": sm.append_message(user("start")), "a1": sm.append_message(assistant("ok"))}
    ids["u2"] = sm.append_message(user("try approach X"))
    ids["a2"] = sm.append_message(assistant(calls=[("c1", "edit", {"path": "x.py", "edits": []})]))
    ids["t2"] = sm.append_message(tool_result("c1", "edited", "edit"))
    ids["a3"] = sm.append_message(assistant("X done"))
    return sm, ids


def test_collect_walks_back_to_common_ancestor(tmp_path: Path) -> None:
    sm, ids = two_branches(tmp_path)
    entries, ancestor = collect_entries_for_branch_summary(sm, ids["a3"], ids["a1"])
    assert ancestor == ids["a1"]
    assert [e["id"] for e in entries] == [ids["u2"], ids["a2"], ids["t2"], ids["a3"]]


async def test_pick_user_message_without_summary(tmp_path: Path) -> None:
    sm, ids = two_branches(tmp_path)
    nav = await navigate_tree(sm, ids["u2"])
    assert nav.editor_text == "try approach X" and nav.summary_entry_id is None
    assert sm.get_leaf_id() == ids["a1"]
    sm.append_message(user("try approach Y"))
    assert [m["content"][0]["text"] for m in sm.build_context().messages] == ["start", "ok", "try approach Y"]


async def test_summary_of_abandoned_branch_is_recorded(tmp_path: Path, faux: FauxProvider) -> None:
    sm, ids = two_branches(tmp_path)
    faux.set_responses([faux_assistant("## Goal\nX")])
    nav = await navigate_tree(sm, ids["u2"], summarize=True, model=faux.model(), custom_instructions="focus")
    text: Any = faux.requests[0].context["messages"][0]
    prompt = text["content"][0]["text"]
    # As in pi, the common ancestor of the old leaf and the picked user message is that message
    # itself, so the summarised part starts after it; tool results are left out.
    assert "[Assistant]: X done" in prompt and "[Tool result]" not in prompt
    assert "Additional focus: focus" in prompt
    # pi 1.6.0 asks for no smaller cap than a normal turn of the model (its output limit).
    assert faux.requests[0].options.max_tokens == min(faux.model()["maxTokens"], 32_000)
    entry = sm.get_entry(nav.summary_entry_id or "")
    assert entry is not None and entry["type"] == "branch_summary"
    assert entry["parentId"] == ids["a1"] and entry["fromId"] == ids["a1"]
    assert entry["summary"].startswith("The user explored a different conversation branch")
    assert "<modified-files>\nx.py\n</modified-files>" in entry["summary"]
    assert entry["details"] == {"readFiles": [], "modifiedFiles": ["x.py"]}
    roles = [m["role"] for m in sm.build_context().messages]
    assert roles == ["user", "assistant", "branchSummary"]


async def test_aborted_summary_changes_nothing(tmp_path: Path, faux: FauxProvider) -> None:
    from pi_cli.ai.abort import AbortController

    sm, ids = two_branches(tmp_path)
    controller = AbortController()
    controller.abort()
    faux.set_responses([faux_assistant("never")])
    nav = await navigate_tree(sm, ids["u1"], summarize=True, model=faux.model(), signal=controller.signal)
    assert nav.cancelled
    assert sm.get_leaf_id() == ids["a3"] and len(sm.get_entries()) == 6
