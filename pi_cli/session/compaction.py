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
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.types import Model
from pi_cli.session.entry_messages import convert_to_llm
from pi_cli.session.manager import SessionManager, build_session_context, message_from_entry
from pi_cli.session.store import Entry, iso_to_ms

TOOL_RESULT_MAX_CHARS = 2000
IMAGE_CHARS = 4800  # an image counts as 1,200 tokens

SUMMARIZATION_SYSTEM_PROMPT = (
    "You summarise conversations between a user and an AI coding assistant. Read the conversation "
    "and write a structured summary in exactly the requested format.\n\n"
    "Do not continue the conversation and do not answer any question in it. Output only the summary."
)

_SECTIONS = """## Goal
[{goal}]

## Constraints & Preferences
- [{constraints}]

## Progress
### Done
- [x] [{done}]

### In Progress
- [ ] [{in_progress}]

### Blocked
- [{blocked}]

## Key Decisions
- **[Decision]**: [{decisions}]

## Next Steps
1. [{next_steps}]

## Critical Context
- [{critical}]

Keep every section short. Keep file paths, function names and error messages exactly as written."""

SUMMARIZATION_PROMPT = (
    "The messages above are the conversation to summarise. Write a structured checkpoint summary "
    "that another model can use to carry on the work.\n\nUse exactly this format:\n\n"
    + _SECTIONS.format(
        goal="What the user wants to achieve; list several goals if the session covered several tasks",
        constraints="Constraints, preferences or requirements the user stated, or \"(none)\"",
        done="Finished tasks and changes",
        in_progress="Work under way",
        blocked="Anything preventing progress",
        decisions="Short reason",
        next_steps="What should happen next, in order",
        critical="Data, examples or references needed to continue, or \"(none)\"",
    )
)

UPDATE_SUMMARIZATION_PROMPT = (
    "The messages above are NEW messages to fold into the existing summary given in <previous-summary> "
    "tags.\n\nUpdate that summary. Rules:\n"
    "- KEEP everything still relevant from the previous summary\n"
    "- ADD the new progress, decisions and context\n"
    "- MOVE items from \"In Progress\" to \"Done\" once they are finished\n"
    "- REVISE \"Next Steps\" to match what was done\n"
    "- KEEP file paths, function names and error messages exactly\n"
    "- DROP what no longer matters\n\nUse exactly this format:\n\n"
    + _SECTIONS.format(
        goal="Keep the existing goals; add new ones if the task grew",
        constraints="Keep the existing ones; add newly found ones",
        done="Earlier finished items plus the newly finished ones",
        in_progress="Current work, updated",
        blocked="Current blockers; remove resolved ones",
        decisions="Short reason (keep earlier decisions, add new ones)",
        next_steps="Updated for the current state",
        critical="Keep what matters, add what is new",
    )
)

TURN_PREFIX_SUMMARIZATION_PROMPT = """This is the FIRST PART of a turn too large to keep whole.
The later part (the recent work) is kept.

Summarise this first part so the kept part makes sense:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Important decisions and work in this part]

## Context for Suffix
- [What is needed to understand the kept recent work]

Be brief; focus on what the kept part needs."""


class CompactionError(Exception):
    """Compaction could not run or failed; the message is user-facing (e.g. ``Already compacted``)."""


class CompactionAbortedError(CompactionError):
    """The compaction was cancelled through its abort signal; nothing was written."""


# --- settings -------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class CompactionSettings:
    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000

    @classmethod
    def from_any(cls, source: Any) -> CompactionSettings:
        """From pi_cli's ``Settings`` (or its ``compaction`` section), a camelCase dict, or None."""
        if source is None:
            return cls()
        if isinstance(source, CompactionSettings):
            return source
        section = getattr(source, "compaction", source)
        if isinstance(section, dict):
            reserve: Any = section.get("reserveTokens", section.get("reserve_tokens", 16384))
            keep: Any = section.get("keepRecentTokens", section.get("keep_recent_tokens", 20000))
            return cls(bool(section.get("enabled", True)), int(reserve), int(keep))
        return cls(
            bool(getattr(section, "enabled", True)),
            int(getattr(section, "reserve_tokens", 16384)),
            int(getattr(section, "keep_recent_tokens", 20000)),
        )


# --- token estimates ------------------------------------------------------------------------


def _ceil_div4(chars: int) -> int:
    return -(-chars // 4)


def estimate_tokens(message: dict[str, Any]) -> int:
    """pi's conservative chars/4 estimate of one message; images count 1,200 tokens."""
    role = message.get("role")
    chars = 0
    if role == "user":
        content = message.get("content")
        if isinstance(content, str):
            chars = len(content)
        else:
            chars = sum(len(b.get("text") or "") for b in content or [] if b.get("type") == "text")
    elif role == "assistant":
        for block in message.get("content") or []:
            kind = block.get("type")
            if kind == "text":
                chars += len(block.get("text") or "")
            elif kind == "thinking":
                chars += len(block.get("thinking") or "")
            elif kind == "toolCall":
                args = json.dumps(block.get("arguments"), ensure_ascii=False, separators=(",", ":"))
                chars += len(block.get("name") or "") + len(args)
    elif role in ("custom", "toolResult"):
        content = message.get("content")
        if isinstance(content, str):
            chars = len(content)
        else:
            for block in content or []:
                if block.get("type") == "text":
                    chars += len(block.get("text") or "")
                elif block.get("type") == "image":
                    chars += IMAGE_CHARS
    elif role == "bashExecution":
        chars = len(message.get("command") or "") + len(message.get("output") or "")
    elif role in ("branchSummary", "compactionSummary"):
        chars = len(message.get("summary") or "")
    return _ceil_div4(chars)


def calculate_context_tokens(usage: dict[str, Any]) -> int:
    """``totalTokens``, or input+output+cache reads/writes when it is missing."""
    total = int(usage.get("totalTokens") or 0)
    if total:
        return total
    return sum(int(usage.get(k) or 0) for k in ("input", "output", "cacheRead", "cacheWrite"))


def _assistant_usage(message: dict[str, Any]) -> dict[str, Any] | None:
    if message.get("role") != "assistant" or message.get("stopReason") in ("aborted", "error"):
        return None
    usage = message.get("usage")
    return usage if isinstance(usage, dict) else None


@dataclass(slots=True)
class ContextEstimate:
    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: list[dict[str, Any]]) -> ContextEstimate:
    """Last successful assistant usage plus chars/4 for every message after it."""
    for index in range(len(messages) - 1, -1, -1):
        usage = _assistant_usage(messages[index])
        if usage is not None:
            base = calculate_context_tokens(usage)
            trailing = sum(estimate_tokens(m) for m in messages[index + 1 :])
            return ContextEstimate(base + trailing, base, trailing, index)
    estimated = sum(estimate_tokens(m) for m in messages)
    return ContextEstimate(estimated, 0, estimated, None)


def should_compact(context_tokens: int, context_window: int, settings: Any = None) -> bool:
    """True when compaction is enabled and the context passes ``window - reserveTokens``."""
    config = CompactionSettings.from_any(settings)
    return config.enabled and context_tokens > context_window - config.reserve_tokens


# --- cut point ------------------------------------------------------------------------------

_CUTTABLE_ROLES = frozenset({"user", "assistant", "custom", "bashExecution", "branchSummary", "compactionSummary"})


def _is_cut_point(entry: Entry) -> bool:
    kind = entry.get("type")
    if kind == "message":
        return entry["message"].get("role") in _CUTTABLE_ROLES
    return kind in ("branch_summary", "custom_message")


def _starts_turn(entry: Entry) -> bool:
    kind = entry.get("type")
    if kind in ("branch_summary", "custom_message"):
        return True
    return kind == "message" and entry["message"].get("role") in ("user", "bashExecution")


@dataclass(slots=True)
class CutPoint:
    first_kept_entry_index: int
    turn_start_index: int  # -1 unless the cut falls inside a turn
    is_split_turn: bool


def find_turn_start_index(entries: list[Entry], entry_index: int, start_index: int) -> int:
    """Index of the user/bash message (or summary/custom message) that opened the turn holding
    ``entry_index``; -1 if none at or after ``start_index``."""
    for i in range(entry_index, start_index - 1, -1):
        if _starts_turn(entries[i]):
            return i
    return -1


def find_cut_point(entries: list[Entry], start_index: int, end_index: int, keep_recent_tokens: int) -> CutPoint:
    """Where to cut ``entries[start_index:end_index]`` so that about ``keep_recent_tokens`` stay."""
    cut_points = [i for i in range(start_index, end_index) if _is_cut_point(entries[i])]
    if not cut_points:
        return CutPoint(start_index, -1, False)
    cut = cut_points[0]
    accumulated = 0
    for i in range(end_index - 1, start_index - 1, -1):
        entry = entries[i]
        if entry.get("type") != "message":
            continue
        accumulated += estimate_tokens(entry["message"])
        if accumulated >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut)
            break
    # Settings changes and other bookkeeping right before the cut travel with the kept part.
    while cut > start_index:
        previous = entries[cut - 1]
        if previous.get("type") in ("compaction", "message"):
            break
        cut -= 1
    cut_entry = entries[cut]
    is_user = cut_entry.get("type") == "message" and cut_entry["message"].get("role") == "user"
    turn_start = -1 if is_user else find_turn_start_index(entries, cut, start_index)
    return CutPoint(cut, turn_start, not is_user and turn_start != -1)


# --- file operations ------------------------------------------------------------------------


@dataclass(slots=True)
class FileOps:
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)

    def add_from_message(self, message: dict[str, Any]) -> None:
        """Record the ``path`` of read/write/edit tool calls in an assistant message."""
        if message.get("role") != "assistant":
            return
        for block in message.get("content") or []:
            if not isinstance(block, dict) or block.get("type") != "toolCall":
                continue
            path = (block.get("arguments") or {}).get("path")
            if not isinstance(path, str) or not path:
                continue
            target = {"read": self.read, "write": self.written, "edit": self.edited}.get(block.get("name", ""))
            if target is not None:
                target.add(path)

    def add_details(self, details: Any) -> None:
        """Carry forward the lists stored in an earlier summary's ``details``."""
        if not isinstance(details, dict):
            return
        for path in details.get("readFiles") or []:
            self.read.add(str(path))
        for path in details.get("modifiedFiles") or []:
            self.edited.add(str(path))

    def lists(self) -> tuple[list[str], list[str]]:
        """(files only read, files modified), both sorted."""
        modified = self.edited | self.written
        return sorted(self.read - modified), sorted(modified)


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


# --- serialisation --------------------------------------------------------------------------


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[... {len(text) - limit} more characters truncated]"


def serialize_conversation(messages: list[Any]) -> str:
    """LLM messages as labelled plain text, so the summariser reads them instead of continuing
    them. Tool results are cut to 2,000 characters."""
    parts: list[str] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            content = message.get("content")
            text = content if isinstance(content, str) else "".join(
                b.get("text", "") for b in content or [] if b.get("type") == "text"
            )
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            texts: list[str] = []
            thinking: list[str] = []
            calls: list[str] = []
            for block in message.get("content") or []:
                kind = block.get("type")
                if kind == "text":
                    texts.append(block.get("text", ""))
                elif kind == "thinking":
                    thinking.append(block.get("thinking", ""))
                elif kind == "toolCall":
                    args = ", ".join(
                        f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in (block.get("arguments") or {}).items()
                    )
                    calls.append(f"{block.get('name', '')}({args})")
            if thinking:
                parts.append("[Assistant thinking]: " + "\n".join(thinking))
            if texts:
                parts.append("[Assistant]: " + "\n".join(texts))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif role == "toolResult":
            text = "".join(b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text")
            if text:
                parts.append(f"[Tool result]: {_truncate(text, TOOL_RESULT_MAX_CHARS)}")
    return "\n\n".join(parts)


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

    def to_json(self) -> dict[str, Any]:
        """pi's shape, as in ``compaction_end.result`` and the RPC ``compact`` response."""
        return {
            "summary": self.summary,
            "firstKeptEntryId": self.first_kept_entry_id,
            "tokensBefore": self.tokens_before,
            "details": self.details,
        }


def _messages(entries: list[Entry]) -> list[dict[str, Any]]:
    out = []
    for entry in entries:
        message = message_from_entry(entry, include_compaction=False)
        if message is not None:
            out.append(message)
    return out


def prepare_compaction(path: list[Entry], settings: Any = None) -> CompactionPreparation | None:
    """Plan a compaction of a root → leaf path; None if the path ends in a compaction already or
    nothing can be cut."""
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
    to_summarize = _messages(path[start:history_end])
    prefix = _messages(path[cut.turn_start_index : cut.first_kept_entry_index]) if cut.is_split_turn else []
    ops = FileOps()
    if previous_index >= 0 and not path[previous_index].get("fromHook"):
        ops.add_details(path[previous_index].get("details"))
    for message in (*to_summarize, *prefix):
        ops.add_from_message(message)
    return CompactionPreparation(
        first_kept, to_summarize, prefix, cut.is_split_turn, tokens_before, previous_summary, ops, config
    )


# --- summarising ----------------------------------------------------------------------------


async def summarise_text(
    prompt_text: str, model: Model, max_tokens: int, api_key: str | None, headers: dict[str, str] | None,
    signal: AbortSignal | None, thinking_level: str | None, what: str,
) -> str:  # fmt: skip
    from pi_cli.ai.stream import complete

    options = StreamOptions(api_key=api_key, signal=signal, max_tokens=max_tokens, headers=dict(headers or {}))
    if model.get("reasoning") and thinking_level and thinking_level != "off":
        options.reasoning = thinking_level  # type: ignore[assignment]
    context: Any = {
        "systemPrompt": SUMMARIZATION_SYSTEM_PROMPT,
        "messages": [{"role": "user", "content": [{"type": "text", "text": prompt_text}], "timestamp": 0}],
    }
    response = await complete(model, context, options)
    if response["stopReason"] == "aborted" or (signal is not None and signal.aborted):
        raise CompactionAbortedError("Compaction cancelled")
    if response["stopReason"] == "error":
        raise CompactionError(f"{what} failed: {response.get('errorMessage') or 'Unknown error'}")
    return "\n".join(b["text"] for b in response["content"] if b["type"] == "text")


async def generate_summary(
    messages: list[dict[str, Any]], model: Model, reserve_tokens: int, api_key: str | None = None,
    headers: dict[str, str] | None = None, signal: AbortSignal | None = None,
    custom_instructions: str | None = None, previous_summary: str | None = None, thinking_level: str | None = None,
) -> str:  # fmt: skip
    """Summarise ``messages`` (merging into ``previous_summary`` when given)."""
    instructions = UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    if custom_instructions:
        instructions += f"\n\nAdditional focus: {custom_instructions}"
    text = f"<conversation>\n{serialize_conversation(convert_to_llm(messages))}\n</conversation>\n\n"
    if previous_summary:
        text += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    text += instructions
    return await summarise_text(
        text, model, int(0.8 * reserve_tokens), api_key, headers, signal, thinking_level, "Summarization"
    )


async def compact(
    preparation: CompactionPreparation, model: Model, api_key: str | None = None,
    headers: dict[str, str] | None = None, custom_instructions: str | None = None,
    signal: AbortSignal | None = None, thinking_level: str | None = None,
) -> CompactionResult:  # fmt: skip
    """Produce the summary for a prepared compaction (two requests in parallel for a split turn)."""
    prep = preparation
    reserve = prep.settings.reserve_tokens
    if prep.is_split_turn and prep.turn_prefix_messages:

        async def history() -> str:
            if not prep.messages_to_summarize:
                return "No prior history."
            return await generate_summary(
                prep.messages_to_summarize, model, reserve, api_key, headers, signal,
                custom_instructions, prep.previous_summary, thinking_level,
            )  # fmt: skip

        prefix_text = (
            f"<conversation>\n{serialize_conversation(convert_to_llm(prep.turn_prefix_messages))}\n</conversation>\n\n"
            + TURN_PREFIX_SUMMARIZATION_PROMPT
        )
        prefix = summarise_text(
            prefix_text, model, int(0.5 * reserve), api_key, headers, signal, thinking_level,
            "Turn prefix summarization",
        )  # fmt: skip
        history_summary, prefix_summary = await asyncio.gather(history(), prefix)
        summary = f"{history_summary}\n\n---\n\n**Turn Context (split turn):**\n\n{prefix_summary}"
    else:
        summary = await generate_summary(
            prep.messages_to_summarize, model, reserve, api_key, headers, signal,
            custom_instructions, prep.previous_summary, thinking_level,
        )  # fmt: skip
    read_files, modified_files = prep.file_ops.lists()
    summary += format_file_operations(read_files, modified_files)
    details = {"readFiles": read_files, "modifiedFiles": modified_files}
    return CompactionResult(summary, prep.first_kept_entry_id, prep.tokens_before, details)


async def run_compaction(
    manager: SessionManager, model: Model, settings: Any = None, *, api_key: str | None = None,
    headers: dict[str, str] | None = None, custom_instructions: str | None = None,
    signal: AbortSignal | None = None, thinking_level: str | None = None,
) -> CompactionResult:  # fmt: skip
    """Compact the active branch and append the ``compaction`` entry. Afterwards give the agent
    ``manager.build_context().messages``. Raises :class:`CompactionError` with pi's messages
    (``Already compacted``, ``Nothing to compact (session too small)``, ``Summarization failed: …``)
    or :class:`CompactionAbortedError`; in both cases the session is unchanged."""
    path = manager.get_branch()
    preparation = prepare_compaction(path, settings)
    if preparation is None:
        if path and path[-1].get("type") == "compaction":
            raise CompactionError("Already compacted")
        raise CompactionError("Nothing to compact (session too small)")
    result = await compact(preparation, model, api_key, headers, custom_instructions, signal, thinking_level)
    if signal is not None and signal.aborted:
        raise CompactionAbortedError("Compaction cancelled")
    manager.append_compaction(
        result.summary, result.first_kept_entry_id, result.tokens_before, result.details, from_hook=False
    )
    return result


# --- when to compact (pi's check after each agent run) -----------------------------------


def latest_compaction(path: list[Entry]) -> Entry | None:
    return next((e for e in reversed(path) if e.get("type") == "compaction"), None)


def compaction_trigger(
    assistant: dict[str, Any], messages: list[dict[str, Any]], model: Model | None, manager: SessionManager,
    settings: Any = None, *, overflow_attempted: bool = False, skip_aborted: bool = True,
) -> str | None:  # fmt: skip
    """What pi's AgentSession decides after ``agent_end`` (and before a new prompt, with
    ``skip_aborted=False``): ``"overflow"`` (drop the error message from the agent's messages,
    compact, then continue), ``"threshold"`` (compact, no automatic continuation) or None.

    ``messages`` are the agent's current messages; ``overflow_attempted`` is True when this user
    message already had its one compact-and-retry (then overflow gives None; pi reports
    ``Context overflow recovery failed after one compact-and-retry attempt. ...``)."""
    from pi_cli.ai.overflow import is_context_overflow

    config = CompactionSettings.from_any(settings)
    if not config.enabled or model is None:
        return None
    if skip_aborted and assistant.get("stopReason") == "aborted":
        return None
    window = int(model.get("contextWindow") or 0)
    compaction = latest_compaction(manager.get_branch())
    compacted_at = compaction and iso_to_ms(compaction.get("timestamp"))
    # Usage measured before the latest compaction describes the old, larger context.
    if compacted_at and int(assistant.get("timestamp") or 0) <= compacted_at:
        return None
    same_model = assistant.get("provider") == model.get("provider") and assistant.get("model") == model.get("id")
    if same_model and is_context_overflow(assistant, window):
        return None if overflow_attempted else "overflow"
    if assistant.get("stopReason") == "error":
        estimate = estimate_context_tokens(messages)
        if estimate.last_usage_index is None:
            return None
        source = messages[estimate.last_usage_index]
        if compacted_at and int(source.get("timestamp") or 0) <= compacted_at:
            return None
        tokens = estimate.tokens
    else:
        tokens = calculate_context_tokens(assistant.get("usage") or {})
    return "threshold" if should_compact(tokens, window, config) else None


OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)
