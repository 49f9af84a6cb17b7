"""What extensions decide about a prompt before it reaches the model; the session acts on it.

pi 1.6.0's order for ``prompt(text)``: a registered ``/command`` runs at once — even while the agent
streams, it is never queued — and nothing else happens; otherwise the ``input`` handlers may
transform the text or consume it; what is left starts a run or, while streaming, is queued as
steering / follow-up (the session does that). When a run starts, ``before_agent_start`` handlers
may replace the system prompt for that run and add custom messages: :func:`before_agent_start`
returns that decision as a :class:`RunStart`. Nothing here starts a run or touches the agent.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol


class PromptRunner(Protocol):
    """What these decisions need of :class:`~pi_cli.extensions.runner.ExtensionRunner`."""

    handlers: dict[str, list[Any]]
    commands: dict[str, Any]

    def answers(self, event: dict[str, Any]) -> AsyncIterator[Any]: ...

    def report(self, source: str, event: str, exc: BaseException) -> None: ...


@dataclass(slots=True)
class RunStart:
    """``before_agent_start``'s decision: the run's system prompt and messages to add after the
    user's (``nextTurn`` messages first, then the handlers' custom messages)."""

    system_prompt: str
    messages: list[dict[str, Any]] = field(default_factory=list)


async def run_input(
    runner: PromptRunner, text: str, images: list[Any] | None, source: str, streaming_behavior: str | None
) -> tuple[str, list[Any]] | None:
    """``input`` handlers in order: ``transform`` chains, ``handled`` consumes the text (None).
    ``streaming_behavior`` is given only while the agent streams (as pi)."""
    event: dict[str, Any] = {
        "type": "input",
        "text": text,
        "images": list(images or []),
        "source": source,
        "streamingBehavior": streaming_behavior,
    }
    async for result in runner.answers(event):
        action = result.get("action") if isinstance(result, dict) else None
        if action == "handled":
            return None
        if action == "transform":
            event["text"] = str(result.get("text", event["text"]))
            if isinstance(result.get("images"), list):
                event["images"] = result["images"]
    return event["text"], event["images"]


async def before_agent_start(
    runner: PromptRunner, message: dict[str, Any], system_prompt: str, next_turn: list[dict[str, Any]]
) -> RunStart:
    """``before_agent_start`` for a run starting with user ``message``: handlers may replace the
    system prompt (chained: each sees the previous one's) and add ``message``s."""
    decision = RunStart(system_prompt, list(next_turn))
    if "before_agent_start" not in runner.handlers:
        return decision
    content = message.get("content") or []
    event: dict[str, Any] = {
        "type": "before_agent_start",
        "messageType": "user",
        "prompt": "".join(c.get("text", "") for c in content if c.get("type") == "text"),
        "images": [c for c in content if c.get("type") == "image"],
        "systemPrompt": system_prompt,
    }
    async for result in runner.answers(event):
        if not isinstance(result, dict):
            continue
        if isinstance(result.get("systemPrompt"), str):
            event["systemPrompt"] = result["systemPrompt"]
        if isinstance(result.get("message"), dict):
            decision.messages.append(custom_message(result["message"]))
    decision.system_prompt = event["systemPrompt"]
    return decision


def custom_message(spec: dict[str, Any]) -> dict[str, Any]:
    """pi's custom message (``role: "custom"``) from what a handler returned."""
    out = {
        "role": "custom",
        "customType": str(spec.get("customType") or "extension"),
        "content": spec.get("content", ""),
        "display": bool(spec.get("display", True)),
        "timestamp": int(time.time() * 1000),
    }
    if spec.get("details") is not None:
        out["details"] = spec["details"]
    return out


def argument_completions(runner: PromptRunner, name: str, prefix: str) -> list[dict[str, str]]:
    """The items ``{value, label, description}`` the command ``name`` offers for the argument
    typed so far (pi's ``getArgumentCompletions``; an item may be a bare string); [] when it has
    no completer, answers None or an awaitable (the editor cannot wait), or raises (reported:
    completion must never break typing)."""
    command = runner.commands.get(name)
    if command is None or command.complete is None:
        return []
    try:
        items = command.complete(prefix)
    except Exception as exc:
        runner.report(command.source, "getArgumentCompletions", exc)
        return []
    out: list[dict[str, str]] = []
    for item in items if isinstance(items, list) else ():
        fields = item if isinstance(item, dict) else {"value": item}
        value = fields.get("value")
        if isinstance(value, str):
            label = str(fields.get("label") or value)
            out.append({"value": value, "label": label, "description": str(fields.get("description") or "")})
    return out
