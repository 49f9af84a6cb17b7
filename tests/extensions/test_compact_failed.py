"""``session_compact_failed`` (pi 1.6.0): after every failed or cancelled compaction, with the
``compaction_end`` fields ``{reason, errorMessage, aborted, willRetry, fromExtension}``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.providers.faux import faux_assistant
from pi_cli.compaction.budget import OVERFLOW_RECOVERY_FAILED

from .test_session_api import compact_session, make


@pytest.fixture
def faux_models() -> list[str]:
    return ["faux-1", "faux-2"]


def watch(session: Any, api: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(session_compact_failed events, compaction_end events)."""
    failed: list[dict[str, Any]] = []
    ends: list[dict[str, Any]] = []
    api.on("session_compact_failed", lambda event, ctx: failed.append(event))
    session.subscribe(lambda event: ends.append(event) if event["type"] == "compaction_end" else None)
    return failed, ends


async def test_cancel_by_an_extension_is_an_aborted_failure(faux: Any, tmp_path: Path) -> None:
    session, api, _, _manager = compact_session(faux, tmp_path)
    failed, ends = watch(session, api)
    api.on("session_before_compact", lambda event, ctx: {"cancel": True})
    with pytest.raises(Exception, match="cancelled"):
        await session.compact_now()
    assert failed == [{"type": "session_compact_failed", "reason": "manual", "errorMessage": None,
                       "aborted": True, "willRetry": False, "fromExtension": False}]  # fmt: skip
    assert ends[-1]["aborted"] is True


async def test_an_error_carries_the_compaction_end_message(faux: Any, tmp_path: Path) -> None:
    session, api, _, _manager = make(faux, tmp_path)  # an empty session: nothing to compact
    failed, ends = watch(session, api)
    with pytest.raises(Exception, match="Nothing to compact"):
        await session.compact_now()
    (event,) = failed
    assert event["errorMessage"] == "Compaction failed: Nothing to compact (session too small)"
    assert event["errorMessage"] == ends[-1]["errorMessage"] and event["aborted"] is False


async def test_an_abort_after_the_extension_summary_says_from_extension(faux: Any, tmp_path: Path) -> None:
    session, api, _, manager = compact_session(faux, tmp_path)
    failed, _ends = watch(session, api)
    count = len(manager.get_entries())

    def summary_then_abort(event: dict[str, Any], ctx: Any) -> dict[str, Any]:
        session.compactor.abort()  # the user pressed Esc while the extension worked
        return {"compaction": {"summary": "too late"}}

    api.on("session_before_compact", summary_then_abort)
    with pytest.raises(Exception, match="cancelled"):
        await session.compact_now()
    assert failed[-1]["aborted"] is True and failed[-1]["fromExtension"] is True
    assert len(manager.get_entries()) == count


async def test_overflow_twice_reports_the_exhausted_recovery(faux: Any, tmp_path: Path) -> None:
    """A second context overflow in the same prompt is not compacted again: pi's message, once."""
    session, api, _, _manager = compact_session(faux, tmp_path)
    failed, ends = watch(session, api)
    compacted: list[dict[str, Any]] = []
    api.on(
        "session_before_compact",
        lambda e, c: {"compaction": {"summary": "S", "firstKeptEntryId": e["preparation"]["firstKeptEntryId"]}},
    )
    api.on("session_compact", lambda event, ctx: compacted.append(event))
    overflow = faux_assistant("", stop_reason="error", error_message="prompt is too long: 250000 tokens > 200000")
    faux.set_responses([overflow, overflow])
    await session.prompt("one more question")
    assert faux.call_count == 2
    assert [e["reason"] for e in compacted] == ["overflow"] and compacted[0]["willRetry"] is True
    assert failed == [{"type": "session_compact_failed", "reason": "overflow", "errorMessage": OVERFLOW_RECOVERY_FAILED,
                       "aborted": False, "willRetry": False, "fromExtension": False}]  # fmt: skip
    assert ends[-1]["errorMessage"] == OVERFLOW_RECOVERY_FAILED and ends[-1]["reason"] == "overflow"


async def test_overflow_recovery_continues_without_the_error_message(faux: Any, tmp_path: Path) -> None:
    """The compact-and-retry continues from the compacted context minus the overflow error (pi)."""
    from pi_cli.ai.providers.faux import faux_text

    session, api, _, manager = compact_session(faux, tmp_path)
    failed, _ends = watch(session, api)
    api.on(
        "session_before_compact",
        lambda e, c: {"compaction": {"summary": "S", "firstKeptEntryId": e["preparation"]["firstKeptEntryId"]}},
    )
    overflow = faux_assistant("", stop_reason="error", error_message="prompt is too long: 250000 tokens > 200000")
    faux.set_responses([overflow, faux_assistant([faux_text("recovered")])])
    await session.prompt("one more question")
    assert session.get_last_assistant_text() == "recovered" and failed == []
    retried = faux.requests[1].context["messages"]
    assert not any(m.get("role") == "assistant" and m.get("stopReason") == "error" for m in retried)
    assert any(e.get("type") == "message" and e["message"].get("stopReason") == "error" for e in manager.get_entries())
