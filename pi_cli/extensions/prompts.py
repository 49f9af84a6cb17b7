"""What extensions do to a prompt before it reaches the model (mixed into the runner).

pi 1.6.0's order for ``prompt(text)``: a registered ``/command`` runs at once — even while the agent
streams, it is never queued — and nothing else happens; otherwise the ``input`` handlers may
transform the text or consume it (``handled``); what is left starts a run or, while streaming, is
queued as steering / follow-up. :meth:`PromptHandling.prepare_prompt` reports which of those
happened (``handled``, ``queued``, ``started``: RPC's ``disposition``) before the run is awaited.
``before_agent_start`` (:meth:`PromptHandling.start_run`) then sees the run's first message.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

Begin = Callable[[str, "list[Any] | None", "str | None"], "Coroutine[Any, Any, None] | None"]


@dataclass(slots=True)
class Command:
    name: str
    handler: Callable[..., Any]
    description: str
    source: str


class PromptHandling:
    """Commands, ``input`` and ``before_agent_start`` for :class:`ExtensionRunner`."""

    handlers: dict[str, list[Any]]
    commands: dict[str, Command]
    next_turn: list[dict[str, Any]]
    host: Any
    _starting: asyncio.Future[None] | None

    async def start(self) -> None: ...  # the runner's

    def report(self, source: str, event: str, exc: BaseException) -> None: ...  # the runner's

    answers: Callable[[dict[str, Any]], AsyncIterator[Any]]  # the runner's

    def context(self) -> Any: ...  # the runner's

    # -- prompts ----------------------------------------------------------------------------------

    def wants_prompt(self, text: str) -> bool:
        """True when a prompt must go through :meth:`prepare_prompt` (a command, ``input`` handlers,
        or ``session_start`` / async registers still to run)."""
        if self._starting is None or not self._starting.done():
            return True
        return "input" in self.handlers or self.command_for(text) is not None

    async def prepare_prompt(
        self,
        text: str,
        images: list[Any] | None,
        streaming_behavior: str | None,
        begin: Begin,
        source: str = "interactive",
    ) -> tuple[str, Coroutine[Any, Any, None] | None]:
        """Command, else ``input`` handlers, else ``begin`` (which queues while streaming or
        returns the run). Returns (disposition, the run to await or None); ``begin``'s errors
        (no model, no key, busy) propagate."""
        await self.start()
        found = self.command_for(text)
        if found is not None:
            await self.run_command(*found)
            return "handled", None
        streaming = self.host is not None and bool(self.host.is_streaming)
        given = await self.run_input(text, images, source, streaming_behavior if streaming else None)
        if given is None:
            return "handled", None
        run = begin(given[0], given[1] or None, streaming_behavior)
        return ("queued", None) if run is None else ("started", run)

    async def run_prompt(
        self,
        text: str,
        images: list[Any] | None,
        streaming_behavior: str | None,
        begin: Begin,
        source: str = "interactive",
    ) -> None:
        """:meth:`prepare_prompt`, then the run (if one started) to its end."""
        _disposition, run = await self.prepare_prompt(text, images, streaming_behavior, begin, source)
        if run is not None:
            await run

    async def run_input(
        self, text: str, images: list[Any] | None, source: str, streaming_behavior: str | None
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
        async for result in self.answers(event):
            action = result.get("action") if isinstance(result, dict) else None
            if action == "handled":
                return None
            if action == "transform":
                event["text"] = str(result.get("text", event["text"]))
                if isinstance(result.get("images"), list):
                    event["images"] = result["images"]
        return event["text"], event["images"]

    async def start_run(
        self, agent: Any, message: dict[str, Any], follow_through: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        """``before_agent_start``: handlers may replace the system prompt for this run (chained)
        and add ``message``s (custom messages that join the transcript) before it starts. As pi,
        the replaced prompt holds for the whole run: ``follow_through`` (the session's automatic
        retries and post-compaction continuations) runs before the original comes back."""
        queued, self.next_turn = self.next_turn, []  # send_message(deliver_as="nextTurn")
        if "before_agent_start" not in self.handlers:
            await agent.prompt([message, *queued])
            if follow_through is not None:
                await follow_through()
            return
        original = agent.state.system_prompt
        content = message.get("content") or []
        event: dict[str, Any] = {
            "type": "before_agent_start",
            "messageType": "user",
            "prompt": "".join(c.get("text", "") for c in content if c.get("type") == "text"),
            "images": [c for c in content if c.get("type") == "image"],
            "systemPrompt": original,
        }
        extra: list[dict[str, Any]] = []
        async for result in self.answers(event):
            if not isinstance(result, dict):
                continue
            if isinstance(result.get("systemPrompt"), str):
                event["systemPrompt"] = result["systemPrompt"]
            if isinstance(result.get("message"), dict):
                extra.append(custom_message(result["message"]))
        agent.state.system_prompt = event["systemPrompt"]
        try:
            await agent.prompt([message, *queued, *extra])
            if follow_through is not None:
                await follow_through()
        finally:
            agent.state.system_prompt = original

    # -- commands -------------------------------------------------------------------------------

    def command_for(self, text: str) -> tuple[Command, str] | None:
        """``/name args`` naming a registered command → (command, args)."""
        if not text.startswith("/") or not self.commands:
            return None
        name, _, args = text[1:].partition(" ")
        command = self.commands.get(name)
        return None if command is None else (command, args.strip())

    async def run_command(self, command: Command, args: str) -> None:
        await self.start()
        try:
            result = command.handler(args, self.context())
            if inspect.isawaitable(result):
                await result
        except Exception as exc:
            self.report(command.source, f"command:{command.name}", exc)

    def command_list(self) -> list[dict[str, Any]]:
        """RPC ``get_commands`` entries (``source: "extension"``)."""
        return [
            {"name": c.name, "description": c.description, "source": "extension", "path": c.source}
            for c in self.commands.values()
        ]


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
