"""The offline demo model (api ``"faux"``, provider ``"faux"``, id ``"demo"``).

It lets a new user try the whole product with no API key and no network: it answers plainly,
says in every reply that it is the offline demo, explains how to configure a real provider, and
drives the tools a little so tool cards can be seen working:

* asked to list files / the directory → calls ``ls`` (or ``bash`` with ``ls -la``);
* asked to run a command (in backticks, or plainly: ``run git status``) → calls ``bash`` with it;
* mentions a file path (``src/app.py``, ``README.md``) → calls ``read`` on it;
* after tool results → summarises them (the first lines of each result).

Only tools present in the request are called. Replies are played back with the faux provider's
real stream protocol, so streaming, abort and usage behave as with a real model.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

from pi_cli.ai.event_stream import AssistantMessageEventStream
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.providers.faux import faux_assistant, faux_tool_call, make_model
from pi_cli.ai.providers.faux_playback import Pacing, UsageEstimator, play
from pi_cli.ai.types import AssistantMessage, AssistantMessageEvent, Context, Model, text_of

LABEL = "[offline demo]"
SETUP_HINT = (
    "To talk to a real model, set an API key in your environment (for example ANTHROPIC_API_KEY "
    "or OPENAI_API_KEY) or add a provider to ~/.pi/agent/models.json, then choose it with "
    "`--model <provider>/<id>` or the /model command."
)
_PREVIEW_LINES = 8

DEMO_PACING = Pacing()
"""Playback speed of demo replies; set ``tokens_per_second`` for a visibly streamed demo."""

_usage = UsageEstimator()
_LIST_RE = re.compile(
    r"\b(list|show|what|which|see)\b.*\b(files?|director(y|ies)|folders?|dir|contents)\b|^\s*ls\b", re.I | re.S
)
_RUN_RE = re.compile(r"\b(run|execute|exec)\b[^`]*`([^`]+)`", re.I)
# "run git status" with no backticks (the hint as the TUI shows it: Markdown eats the backticks).
_RUN_PLAIN_RE = re.compile(r"^\s*(?:please\s+)?(run|execute|exec)\s+(?!the\b|a\b|an\b|it\b|this\b)([^\n`]+?)\s*$", re.I)
_PATH_RE = re.compile(r"(?<![\w@/.-])((?:\.{0,2}/)?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")
_GREETING_RE = re.compile(r"^\s*(hi|hello|hey|howdy|good (morning|afternoon|evening))\b", re.I)


def _tool_names(context: Context) -> set[str]:
    return {str(tool.get("name")) for tool in context.get("tools") or []}


def _trailing_tool_results(messages: list[Any]) -> list[Any]:
    results: list[Any] = []
    for message in reversed(messages):
        if message.get("role") != "toolResult":
            break
        results.append(message)
    results.reverse()
    return results


def _summarise_results(results: list[Any]) -> str:
    parts = [f"{LABEL} Here is what the tool{'s' if len(results) > 1 else ''} returned:"]
    for result in results:
        text = text_of(result.get("content") or []).rstrip()
        lines = text.splitlines()
        status = "failed" if result.get("isError") else "succeeded"
        parts.append(f"\n`{result.get('toolName')}` {status} with {len(lines)} line{'s' if len(lines) != 1 else ''}:")
        preview = "\n".join(lines[:_PREVIEW_LINES]) or "(no output)"
        if len(lines) > _PREVIEW_LINES:
            preview += f"\n… ({len(lines) - _PREVIEW_LINES} more lines)"
        parts.append(f"```\n{preview}\n```")
    parts.append("\nA real model would now reason about this output. " + SETUP_HINT)
    return "\n".join(parts)


def _plan_tool_call(text: str, tools: set[str]) -> tuple[str, str, dict[str, Any]] | None:
    """(intro text, tool name, arguments) when the request maps onto an available tool."""
    run = _RUN_RE.search(text) or _RUN_PLAIN_RE.search(text)
    if run and "bash" in tools:
        command = run.group(2).strip()
        return f"{LABEL} Running `{command}` for you.", "bash", {"command": command}
    if _LIST_RE.search(text):
        if "ls" in tools:
            return f"{LABEL} Listing the current directory.", "ls", {"path": "."}
        if "bash" in tools:
            return f"{LABEL} Listing the current directory.", "bash", {"command": "ls -la"}
    path = _PATH_RE.search(text)
    if path and "read" in tools:
        target = path.group(1)
        return f"{LABEL} Reading `{target}`.", "read", {"path": target}
    return None


def _plain_reply(text: str, tools: set[str]) -> str:
    opener = "Hello!" if _GREETING_RE.search(text) else "Thanks for your message."
    abilities = []
    if tools & {"ls", "bash"}:
        abilities.append('list files ("list the files here")')
    if "read" in tools:
        abilities.append('read a file ("show me README.md")')
    if "bash" in tools:
        abilities.append('run a command ("run git status")')
    can = (" I can still " + ", ".join(abilities) + ".") if abilities else ""
    return (
        f"{LABEL} {opener} I am pi_cli's built-in offline demo model, not a real language model, so I "
        f"cannot really answer questions or write code.{can}\n\n{SETUP_HINT}"
    )


def demo_reply(context: Context) -> AssistantMessage:
    """The demo's answer to ``context`` (pure function of the request)."""
    messages: list[Any] = list(context["messages"])
    tools = _tool_names(context)
    results = _trailing_tool_results(messages)
    if results:
        return faux_assistant(_summarise_results(results))
    last_user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    text = text_of(last_user.get("content") or "") if last_user else ""
    plan = _plan_tool_call(text, tools)
    if plan is not None:
        intro, name, args = plan
        return faux_assistant([{"type": "text", "text": intro}, faux_tool_call(name, args)])
    return faux_assistant(_plain_reply(text, tools))


async def _run(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    final = demo_reply(context)
    final["api"], final["provider"], final["model"] = model["api"], model["provider"], model["id"]
    _usage.apply(final, context, options.session_id)
    async for event in play(final, options.signal, DEMO_PACING):
        yield event


def demo_stream(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """Stream the demo's reply; never raises and never touches the network."""
    return AssistantMessageEventStream(_run(model, context, options))


DEMO_MODEL: Model = make_model("demo", "Offline demo (no LLM)", "faux", "faux")


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    """Stream function for api ``"faux"`` (registered lazily by :mod:`pi_cli.ai.stream`)."""
    return demo_stream(model, context, options or StreamOptions())
