"""Context compaction: when the context nears the model's window, older history is summarised by
the model and replaced by that summary, keeping roughly ``keepRecentTokens`` of recent messages.

The flow, as in pi:

1. :func:`should_compact` — ``contextTokens > contextWindow - reserveTokens`` (setting ``enabled``);
   context tokens come from the last successful assistant ``usage`` plus a chars/4 estimate of
   anything after it (:func:`estimate_context_tokens`).
2. :func:`prepare_compaction` — on the active branch, after the previous compaction's kept part,
   walk back from the newest message accumulating estimated tokens; cut at the first valid cut
   point (user/assistant/custom/bash message, never a tool result, so a tool call always keeps its
   results) once ``keepRecentTokens`` is reached. Cutting inside a turn also summarises that turn's
   prefix separately.
3. :func:`compact` — one non-streamed summarisation request per part (abortable via the signal);
   read/modified file lists are appended and stored in ``details``.
4. :func:`run_compaction` — the three steps plus appending the ``compaction`` entry; nothing is
   written unless the summary succeeded, so an abort leaves the session as it was.

Token counting and the decision to compact live in :mod:`pi_cli.compaction.budget`, the
summariser's input and request in :mod:`pi_cli.compaction.summarizer`, the prompts in
:mod:`pi_cli.compaction.prompts`; their public names are re-exported here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.types import Model
from pi_cli.compaction.budget import (
    IMAGE_CHARS,
    OVERFLOW_RECOVERY_FAILED,
    CompactionSettings,
    ContextEstimate,
    calculate_context_tokens,
    compaction_trigger,
    estimate_context_tokens,
    estimate_tokens,
    latest_compaction,
    should_compact,
)
from pi_cli.compaction.cut_point import CutPoint, find_cut_point, find_turn_start_index
from pi_cli.compaction.prompts import (
    SUMMARIZATION_PROMPT,
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
)
from pi_cli.compaction.summarizer import (
    TOOL_RESULT_MAX_CHARS,
    CompactionAbortedError,
    CompactionError,
    FileOps,
    combine_usage,
    format_file_operations,
    serialize_conversation,
    summarise_text,
)
from pi_cli.store.context import context_edits, visible_message
from pi_cli.store.entry_messages import convert_to_llm
from pi_cli.store.jsonl import Entry
from pi_cli.store.manager import SessionManager, build_session_context

__all__ = [
    "IMAGE_CHARS",
    "OVERFLOW_RECOVERY_FAILED",
    "SUMMARIZATION_PROMPT",
    "SUMMARIZATION_SYSTEM_PROMPT",
    "TOOL_RESULT_MAX_CHARS",
    "TURN_PREFIX_SUMMARIZATION_PROMPT",
    "UPDATE_SUMMARIZATION_PROMPT",
    "CompactionAbortedError",
    "CompactionError",
    "CompactionPreparation",
    "CompactionResult",
    "CompactionSettings",
    "ContextEstimate",
    "CutPoint",
    "FileOps",
    "calculate_context_tokens",
    "compact",
    "compaction_trigger",
    "estimate_context_tokens",
    "estimate_tokens",
    "find_cut_point",
    "find_turn_start_index",
    "format_file_operations",
    "generate_summary",
    "latest_compaction",
    "prepare_compaction",
    "run_compaction",
    "serialize_conversation",
    "should_compact",
    "summarise_text",
]


# --- preparation ----------------------------------------------------------------------------


@dataclass(slots=True)
class CompactionPreparation:
    first_kept_entry_id: str
    messages_to_summarize: list[dict[str, Any]]
    turn_prefix_messages: list[dict[str, Any]]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOps
    settings: CompactionSettings


@dataclass(slots=True)
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, list[str]]
    from_hook: bool = False  # supplied by an extension's session_before_compact handler
    usage: dict[str, Any] | None = None  # what the summary requests cost (None: no request made)
    estimated_tokens_after: int | None = None  # the context's estimate once compacted (set by the session)

    def to_json(self) -> dict[str, Any]:
        """pi's shape, as in ``compaction_end.result`` and the RPC ``compact`` response:
        ``{summary, firstKeptEntryId, tokensBefore, estimatedTokensAfter?, usage?, details}``."""
        out: dict[str, Any] = {
            "summary": self.summary,
            "firstKeptEntryId": self.first_kept_entry_id,
            "tokensBefore": self.tokens_before,
        }
        if self.estimated_tokens_after is not None:
            out["estimatedTokensAfter"] = self.estimated_tokens_after
        if self.usage is not None:
            out["usage"] = self.usage
        out["details"] = self.details
        return out


def preparation_json(preparation: CompactionPreparation) -> dict[str, Any]:
    """pi's ``preparation`` fields of ``session_before_compact``."""
    return {
        "firstKeptEntryId": preparation.first_kept_entry_id,
        "messagesToSummarize": preparation.messages_to_summarize,
        "turnPrefixMessages": preparation.turn_prefix_messages,
        "isSplitTurn": preparation.is_split_turn,
        "tokensBefore": preparation.tokens_before,
        "previousSummary": preparation.previous_summary,
    }


def _messages(entries: list[Entry], edits: dict[str, Entry]) -> list[dict[str, Any]]:
    """The messages ``entries`` show in the context (``edits`` applied), for the summariser."""
    out = []
    for entry in entries:
        message = visible_message(entry, edits) if entry.get("type") != "compaction" else None
        if message is not None:
            out.append(message)
    return out


def prepare_compaction(path: list[Entry], settings: Any = None) -> CompactionPreparation | None:
    """Plan a compaction of a root → leaf path; None if the path ends in a compaction already,
    nothing can be cut, or nothing would be summarised (the whole context is kept)."""
    config = CompactionSettings.from_any(settings)
    if path and path[-1].get("type") == "compaction":
        return None
    previous_index = next((i for i in range(len(path) - 1, -1, -1) if path[i].get("type") == "compaction"), -1)
    previous_summary: str | None = None
    start = 0
    if previous_index >= 0:
        previous = path[previous_index]
        previous_summary = previous.get("summary")
        kept = next((i for i, e in enumerate(path) if e.get("id") == previous.get("firstKeptEntryId")), -1)
        start = kept if kept >= 0 else previous_index + 1
    tokens_before = estimate_context_tokens(build_session_context(path).messages).tokens
    cut = find_cut_point(path, start, len(path), config.keep_recent_tokens)
    if cut.first_kept_entry_index >= len(path):
        return None
    first_kept = path[cut.first_kept_entry_index].get("id")
    if not isinstance(first_kept, str):
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    edits = context_edits(path)
    to_summarize = _messages(path[start:history_end], edits)
    prefix = _messages(path[cut.turn_start_index : cut.first_kept_entry_index], edits) if cut.is_split_turn else []
    # pi 1.6.0: a branch whose whole context fits in keep_recent_tokens has nothing before the cut,
    # so there is nothing to summarise; the caller reports "Nothing to compact (session too small)".
    if not to_summarize and not prefix:
        return None
    ops = FileOps()
    if previous_index >= 0 and not path[previous_index].get("fromHook"):
        ops.add_details(path[previous_index].get("details"))
    for message in (*to_summarize, *prefix):
        ops.add_from_message(message)
    return CompactionPreparation(
        first_kept, to_summarize, prefix, cut.is_split_turn, tokens_before, previous_summary, ops, config
    )


# --- summarising ----------------------------------------------------------------------------


async def generate_summary(
    messages: list[dict[str, Any]], model: Model, reserve_tokens: int, api_key: str | None = None,
    headers: dict[str, str] | None = None, signal: AbortSignal | None = None,
    custom_instructions: str | None = None, previous_summary: str | None = None, thinking_level: str | None = None,
    *, usages: list[dict[str, Any]] | None = None,
) -> str:  # fmt: skip
    """Summarise ``messages`` (merging into ``previous_summary`` when given); the request's usage
    joins ``usages`` when given."""
    instructions = UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    if custom_instructions:
        instructions += f"\n\nAdditional focus: {custom_instructions}"
    text = f"<conversation>\n{serialize_conversation(convert_to_llm(messages))}\n</conversation>\n\n"
    if previous_summary:
        text += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    text += instructions
    return await summarise_text(
        text, model, None, api_key, headers, signal, thinking_level, "Summarization",
        usages=usages,
    )  # fmt: skip


async def compact(
    preparation: CompactionPreparation, model: Model, api_key: str | None = None,
    headers: dict[str, str] | None = None, custom_instructions: str | None = None,
    signal: AbortSignal | None = None, thinking_level: str | None = None,
) -> CompactionResult:  # fmt: skip
    """Produce the summary for a prepared compaction (two requests in parallel for a split turn);
    the result's ``usage`` is what the summary requests cost, added up as pi does."""
    prep = preparation
    reserve = prep.settings.reserve_tokens
    usages: list[dict[str, Any]] = []
    if prep.is_split_turn and prep.turn_prefix_messages:

        async def history() -> str:
            if not prep.messages_to_summarize:  # pi: the previous summary carries over as it is
                return prep.previous_summary or "No prior history."
            return await generate_summary(
                prep.messages_to_summarize, model, reserve, api_key, headers, signal,
                custom_instructions, prep.previous_summary, thinking_level, usages=usages,
            )  # fmt: skip

        # pi 1.6.0's turn-prefix request: markdown headings, not tags, and the custom focus too.
        prefix_text = (
            f"# Conversation\n{serialize_conversation(convert_to_llm(prep.turn_prefix_messages))}\n\n"
            f"# Instructions\n{TURN_PREFIX_SUMMARIZATION_PROMPT}"
        )
        if custom_instructions:
            prefix_text += f"\n\nAdditional focus: {custom_instructions}"
        prefix = summarise_text(
            prefix_text, model, None, api_key, headers, signal, thinking_level,
            "Turn prefix summarization", usages=usages,
        )  # fmt: skip
        history_summary, prefix_summary = await asyncio.gather(history(), prefix)
        summary = f"{history_summary}\n\n---\n\n**Turn Context (split turn):**\n\n{prefix_summary}"
    else:
        summary = await generate_summary(
            prep.messages_to_summarize, model, reserve, api_key, headers, signal,
            custom_instructions, prep.previous_summary, thinking_level, usages=usages,
        )  # fmt: skip
    read_files, modified_files = prep.file_ops.lists()
    summary += format_file_operations(read_files, modified_files)
    details = {"readFiles": read_files, "modifiedFiles": modified_files}
    return CompactionResult(summary, prep.first_kept_entry_id, prep.tokens_before, details, usage=combine_usage(usages))


async def run_compaction(
    manager: SessionManager, model: Model, settings: Any = None, *, api_key: str | None = None,
    headers: dict[str, str] | None = None, custom_instructions: str | None = None,
    signal: AbortSignal | None = None, thinking_level: str | None = None,
    before: Callable[[dict[str, Any], list[Entry]], Awaitable[Any]] | None = None,
) -> CompactionResult:  # fmt: skip
    """Compact the active branch and append the ``compaction`` entry. Afterwards give the agent
    ``manager.build_context().messages``. Raises :class:`CompactionError` with pi's messages
    (``Already compacted``, ``Nothing to compact (session too small)``, ``Summarization failed: …``)
    or :class:`CompactionAbortedError`; in both cases the session is unchanged. ``before`` (extensions'
    ``session_before_compact``) gets pi's preparation JSON and the branch; it may answer
    ``{"cancel": True}`` or ``{"compaction": {summary, firstKeptEntryId?, tokensBefore?, details?}}``."""
    path = manager.get_branch()
    preparation = prepare_compaction(path, settings)
    if preparation is None:
        if path and path[-1].get("type") == "compaction":
            raise CompactionError("Already compacted")
        raise CompactionError("Nothing to compact (session too small)")
    decision = await before(preparation_json(preparation), path) if before is not None else None
    if isinstance(decision, dict) and decision.get("cancel"):
        raise CompactionAbortedError("Compaction cancelled")
    custom = decision.get("compaction") if isinstance(decision, dict) else None
    if isinstance(custom, dict) and isinstance(custom.get("summary"), str):
        result = CompactionResult(
            custom["summary"],
            str(custom.get("firstKeptEntryId") or preparation.first_kept_entry_id),
            int(custom.get("tokensBefore") or preparation.tokens_before),
            details if isinstance(details := custom.get("details"), dict) else {},
            from_hook=True,
            usage=usage if isinstance(usage := custom.get("usage"), dict) else None,
        )
    else:
        result = await compact(preparation, model, api_key, headers, custom_instructions, signal, thinking_level)
    if signal is not None and signal.aborted:
        raise CompactionAbortedError("Compaction cancelled")
    manager.append_compaction(
        result.summary, result.first_kept_entry_id, result.tokens_before, result.details,
        from_hook=result.from_hook, usage=result.usage,
    )  # fmt: skip
    return result
