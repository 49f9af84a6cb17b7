"""Extension events raised by session operations that a handler may take over (issue 13).

``user_bash``: the user's ``!``/``!!`` command, before it runs. Handlers run in load order; the first
that returns ``{"result": {output, exitCode, cancelled, truncated}}`` answers for the command (it is
not executed), or ``{"operations": ...}`` runs it through that backend (pi's BashOperations, e.g.
SSH); later handlers are skipped. A raising handler is reported and skipped.

``session_before_compact``: ``{preparation, branchEntries, customInstructions, reason, willRetry}``;
the first handler answering ``{"cancel": True}`` or ``{"compaction": {...}}`` decides.

``session_before_switch`` ``{reason: "new" | "resume", targetSessionFile?}`` and
``session_before_fork`` ``{entryId, position: "before" | "at"}`` (``/fork`` forks before a user
message, ``/clone`` at the leaf): the first ``{"cancel": True}`` stops the operation and later
handlers do not run; any other answer lets it go on (pi's ``skipConversationRestore`` is not
supported: the fork always restores the conversation).

``before_provider_request`` ``{payload}``: just before each request of the conversation is sent
(with the body the provider built). Handlers chain in load order: a dict answer replaces the
payload for later handlers and for the request; None keeps it. ``after_provider_response``
``{status, headers}`` follows once the provider has answered with an event stream.

``message_end`` ``{message}``: before the session records a finished message (every role), handlers
chain in load order: an answer ``{"message": ...}`` of the same role replaces it for later handlers
and for everything after (the agent's state, listeners, the session file); another role is
reported and ignored.

``provider_stream_event`` ``{data, provider, api, model}``: each stream event of a
request before it is normalised (notification only; handlers are awaited in stream order).

``resources_discover`` ``{cwd, reason: "startup"}``: after the first ``session_start``; every
handler's ``{skillPaths, promptPaths, themePaths}`` lists are gathered (pi_cli has no themes yet:
``themePaths`` are ignored).

``session_before_tree``: ``{preparation, signal}`` before ``/tree`` moves the leaf. As pi's session
``before`` events: a ``{"cancel": True}`` answer stops at once; otherwise the last non-empty answer
is the one used (``summary``, ``customInstructions``, ``replaceInstructions``, ``label``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, Protocol


class EventRunner(Protocol):
    """What these functions need of :class:`~pi_cli.extensions.runner.ExtensionRunner`."""

    handlers: dict[str, list[Any]]

    def answers(self, event: dict[str, Any]) -> AsyncIterator[Any]: ...

    async def call(self, entry: Any, event: dict[str, Any]) -> Any: ...

    def report(self, source: str, event: str, exc: BaseException) -> None: ...


async def intercept_user_bash(
    runner: EventRunner, command: str, exclude_from_context: bool, cwd: str
) -> dict[str, Any] | None:
    """pi's ``user_bash`` payload ``{command, excludeFromContext, cwd}``; returns the first
    handler's answer that takes the command over — ``{"result": BashResult}`` (recorded, not
    run) or ``{"operations": spec}`` (run through that backend) — or None to run it locally."""
    event = {"type": "user_bash", "command": command, "excludeFromContext": exclude_from_context, "cwd": cwd}
    async for answer in runner.answers(event):
        if isinstance(answer, dict) and isinstance(answer.get("result"), dict):
            return {"result": dict(answer["result"])}
        if isinstance(answer, dict) and answer.get("operations") is not None:
            return {"operations": answer["operations"]}
    return None


async def before_compact(runner: EventRunner, event: dict[str, Any]) -> dict[str, Any] | None:
    """Run ``session_before_compact`` handlers; the first cancel / custom compaction wins."""
    event = {"type": "session_before_compact", **event}
    async for answer in runner.answers(event):
        if isinstance(answer, dict) and (answer.get("cancel") or isinstance(answer.get("compaction"), dict)):
            return answer
    return None


async def before_tree(runner: EventRunner, preparation: dict[str, Any], signal: Any) -> dict[str, Any] | None:
    """Run ``session_before_tree`` handlers; returns the deciding answer (see the module doc)."""
    event = {"type": "session_before_tree", "preparation": preparation, "signal": signal}
    decided: dict[str, Any] | None = None
    async for answer in runner.answers(event):
        if isinstance(answer, dict) and answer:
            decided = answer
            if answer.get("cancel"):
                return answer
    return decided


async def cancels(runner: EventRunner, event: dict[str, Any]) -> bool:
    """Run a ``session_before_switch`` / ``session_before_fork`` event: True as soon as a handler
    answers ``{"cancel": True}`` (later handlers are skipped)."""
    async for answer in runner.answers(event):
        if isinstance(answer, dict) and answer.get("cancel") is True:
            return True
    return False


async def before_provider_request(runner: EventRunner, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The payload after every ``before_provider_request`` handler, or None when none replaced it."""
    event: dict[str, Any] = {"type": "before_provider_request", "payload": payload}
    replaced = False
    async for answer in runner.answers(event):  # the next handler sees the payload as it is now
        if isinstance(answer, dict):
            event["payload"] = answer
            replaced = True
    return event["payload"] if replaced else None


async def discover_resources(runner: EventRunner, cwd: str, reason: str) -> tuple[list[str], list[str]]:
    """``(skill paths, prompt paths)`` from every ``resources_discover`` handler, in load order."""
    skills: list[str] = []
    prompts: list[str] = []
    async for answer in runner.answers({"type": "resources_discover", "cwd": cwd, "reason": reason}):
        if not isinstance(answer, dict):
            continue
        for key, into in (("skillPaths", skills), ("promptPaths", prompts)):
            value = answer.get(key) or []
            into.extend(str(path) for path in ([value] if isinstance(value, str) else value))
    return skills, prompts


def stream_event(model: Any, data: str) -> dict[str, Any]:
    """pi's ``provider_stream_event`` payload for one SSE event of ``model``'s stream: ``data``
    parsed as JSON (the raw text when it is none, e.g. ``[DONE]``)."""
    try:
        parsed: Any = json.loads(data)
    except ValueError:
        parsed = data
    return {
        "type": "provider_stream_event",
        "data": parsed,
        "provider": model["provider"],
        "api": model["api"],
        "model": model["id"],
    }


async def message_end(runner: EventRunner, message: dict[str, Any]) -> dict[str, Any] | None:
    """The finished ``message`` after the ``message_end`` handlers' replacements (see the module
    doc), or None when none replaced it."""
    current, replaced = message, False
    for entry in tuple(runner.handlers.get("message_end", ())):
        try:
            answer = await runner.call(entry, {"type": "message_end", "message": current})
        except Exception as exc:
            runner.report(entry.source, "message_end", exc)
            continue
        new = answer.get("message") if isinstance(answer, dict) else None
        if not isinstance(new, dict):
            continue
        if new.get("role") != current.get("role"):
            runner.report(
                entry.source, "message_end", ValueError("message_end handlers must return a message with the same role")
            )
            continue
        current, replaced = new, True
    return current if replaced else None
