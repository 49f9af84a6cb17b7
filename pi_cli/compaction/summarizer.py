"""What compaction and branch summaries share: the summariser's input and its one request.

A conversation is handed to the summariser as labelled plain text (:func:`serialize_conversation`)
so that it reads the messages instead of continuing them; :class:`FileOps` collects the files
the summarised part read and changed, listed after the summary. :func:`summarise_text` makes the
non-streamed request and turns an abort or a failure into :class:`CompactionError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.types import Model, js_number
from pi_cli.compaction.prompts import SUMMARIZATION_SYSTEM_PROMPT
from pi_cli.store.entry_messages import user_text

TOOL_RESULT_MAX_CHARS = 2000


class CompactionError(Exception):
    """Compaction could not run or failed; the message is user-facing (e.g. ``Already compacted``)."""


class CompactionAbortedError(CompactionError):
    """The compaction was cancelled through its abort signal; nothing was written."""


@dataclass(slots=True)
class FileOps:
    """Paths the summarised messages read, wrote and edited (from the tools' ``path`` arguments)."""

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
    """The ``<read-files>``/``<modified-files>`` sections appended to a summary ("" when both are empty)."""
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


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
            text = user_text(message)
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
            text = user_text(message)
            if text:
                parts.append(f"[Tool result]: {_truncate(text, TOOL_RESULT_MAX_CHARS)}")
    return "\n\n".join(parts)


async def summarise_text(
    prompt_text: str, model: Model, max_tokens: int | None, api_key: str | None, headers: dict[str, str] | None,
    signal: AbortSignal | None, thinking_level: str | None, what: str, *, usages: list[dict[str, Any]] | None = None,
) -> str:  # fmt: skip
    """Send ``prompt_text`` to the summariser (no tools; ``max_tokens`` None: the model's own output
    limit, as pi 1.6.0 asks for every summary) and return its text.
    The response's ``usage`` is appended to ``usages`` when given (pi reports what a compaction cost).

    Raises :class:`CompactionAbortedError` when ``signal`` aborts and :class:`CompactionError`
    ("<what> failed: …") when the request fails.
    """
    from pi_cli.ai.stream import complete

    if max_tokens is None:  # the cap a normal turn of this model asks for
        from pi_cli.agent.loop import MAX_TOKENS_CAP

        limit = model.get("maxTokens")
        max_tokens = min(limit, MAX_TOKENS_CAP) if isinstance(limit, int) and limit > 0 else None
    options = StreamOptions(api_key=api_key, signal=signal, max_tokens=max_tokens, headers=dict(headers or {}))
    if model.get("reasoning") and thinking_level and thinking_level != "off":
        options.reasoning = thinking_level  # type: ignore[assignment]
    context: Any = {
        "systemPrompt": SUMMARIZATION_SYSTEM_PROMPT,
        "messages": [{"role": "user", "content": [{"type": "text", "text": prompt_text}], "timestamp": 0}],
    }
    response = await complete(model, context, options)
    if usages is not None and isinstance(response.get("usage"), dict):
        usages.append(dict(response["usage"]))
    if response["stopReason"] == "aborted" or (signal is not None and signal.aborted):
        raise CompactionAbortedError("Compaction cancelled")
    if response["stopReason"] == "error":
        raise CompactionError(f"{what} failed: {response.get('errorMessage') or 'Unknown error'}")
    return "\n".join(b["text"] for b in response["content"] if b["type"] == "text")


def combine_usage(usages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The sum of several requests' ``usage`` (pi's combineUsage for a split turn's two summaries):
    numbers add up, nested ``cost`` too; other values come from the first. None for no usage."""
    if not usages:
        return None

    def add(a: Any, b: Any) -> Any:
        if isinstance(a, dict) and isinstance(b, dict):
            return {k: add(a[k], b[k]) if k in a and k in b else a.get(k, b.get(k)) for k in {**a, **b}}
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
            return js_number(a + b)  # 0.5 + 1.5 is written 2, as pi
        return a

    total = usages[0]
    for usage in usages[1:]:
        total = add(total, usage)
    return total
