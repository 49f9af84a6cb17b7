"""A parent session whose model answers by what each request holds, so parallel children each
get their own answers: :class:`Script` routes every request to a handler by the agent it is for
(the first words of its system prompt)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pi_cli.ai.providers.faux import FauxProvider, faux_assistant, faux_tool_call
from pi_cli.ai.types import AssistantMessage
from pi_cli.session.agent_session import AgentSession
from pi_cli.session.assembly import SessionOptions, create_agent_session

Handler = Callable[[dict[str, Any], int], "AssistantMessage | Awaitable[AssistantMessage]"]
AGENT_NAMES = ("scout", "worker", "reviewer")


def agent_of(context: dict[str, Any]) -> str:
    """Whom a request is for: a builtin's name, a test agent's (``You are <name>.``), or parent."""
    prompt = str(context.get("systemPrompt") or "")
    for name in AGENT_NAMES:
        if prompt.startswith(f"You are {name},"):
            return name
    if prompt.startswith("You are ") and not prompt.startswith("You are an expert"):
        return prompt.split()[2].rstrip(".,")
    return "parent"


def last_text(context: dict[str, Any]) -> str:
    """The text of the request's last user or tool-result message."""
    message = context["messages"][-1]
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")


class Script:
    """Handlers by agent name; each request is answered by its agent's handler."""

    def __init__(self, faux: FauxProvider, handlers: dict[str, Handler]) -> None:
        self.faux = faux
        self.handlers = handlers
        self.seen: list[tuple[str, dict[str, Any], str]] = []  # (agent, context, model id)
        faux.set_responses([self._answer] * 200)

    async def _answer(self, context: Any, options: Any, index: int) -> AssistantMessage:
        del options
        who = agent_of(context)
        self.seen.append((who, context, self.faux.requests[index].model["id"]))
        handler = self.handlers[who]
        count = sum(1 for seen in self.seen if seen[0] == who) - 1
        reply = handler(context, count)
        if asyncio.iscoroutine(reply):
            reply = await reply
        return reply  # type: ignore[return-value]

    def requests(self, who: str) -> list[dict[str, Any]]:
        return [context for name, context, _ in self.seen if name == who]

    def models(self, who: str) -> list[str]:
        return [model for name, _, model in self.seen if name == who]


def delegate(args: dict[str, Any], final: str = "parent done") -> Handler:
    """A parent that calls ``subagent`` with ``args`` first, then answers ``final``."""

    def handler(context: dict[str, Any], count: int) -> AssistantMessage:
        if context["messages"][-1].get("role") == "toolResult":
            return faux_assistant(final)
        return faux_assistant([faux_tool_call("subagent", args, id=f"sub-{count}")])

    return handler


def answer(text: str) -> Handler:
    return lambda context, count: faux_assistant(text)


def parent_session(project: Path, faux: FauxProvider, tmp_path: Path, **options: Any) -> AgentSession:
    """The parent: model fx/big, tools read + bash + subagent, its file in ``tmp_path/sessions``."""
    base: dict[str, Any] = {
        "cwd": project,
        "mode": "print",
        "provider": "fx",
        "model": "big",
        "tools": ["read", "bash", "subagent"],
        "stream_fn": faux.stream,
        "session_dir": str(tmp_path / "sessions"),
    }
    base.update(options)
    return create_agent_session(SessionOptions(**base))


def write_agent(folder: Path, name: str, front: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(f"---\n{front}\n---\n{body}\n")
    return path
