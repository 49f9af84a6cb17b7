"""Compaction: estimates, thresholds, cut points, and the summarising call (faux provider)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.abort import AbortController
from pi_cli.ai.providers.faux import FauxProvider, faux_assistant, register_faux_provider
from pi_cli.compaction.compactor import (
    SUMMARIZATION_SYSTEM_PROMPT,
    CompactionAbortedError,
    CompactionError,
    CompactionSettings,
    estimate_context_tokens,
    estimate_tokens,
    find_cut_point,
    prepare_compaction,
    run_compaction,
    serialize_conversation,
    should_compact,
)
from pi_cli.config.settings import Settings
from pi_cli.store.manager import SessionManager

from .helpers import assistant, tool_result, user


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = register_faux_provider()
    yield provider
    provider.unregister()


def prompt_text(provider: FauxProvider, index: int = -1) -> str:
    message: Any = provider.requests[index].context["messages"][0]
    return str(message["content"][0]["text"])


def long_session(tmp_path: Path, turns: int = 6, size: int = 4000) -> SessionManager:
    """Turns of: user, assistant tool call (read), tool result of ``size`` chars, assistant text."""
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_model_change("faux", "faux-1")
    for i in range(turns):
        sm.append_message(user(f"task {i}"))
        sm.append_message(assistant(calls=[(f"c{i}", "read", {"path": f"src/f{i}.py"})]))
        sm.append_message(tool_result(f"c{i}", "x" * size, "read"))
        sm.append_message(assistant(f"answer {i}"))
    return sm


def test_token_estimates_follow_pi() -> None:
    assert estimate_tokens(user("12345678")) == 2
    assert estimate_tokens(user("123456789")) == 3
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    result = {"role": "toolResult", "content": [{"type": "text", "text": "abcd"}, image]}
    assert estimate_tokens(result) == 1 + 1200
    call = assistant(calls=[("c", "read", {"path": "a"})])
    assert estimate_tokens(call) == -(-(len("read") + len('{"path":"a"}')) // 4)
    assert estimate_tokens({"role": "bashExecution", "command": "ls", "output": "abcdef"}) == 2
    assert estimate_tokens({"role": "compactionSummary", "summary": "x" * 40}) == 10


def test_context_estimate_uses_last_good_usage_plus_trailing() -> None:
    msgs = [user("q"), assistant("a", total=500), assistant("x", total=9999, stop="error"), user("12345678")]
    est = estimate_context_tokens(msgs)
    assert est.usage_tokens == 500 and est.last_usage_index == 1
    assert est.tokens == 500 + estimate_tokens(msgs[2]) + 2


def test_should_compact_threshold_and_settings_sources() -> None:
    assert not should_compact(128000 - 16384, 128000, None)
    assert should_compact(128000 - 16384 + 1, 128000, None)
    assert should_compact(30005, 32000, {"reserveTokens": 4000})
    assert not should_compact(30005, 32000, {"enabled": False, "reserveTokens": 4000})
    settings = Settings()
    assert CompactionSettings.from_any(settings) == CompactionSettings(True, 16384, 20000)


def test_cut_point_never_lands_on_a_tool_result(tmp_path: Path) -> None:
    sm = long_session(tmp_path, turns=4, size=400)
    path = sm.get_branch()
    for keep in range(1, 600, 7):
        cut = find_cut_point(path, 0, len(path), keep)
        kept = path[cut.first_kept_entry_index]
        assert not (kept["type"] == "message" and kept["message"]["role"] == "toolResult")


def test_cut_point_keeps_about_keep_recent_tokens(tmp_path: Path) -> None:
    sm = long_session(tmp_path, turns=6, size=4000)  # ~1000 tokens per tool result
    path = sm.get_branch()
    cut = find_cut_point(path, 0, len(path), 2500)
    kept = [e["message"] for e in path[cut.first_kept_entry_index :] if e["type"] == "message"]
    # pi cuts at the first valid cut point at or after the message that crossed the budget, so
    # the kept part is within one message of keepRecentTokens.
    assert 2500 - 1100 < sum(estimate_tokens(m) for m in kept) < 2500 + 1100
    assert path[cut.first_kept_entry_index]["message"]["role"] in ("user", "assistant")
    # Cutting at an assistant message inside a turn is a split turn; its user message starts the turn.
    if cut.is_split_turn:
        assert path[cut.turn_start_index]["message"]["role"] == "user"


def test_cut_point_past_the_last_cut_point_keeps_from_the_last_one(tmp_path: Path) -> None:
    # pi 1.6.0 (findProjectedCutPoint): when the budget fills on a trailing tool result, no cut
    # point follows it, and pi keeps from the last cut point (the call), not from the first.
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("first task"))
    sm.append_message(assistant("first answer"))
    sm.append_message(user("read it"))
    sm.append_message(assistant(calls=[("c1", "read", {"path": "big.txt"})]))
    sm.append_message(tool_result("c1", "x" * 100_000, "read"))
    path = sm.get_branch()
    cut = find_cut_point(path, 0, len(path), 20_000)
    assert cut.first_kept_entry_index == 3 and cut.is_split_turn and cut.turn_start_index == 2


def test_custom_messages_count_toward_the_kept_tokens(tmp_path: Path) -> None:
    # pi counts every entry the context shows: a large custom message fills the budget by itself,
    # and the cut does not move back over it.
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("first task"))
    sm.append_message(assistant("first answer"))
    sm.append_custom_message_entry("note", "y" * 100_000, True)
    sm.append_message(user("next"))
    sm.append_message(assistant("done"))
    path = sm.get_branch()
    cut = find_cut_point(path, 0, len(path), 20_000)
    assert cut.first_kept_entry_index == 2


def test_serialized_conversation_format() -> None:
    msgs = [
        user("please read"),
        {**assistant("ok", calls=[("c1", "read", {"path": "a.py", "limit": 5})]),
         "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "ok"},
                     {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.py", "limit": 5}}]},
        tool_result("c1", "y" * 2500, "read"),
    ]  # fmt: skip
    text = serialize_conversation(msgs)
    assert text.startswith("[User]: please read\n\n[Assistant thinking]: hmm\n\n[Assistant]: ok\n\n")
    assert '[Assistant tool calls]: read(path="a.py", limit=5)' in text
    assert "[Tool result]: " + "y" * 2000 + "\n\n[... 500 more characters truncated]" in text


async def test_run_compaction_summarises_and_appends_entry(tmp_path: Path, faux: FauxProvider) -> None:
    sm = long_session(tmp_path, turns=6, size=4000)
    faux.set_responses([faux_assistant("## Goal\nShip it"), faux_assistant("PREFIX")])
    before = len(sm.get_entries())
    result = await run_compaction(sm, faux.model(), {"keepRecentTokens": 2500, "reserveTokens": 10000},
                                  custom_instructions="the parser", api_key="k")  # fmt: skip
    assert faux.call_count >= 1
    request = faux.requests[0]
    assert request.context.get("systemPrompt") == SUMMARIZATION_SYSTEM_PROMPT
    # pi 1.6.0: a summary may use the model's whole output limit, whatever reserveTokens says.
    assert request.options.max_tokens == min(faux.model()["maxTokens"], 32_000) and request.options.api_key == "k"
    text = prompt_text(faux, 0)
    assert text.startswith("<conversation>\n[User]: task 0")
    assert '[Assistant tool calls]: read(path="src/f0.py")' in text
    assert "Additional focus: the parser" in text
    assert "## Constraints & Preferences" in text and "## Critical Context" in text
    assert result.summary.startswith("## Goal\nShip it")
    assert "<read-files>\nsrc/f0.py" in result.summary
    assert result.details["readFiles"][0] == "src/f0.py"
    entries = sm.get_entries()
    assert len(entries) == before + 1
    last = entries[-1]
    assert last["type"] == "compaction" and last["summary"] == result.summary
    assert last["firstKeptEntryId"] == result.first_kept_entry_id and last["fromHook"] is False
    ctx = sm.build_context().messages
    assert ctx[0]["role"] == "compactionSummary"
    assert len(ctx) < 6 * 4
    with pytest.raises(CompactionError, match=r"^Already compacted$"):
        await run_compaction(sm, faux.model(), {"keepRecentTokens": 2500})


async def test_second_compaction_updates_previous_summary(tmp_path: Path, faux: FauxProvider) -> None:
    sm = long_session(tmp_path, turns=6, size=4000)
    faux.set_responses([faux_assistant("FIRST"), faux_assistant("FIRST-PREFIX"), faux_assistant("SECOND"),
                        faux_assistant("SECOND-PREFIX")])  # fmt: skip
    await run_compaction(sm, faux.model(), {"keepRecentTokens": 2500})
    for i in range(6, 9):
        sm.append_message(user(f"task {i}"))
        sm.append_message(assistant(f"answer {i}" + "z" * 4000))
    seen = faux.call_count
    await run_compaction(sm, faux.model(), {"keepRecentTokens": 2500})
    texts = [prompt_text(faux, i) for i in range(seen, faux.call_count)]
    history = next(t for t in texts if "<previous-summary>" in t)
    assert "<previous-summary>\nFIRST" in history
    assert "NEW messages" in history
    assert "task 0" not in history  # already summarised the first time


async def test_split_turn_summarises_prefix_separately(tmp_path: Path, faux: FauxProvider) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("small start"))
    sm.append_message(assistant("ok"))
    sm.append_message(user("one huge task"))
    for i in range(5):
        sm.append_message(assistant(calls=[(f"c{i}", "bash", {"command": f"step {i}"})]))
        sm.append_message(tool_result(f"c{i}", "o" * 4000))
    prep = prepare_compaction(sm.get_branch(), {"keepRecentTokens": 1500})
    assert prep is not None and prep.is_split_turn and prep.turn_prefix_messages

    def answer(ctx: Any, opts: Any, i: int) -> Any:
        text = ctx["messages"][0]["content"][0]["text"]
        return faux_assistant("PART-PREFIX" if text.startswith("# Conversation\n") else "PART-HISTORY")

    faux.set_responses([answer] * 2)
    result = await run_compaction(
        sm, faux.model(), {"keepRecentTokens": 1500, "reserveTokens": 1000}, custom_instructions="the parser"
    )
    assert faux.call_count == 2
    assert result.summary.startswith("PART-HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPART-PREFIX")
    # pi 1.6.0's turn-prefix request: "# Conversation" and "# Instructions" headings, the focus last.
    prefix = next(prompt_text(faux, i) for i in range(2) if prompt_text(faux, i).startswith("# Conversation\n"))
    assert "\n\n# Instructions\nThis is the FIRST PART of a turn" in prefix
    assert prefix.endswith("\n\nAdditional focus: the parser")


async def test_abort_leaves_session_unchanged(tmp_path: Path, faux: FauxProvider) -> None:
    sm = long_session(tmp_path, turns=6, size=4000)
    assert sm.session_file is not None
    disk_before = sm.session_file.read_bytes()
    entries_before = sm.get_entries()
    started = asyncio.Event()

    async def slow(ctx: Any, opts: Any, i: int) -> Any:
        started.set()
        await asyncio.sleep(30)
        return faux_assistant("never")

    faux.set_responses([slow, slow])
    controller = AbortController()
    task = asyncio.create_task(run_compaction(sm, faux.model(), {"keepRecentTokens": 2500}, signal=controller.signal))
    await asyncio.wait_for(started.wait(), 5)
    controller.abort()
    with pytest.raises(CompactionAbortedError):
        await asyncio.wait_for(task, 5)
    assert sm.get_entries() == entries_before
    assert sm.session_file.read_bytes() == disk_before


async def test_failed_summary_reports_and_leaves_session(tmp_path: Path, faux: FauxProvider) -> None:
    sm = long_session(tmp_path, turns=3, size=4000)
    before = sm.get_entries()
    faux.set_responses([faux_assistant("", stop_reason="error", error_message="boom")] * 2)
    with pytest.raises(CompactionError, match="Summarization failed: boom"):
        await run_compaction(sm, faux.model(), {"keepRecentTokens": 1000})
    assert sm.get_entries() == before


async def test_nothing_to_compact_when_the_whole_context_is_kept(tmp_path: Path, faux: FauxProvider) -> None:
    # pi 1.6.0 refuses a session whose context fits in keepRecentTokens (nothing before the cut),
    # without asking the model; a one-turn session is the everyday case.
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("hi"))
    sm.append_message(assistant("Hello."))
    with pytest.raises(CompactionError, match=r"^Nothing to compact \(session too small\)$"):
        await run_compaction(sm, faux.model())
    assert faux.call_count == 0
    big = long_session(tmp_path, turns=3, size=4000)
    with pytest.raises(CompactionError, match="too small"):
        await run_compaction(big, faux.model(), {"keepRecentTokens": 100000})


async def test_nothing_to_compact_on_empty_session(tmp_path: Path, faux: FauxProvider) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    with pytest.raises(CompactionError, match=r"^Nothing to compact \(session too small\)$"):
        await run_compaction(sm, faux.model())
    assert faux.call_count == 0


def test_compaction_trigger_follows_pi(tmp_path: Path) -> None:
    from pi_cli.compaction.compactor import compaction_trigger

    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    model: Any = {"id": "fake-model", "provider": "fake", "contextWindow": 32000}
    big = assistant("a", total=30005)
    big["timestamp"] = 10**13
    small = {**big, "usage": {**big["usage"], "totalTokens": 1000}}
    overflow = {**big, "stopReason": "error", "errorMessage": "This model's maximum context length is 32000 tokens"}
    settings = {"reserveTokens": 4000}
    assert compaction_trigger(big, [user("q"), big], model, sm, settings) == "threshold"
    assert compaction_trigger(small, [user("q"), small], model, sm, settings) is None
    assert compaction_trigger(overflow, [user("q"), small, overflow], model, sm, settings) == "overflow"
    assert compaction_trigger(overflow, [user("q"), small], model, sm, settings, overflow_attempted=True) is None
    aborted = {**big, "stopReason": "aborted"}
    assert compaction_trigger(aborted, [aborted], model, sm, settings) is None
    # Before a new prompt pi also looks at an aborted reply's usage.
    assert compaction_trigger(aborted, [aborted], model, sm, settings, skip_aborted=False) == "threshold"
    assert compaction_trigger(big, [big], model, sm, {"enabled": False}) is None
    # Usage from before the latest compaction never re-triggers it.
    sm.append_message(user("q"))
    first = sm.append_message(assistant("a"))
    sm.append_compaction("S", first, 5)
    stale = {**big, "timestamp": 1}
    assert compaction_trigger(stale, [stale], model, sm, settings) is None
