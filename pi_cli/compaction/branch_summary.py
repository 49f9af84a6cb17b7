"""Summaries of an abandoned branch, for ``/tree`` navigation (pi's branch summarisation).

When the user moves from leaf A to an entry T on another branch, the entries from A back to the
deepest common ancestor of A and T are the branch being left. :func:`generate_branch_summary`
summarises them (newest first, within ``contextWindow - reserveTokens``), and
:func:`navigate_tree` moves the leaf, recording the summary as a ``branch_summary`` entry at the
destination so the context keeps what was learnt there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.types import Model
from pi_cli.compaction.budget import estimate_tokens
from pi_cli.compaction.summarizer import (
    CompactionAbortedError,
    FileOps,
    format_file_operations,
    serialize_conversation,
    summarise_text,
)
from pi_cli.store.entry_messages import convert_to_llm, user_text
from pi_cli.store.jsonl import Entry
from pi_cli.store.manager import SessionManager, message_from_entry

BRANCH_SUMMARY_PREAMBLE = (
    "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"
)

BRANCH_SUMMARY_PROMPT = """Write a structured summary of this conversation branch,
to be read when the user comes back to it.

Use exactly this format:

## Goal
[What the user wanted to achieve in this branch]

## Constraints & Preferences
- [Constraints, preferences or requirements mentioned, or "(none)"]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work begun but not finished]

### Blocked
- [Anything preventing progress]

## Key Decisions
- **[Decision]**: [Short reason]

## Next Steps
1. [What should happen next to continue this work]

Keep every section short. Keep file paths, function names and error messages exactly as written."""


def collect_entries_for_branch_summary(
    manager: SessionManager, old_leaf_id: str | None, target_id: str
) -> tuple[list[Entry], str | None]:
    """(entries from the old leaf back to the common ancestor, oldest first; the ancestor's id)."""
    if not old_leaf_id:
        return [], None
    old_path = {e["id"] for e in manager.iter_branch(old_leaf_id)}
    ancestor = next((e["id"] for e in manager.iter_branch(target_id) if e["id"] in old_path), None)
    entries = _until(manager, old_leaf_id, ancestor)
    entries.reverse()
    return entries, ancestor


def _until(manager: SessionManager, leaf_id: str, stop_id: str | None) -> list[Entry]:
    out = []
    for entry in manager.iter_branch(leaf_id):
        if entry["id"] == stop_id:
            break
        out.append(entry)
    return out


def prepare_branch_entries(entries: list[Entry], token_budget: int = 0) -> tuple[list[dict[str, Any]], FileOps]:
    """Messages to summarise, newest kept first within ``token_budget`` (0 = no limit); tool results
    are left out (the calls say enough). File lists also come from nested summaries' details."""
    ops = FileOps()
    for entry in entries:
        if entry.get("type") == "branch_summary" and not entry.get("fromHook"):
            ops.add_details(entry.get("details"))
    messages: list[dict[str, Any]] = []
    total = 0
    for entry in reversed(entries):
        if entry.get("type") == "message" and entry["message"].get("role") == "toolResult":
            continue
        message = message_from_entry(entry)
        if message is None:
            continue
        ops.add_from_message(message)
        tokens = estimate_tokens(message)
        if token_budget > 0 and total + tokens > token_budget:
            # A summary is dense context: squeeze it in if the budget is not nearly used up.
            if entry.get("type") in ("compaction", "branch_summary") and total < token_budget * 0.9:
                messages.insert(0, message)
            break
        messages.insert(0, message)
        total += tokens
    return messages, ops


@dataclass(slots=True)
class BranchSummary:
    summary: str
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)

    @property
    def details(self) -> dict[str, list[str]]:
        return {"readFiles": self.read_files, "modifiedFiles": self.modified_files}


async def generate_branch_summary(
    entries: list[Entry], model: Model, *, api_key: str | None = None, headers: dict[str, str] | None = None,
    signal: AbortSignal | None = None, custom_instructions: str | None = None,
    replace_instructions: bool = False, reserve_tokens: int = 16384,
) -> BranchSummary:  # fmt: skip
    """Summarise abandoned entries; raises CompactionAbortedError / CompactionError on abort / failure."""
    budget = int(model.get("contextWindow") or 128000) - reserve_tokens
    messages, ops = prepare_branch_entries(entries, budget)
    if not messages:
        return BranchSummary("No content to summarize")
    if replace_instructions and custom_instructions:
        instructions = custom_instructions
    elif custom_instructions:
        instructions = f"{BRANCH_SUMMARY_PROMPT}\n\nAdditional focus: {custom_instructions}"
    else:
        instructions = BRANCH_SUMMARY_PROMPT
    text = f"<conversation>\n{serialize_conversation(convert_to_llm(messages))}\n</conversation>\n\n{instructions}"
    body = await summarise_text(text, model, None, api_key, headers, signal, None, "Branch summarization")
    read_files, modified_files = ops.lists()
    summary = BRANCH_SUMMARY_PREAMBLE + body + format_file_operations(read_files, modified_files)
    return BranchSummary(summary, read_files, modified_files)


@dataclass(slots=True)
class TreeNavigation:
    """Outcome of :func:`navigate_tree`: text to put back in the editor (when a user message was
    picked), the leaf before and after, the id of the branch summary entry if one was written and
    whether its text came from the ``before`` hook (an extension)."""

    editor_text: str | None = None
    summary_entry_id: str | None = None
    cancelled: bool = False
    aborted: bool = False  # the summariser was aborted (``cancelled`` alone: an extension said no)
    old_leaf_id: str | None = None
    new_leaf_id: str | None = None
    from_extension: bool = False
    moved: bool = False


# ``before`` gets pi's ``preparation`` dict and answers None or a dict: ``cancel``, ``summary``
# ({summary, details?}), or overrides of ``customInstructions`` / ``replaceInstructions`` / ``label``.
TreeHook = Callable[[dict[str, Any]], Awaitable[Any]]


async def navigate_tree(
    manager: SessionManager, target_id: str, *, summarize: bool = False, model: Model | None = None,
    api_key: str | None = None, headers: dict[str, str] | None = None, signal: AbortSignal | None = None,
    custom_instructions: str | None = None, replace_instructions: bool = False,
    reserve_tokens: int = 16384, label: str | None = None, before: TreeHook | None = None,
) -> TreeNavigation:  # fmt: skip
    """Move to ``target_id`` as pi's ``/tree`` does: picking a user (or custom) message moves the
    leaf to its parent and returns its text for the editor; anything else becomes the leaf. With
    ``summarize`` the abandoned branch is summarised first; an abort returns ``cancelled`` and
    ``aborted`` and changes nothing. ``before`` (extensions' ``session_before_tree``) runs after
    the checks and may cancel (``cancelled`` alone), supply the summary (used only with
    ``summarize``) or override the instructions and label. Afterwards give the agent
    ``manager.build_context().messages``."""
    old_leaf = manager.get_leaf_id()
    if target_id == old_leaf:
        return TreeNavigation(old_leaf_id=old_leaf, new_leaf_id=old_leaf)
    if summarize and model is None:
        raise ValueError("No model available for summarization")
    target = manager.get_entry(target_id)
    if target is None:
        raise KeyError(f"Entry {target_id} not found")
    entries, ancestor = collect_entries_for_branch_summary(manager, old_leaf, target_id)
    summary: tuple[str, Any, bool] | None = None  # (text, details, from the hook)
    if before is not None:
        preparation = {
            "targetId": target_id, "oldLeafId": old_leaf, "commonAncestorId": ancestor,
            "entriesToSummarize": entries, "userWantsSummary": summarize,
            "customInstructions": custom_instructions, "replaceInstructions": replace_instructions, "label": label,
        }  # fmt: skip
        answer = await before(preparation)
        if isinstance(answer, dict):
            if answer.get("cancel"):
                return TreeNavigation(cancelled=True, old_leaf_id=old_leaf, new_leaf_id=old_leaf)
            given = answer.get("summary")
            if summarize and isinstance(given, dict) and isinstance(given.get("summary"), str):
                summary = (given["summary"], given.get("details"), True)
            if "customInstructions" in answer:
                custom_instructions = answer["customInstructions"]
            if "replaceInstructions" in answer:
                replace_instructions = bool(answer["replaceInstructions"])
            if "label" in answer:
                label = answer["label"]
    if summarize and summary is None and entries:
        assert model is not None  # checked above
        try:
            made = await generate_branch_summary(
                entries, model, api_key=api_key, headers=headers, signal=signal,
                custom_instructions=custom_instructions, replace_instructions=replace_instructions,
                reserve_tokens=reserve_tokens,
            )  # fmt: skip
        except CompactionAbortedError:
            return TreeNavigation(cancelled=True, aborted=True, old_leaf_id=old_leaf, new_leaf_id=old_leaf)
        summary = (made.summary, made.details, False)
    editor_text: str | None = None
    new_leaf: str | None
    if target.get("type") == "message" and target["message"].get("role") == "user":
        new_leaf = target.get("parentId")
        editor_text = user_text(target["message"])
    elif target.get("type") == "custom_message":
        new_leaf = target.get("parentId")
        editor_text = user_text(target)
    else:
        new_leaf = target_id
    result = TreeNavigation(editor_text=editor_text, old_leaf_id=old_leaf, moved=True)
    if summary is not None:
        text, details, from_extension = summary
        result.summary_entry_id = manager.branch_with_summary(new_leaf, text, details, from_extension)
        result.from_extension = from_extension
        if label:
            manager.append_label_change(result.summary_entry_id, label)
    else:
        if new_leaf is None:
            manager.reset_leaf()
        else:
            manager.branch(new_leaf)
        if label:
            manager.append_label_change(target_id, label)
    result.new_leaf_id = manager.get_leaf_id()
    return result
