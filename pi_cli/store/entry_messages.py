"""The coding agent's extra message roles and how they reach the model.

Besides ``user``/``assistant``/``toolResult`` the transcript holds:

* ``bashExecution`` — a user's ``!cmd`` run ``{command, output, exitCode, cancelled, truncated,
  fullOutputPath?, excludeFromContext?, timestamp}``;
* ``custom`` — extension/custom messages ``{customType, content, display, details?, timestamp}``;
* ``compactionSummary`` ``{summary, tokensBefore, timestamp}`` and ``branchSummary``
  ``{summary, fromId, timestamp}`` — produced by :meth:`SessionManager.build_context` from
  compaction and branch_summary entries (never stored as message entries).

:func:`convert_to_llm` turns them into user messages with pi's wording; pass it to ``Agent`` as
``convert_to_llm``. Extra roles are plain dicts, so the module is typed loosely on purpose.
"""

from __future__ import annotations

from typing import Any

from pi_cli.ai.types import Message, now_ms
from pi_cli.store.jsonl import iso_to_ms

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"

LLM_ROLES = frozenset({"user", "assistant", "toolResult"})


def compaction_summary_message(summary: str, tokens_before: int, timestamp: str) -> dict[str, Any]:
    """The ``compactionSummary`` message a compaction entry puts in the context."""
    return {
        "role": "compactionSummary",
        "summary": summary,
        "tokensBefore": tokens_before,
        "timestamp": iso_to_ms(timestamp),
    }


def branch_summary_message(summary: str, from_id: str, timestamp: str) -> dict[str, Any]:
    """The ``branchSummary`` message a branch_summary entry puts in the context."""
    return {"role": "branchSummary", "summary": summary, "fromId": from_id, "timestamp": iso_to_ms(timestamp)}


def custom_message(custom_type: str, content: Any, display: bool, details: Any, timestamp: str) -> dict[str, Any]:
    """The ``custom`` message of a custom_message entry (``details`` only when set)."""
    message: dict[str, Any] = {
        "role": "custom",
        "customType": custom_type,
        "content": content,
        "display": display,
        "timestamp": iso_to_ms(timestamp),
    }
    if details is not None:
        message["details"] = details
    return message


def bash_execution_to_text(message: dict[str, Any]) -> str:
    """How a ``!cmd`` run is shown to the model: the command, its output, and how it ended."""
    text = f"Ran `{message.get('command', '')}`\n"
    output = message.get("output") or ""
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif isinstance(exit_code, int) and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


def _as_user(text: str, timestamp: Any) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": int(timestamp or 0)}


def convert_to_llm(messages: list[Any]) -> list[Message]:
    """LLM messages for a request: extra roles become user messages, ``!!`` runs and unknown roles
    are dropped, the three LLM roles pass through unchanged."""
    out: list[Message] = []
    for message in messages:
        role = message.get("role")
        if role in LLM_ROLES:
            out.append(message)
        elif role == "bashExecution":
            if not message.get("excludeFromContext"):
                out.append(_as_user(bash_execution_to_text(message), message.get("timestamp")))
        elif role == "custom":
            content = message.get("content")
            blocks: Any = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
            out.append({"role": "user", "content": blocks, "timestamp": int(message.get("timestamp") or 0)})
        elif role == "branchSummary":
            text = BRANCH_SUMMARY_PREFIX + str(message.get("summary", "")) + BRANCH_SUMMARY_SUFFIX
            out.append(_as_user(text, message.get("timestamp")))
        elif role == "compactionSummary":
            text = COMPACTION_SUMMARY_PREFIX + str(message.get("summary", "")) + COMPACTION_SUMMARY_SUFFIX
            out.append(_as_user(text, message.get("timestamp")))
    return out


def user_text(message: dict[str, Any], separator: str = "") -> str:
    """The text blocks of a message joined by ``separator`` (a string content is returned as is)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return separator.join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def bash_execution_message(
    command: str,
    output: str,
    exit_code: int | None,
    cancelled: bool,
    truncated: bool,
    full_output_path: str | None = None,
    exclude_from_context: bool = False,
) -> dict[str, Any]:
    """A ``bashExecution`` message for a user's ``!cmd`` (``!!cmd`` sets ``excludeFromContext``).

    A run without an exit code (cancelled) has no ``exitCode`` key, as pi writes ``undefined``.
    """
    message: dict[str, Any] = {"role": "bashExecution", "command": command, "output": output}
    if exit_code is not None:
        message["exitCode"] = exit_code
    message.update({"cancelled": cancelled, "truncated": truncated, "timestamp": now_ms()})
    if full_output_path:
        message["fullOutputPath"] = full_output_path
    if exclude_from_context:
        message["excludeFromContext"] = True
    return message
