"""Where a compaction cuts the branch, as pi 1.6.0's ``findProjectedCutPoint``.

Entries are seen as the context shows them: ``context_edit`` omissions and replacements applied
(:func:`pi_cli.store.context.visible_message`), compactions and bookkeeping contributing nothing.
Walking back from the newest entry, estimated tokens add up until ``keepRecentTokens`` is reached;
the cut goes to the first cut point (a user, assistant, bash, custom or summary message, never a
tool result) at or after that entry, else the last one. A failed attempt that is omitted from the
context and ends the branch (overflow recovery) travels with the summarised part. Bookkeeping right
before the cut stays with the kept part. A cut inside a turn is a split turn, whose start the
turn-prefix summary covers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_cli.compaction.budget import estimate_tokens
from pi_cli.store.context import context_edits, message_from_entry, visible_message
from pi_cli.store.jsonl import Entry

_CUTTABLE_ROLES = frozenset({"user", "assistant", "custom", "bashExecution", "branchSummary", "compactionSummary"})
_TURN_START_ROLES = frozenset({"user", "bashExecution", "custom", "branchSummary", "compactionSummary"})


@dataclass(slots=True)
class CutPoint:
    first_kept_entry_index: int
    turn_start_index: int  # -1 unless the cut falls inside a turn
    is_split_turn: bool


def _shown(entries: list[Entry]) -> list[dict[str, Any] | None]:
    edits = context_edits(entries)
    return [None if e.get("type") == "compaction" else visible_message(e, edits) for e in entries]


def _starts_turn(message: dict[str, Any] | None) -> bool:
    return message is not None and message.get("role") in _TURN_START_ROLES


def find_turn_start_index(entries: list[Entry], entry_index: int, start_index: int) -> int:
    """Index of the entry that opened the turn holding ``entry_index`` (a user, bash, custom or
    summary message as the context shows it); -1 if none at or after ``start_index``."""
    shown = _shown(entries)
    for i in range(entry_index, start_index - 1, -1):
        if _starts_turn(shown[i]):
            return i
    return -1


def _recovery_omission_suffix(entries: list[Entry], shown: list[dict[str, Any] | None], cut: int, end: int) -> bool:
    """pi's rule: everything after the cut is an omitted failed attempt (and its edits), so the
    cut moves past it rather than keeping an entry the context no longer shows."""
    suffix = range(cut + 1, end)

    def visible_alone(i: int) -> bool:
        return entries[i].get("type") != "context_edit" and message_from_entry(entries[i]) is not None

    def omitted(i: int) -> bool:
        return visible_alone(i) and shown[i] is None

    omitted_ids = {entries[i].get("id") for i in suffix if omitted(i)}
    replaced_elsewhere = any(
        entries[i].get("type") == "context_edit"
        and entries[i].get("replacement") is not None
        and entries[i].get("targetId") not in omitted_ids
        for i in suffix
    )
    failed_attempt = any(
        entries[i].get("type") == "message" and entries[i]["message"].get("role") == "assistant" and omitted(i)
        for i in suffix
    )
    only_omissions = all(
        entries[i].get("type") != "compaction" and (not visible_alone(i) or omitted(i)) for i in suffix
    )
    return not replaced_elsewhere and failed_attempt and only_omissions


def find_cut_point(entries: list[Entry], start_index: int, end_index: int, keep_recent_tokens: int) -> CutPoint:
    """Where to cut ``entries[start_index:end_index]`` (``entries`` being the whole branch, whose
    ``context_edit`` entries apply) so that about ``keep_recent_tokens`` stay; see the module."""
    shown = _shown(entries)
    cut_points = [
        i for i in range(start_index, end_index) if (m := shown[i]) is not None and m.get("role") in _CUTTABLE_ROLES
    ]
    if not cut_points:
        return CutPoint(start_index, -1, False)
    cut = cut_points[0]
    accumulated = 0
    exceeded = False
    for i in range(end_index - 1, start_index - 1, -1):
        message = shown[i]
        if message is None:
            continue
        accumulated += estimate_tokens(message)
        if accumulated >= keep_recent_tokens:
            exceeded = True
            # Past the last cut point (a trailing tool result) the last one is kept from, so the
            # call and its results stay together and the rest can be summarised.
            cut = next((c for c in cut_points if c >= i), cut_points[-1])
            break
    if exceeded and _recovery_omission_suffix(entries, shown, cut, end_index):
        cut += 1
    # Settings changes and other bookkeeping right before the cut travel with the kept part.
    while cut > start_index and entries[cut - 1].get("type") != "compaction" and shown[cut - 1] is None:
        cut -= 1
    if _starts_turn(shown[cut]):
        return CutPoint(cut, -1, False)
    turn_start = find_turn_start_index(entries, cut, start_index)
    return CutPoint(cut, turn_start, turn_start != -1)
