"""Playback machinery shared by the scripted faux provider and the offline demo model.

* :class:`UsageEstimator` — usage as ceil(chars/4) of the serialised prompt and reply, with
  simulated prompt caching per session id.
* :func:`play` — turns a finished :class:`AssistantMessage` into real stream events (``start``,
  per block ``*_start``/deltas/``*_end``, then ``done`` or ``error``), checking the abort signal
  before every chunk and keeping the partial content on abort.
* :class:`Pacing` — chunk sizes (tokens of 4 chars) and optional tokens-per-second pacing.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from typing import Any, cast

from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.transport.provider_common import new_output
from pi_cli.ai.types import (
    AssistantContent,
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    Model,
    StopReason,
    ToolCall,
    empty_usage,
)

ABORTED_TEXT = "Request was aborted"
_CHARS_PER_TOKEN = 4

# --- usage estimate -------------------------------------------------------------------------


def _ceil_tokens(chars: int) -> int:
    return -(-chars // _CHARS_PER_TOKEN)


def _block_text(block: Any) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "thinking":
        return str(block.get("thinking", ""))
    if kind == "toolCall":
        return f"{block.get('name')}:{json.dumps(block.get('arguments'))}"
    if kind == "image":
        return f"[image:{block.get('mimeType')}:{len(block.get('data', ''))}]"
    return ""


def message_text(message: Any) -> str:
    """``role:text`` serialisation of one message, the unit of the usage estimate."""
    content = message.get("content", "")
    body = content if isinstance(content, str) else "\n".join(_block_text(b) for b in content)
    if message.get("role") == "toolResult":
        body = f"{message.get('toolName')}\n{body}"
    return f"{message.get('role')}:{body}"


@dataclass(slots=True)
class _PromptRecord:
    messages: list[Any]  # the previous request's messages (same objects)
    message_chars: int
    head_chars: int  # system prompt + tools


class UsageEstimator:
    """pi's faux usage: ceil(chars/4) of prompt and reply, with simulated prompt caching.

    With a session id, the part of the prompt shared with that session's previous request is
    reported as ``cacheRead`` and the rest as ``cacheWrite`` (first request: all ``cacheWrite``).
    The previous request is remembered per key, so a request that extends it (the usual case)
    only serialises the new messages: a long run costs O(new messages) per request, not O(all).
    """

    def __init__(self) -> None:
        self._previous: dict[str, _PromptRecord] = {}

    @staticmethod
    def _chars(messages: list[Any]) -> int:
        return sum(len(message_text(m)) + 2 for m in messages)

    def _prompt(self, key: str, context: Context) -> tuple[int, int]:
        """(prompt chars, chars shared with the previous request of ``key``)."""
        messages = context["messages"]
        head = len(context.get("systemPrompt", "") or "")
        head += sum(len(t.get("name", "")) + len(t.get("description", "")) for t in context.get("tools") or [])
        previous = self._previous.get(key)
        shared = 0
        if previous is not None and previous.head_chars == head:
            count = len(previous.messages)
            # list equality checks identity first, so an extended transcript compares at C speed
            if len(messages) >= count and messages[:count] == previous.messages:
                shared = head + previous.message_chars
                chars = previous.message_chars + self._chars(messages[count:])
            else:
                chars = self._chars(messages)
        else:
            chars = self._chars(messages)
        self._previous[key] = _PromptRecord(list(messages), chars, head)
        return head + chars, shared

    def apply(self, message: AssistantMessage, context: Context, session_id: str | None) -> None:
        prompt_chars, shared = self._prompt(session_id or "", context)
        prompt_tokens = _ceil_tokens(prompt_chars)
        output = _ceil_tokens(sum(len(_block_text(b)) for b in message["content"]))
        inp, cache_read, cache_write = prompt_tokens, 0, 0
        if session_id:
            cache_read = min(prompt_tokens, _ceil_tokens(shared)) if shared else 0
            cache_write = _ceil_tokens(prompt_chars - shared)
            inp = max(0, prompt_tokens - cache_read)
        usage = empty_usage()
        usage["input"], usage["output"] = inp, output
        usage["cacheRead"], usage["cacheWrite"] = cache_read, cache_write
        usage["totalTokens"] = inp + output + cache_read + cache_write
        message["usage"] = usage


# --- playback -------------------------------------------------------------------------------


async def sleep_or_abort(delay: float, signal: AbortSignal | None) -> None:
    """Sleep ``delay`` seconds, returning early when ``signal`` aborts."""
    if signal is None:
        await asyncio.sleep(delay)
        return
    if signal.aborted:
        return
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not waiter.done():
            waiter.set_result(None)

    handle = loop.call_later(delay, wake)
    remove = signal.add_callback(wake)
    try:
        await waiter
    finally:
        handle.cancel()
        remove()


@dataclass(slots=True)
class Pacing:
    """How replies are cut into chunks and how fast they are played."""

    tokens_per_second: float | None = None
    token_size: tuple[int, int] = (3, 5)
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def chunks(self, text: str) -> list[str]:
        low, high = self.token_size
        out: list[str] = []
        index = 0
        while index < len(text):
            size = max(1, (low if low == high else self.rng.randint(low, high)) * _CHARS_PER_TOKEN)
            out.append(text[index : index + size])
            index += size
        return out or [""]

    async def wait(self, chunk: str, signal: AbortSignal | None) -> None:
        if self.tokens_per_second and self.tokens_per_second > 0:
            await sleep_or_abort(max(1, _ceil_tokens(len(chunk))) / self.tokens_per_second, signal)
        else:
            await asyncio.sleep(0)


def clone_reply(reply: AssistantMessage) -> AssistantMessage:
    """A copy safe to mutate and hand out: new message, blocks and tool arguments.

    Cheaper than ``copy.deepcopy`` (the hot path of the loop benchmark) yet it shares nothing a
    consumer may mutate: tools and hooks may change ``arguments`` in place.
    """
    blocks: list[Any] = []
    for block in reply["content"]:
        clone = dict(block)
        if clone.get("type") == "toolCall":
            clone["arguments"] = copy.deepcopy(clone["arguments"])
        blocks.append(clone)
    message = cast(AssistantMessage, {**reply, "content": blocks})
    message["usage"] = empty_usage()
    return message


def aborted_from(partial: AssistantMessage) -> AssistantMessage:
    """The final message of an aborted request: the partial content, stopReason aborted."""
    message = cast(AssistantMessage, {**partial, "content": list(partial["content"])})
    message["stopReason"] = "aborted"
    message["errorMessage"] = ABORTED_TEXT
    return message


async def play(
    final: AssistantMessage, signal: AbortSignal | None, pacing: Pacing
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream ``final`` as protocol events; the ``partial`` carried by events is one live object."""
    partial = cast(AssistantMessage, {**final, "content": []})
    if signal is not None and signal.aborted:
        yield {"type": "error", "reason": "aborted", "error": aborted_from(partial)}
        return
    yield {"type": "start", "partial": partial}
    content = partial["content"]
    for index, block in enumerate(final["content"]):
        if signal is not None and signal.aborted:
            yield {"type": "error", "reason": "aborted", "error": aborted_from(partial)}
            return
        kind = block["type"]
        if kind == "toolCall":
            call = cast(ToolCall, block)
            content.append({"type": "toolCall", "id": call["id"], "name": call["name"], "arguments": {}})
            yield {"type": "toolcall_start", "contentIndex": index, "partial": partial}
            text = json.dumps(call["arguments"])
        else:
            key = "text" if kind == "text" else "thinking"
            content.append(cast(AssistantContent, {"type": kind, key: ""}))
            yield cast(AssistantMessageEvent, {"type": f"{kind}_start", "contentIndex": index, "partial": partial})
            text = cast(dict[str, str], block)[key]
        live = cast(dict[str, Any], content[index])
        for chunk in pacing.chunks(text):
            await pacing.wait(chunk, signal)
            if signal is not None and signal.aborted:
                yield {"type": "error", "reason": "aborted", "error": aborted_from(partial)}
                return
            if kind != "toolCall":
                live[key] += chunk
            yield cast(
                AssistantMessageEvent,
                {"type": f"{kind.lower()}_delta", "contentIndex": index, "delta": chunk, "partial": partial},
            )
        if kind == "toolCall":
            live["arguments"] = cast(ToolCall, block)["arguments"]
            yield {"type": "toolcall_end", "contentIndex": index, "toolCall": cast(ToolCall, block), "partial": partial}
        else:
            yield cast(
                AssistantMessageEvent,
                {"type": f"{kind}_end", "contentIndex": index, "content": text, "partial": partial},
            )
    reason = final["stopReason"]
    if reason == "error" or reason == "aborted":
        yield {"type": "error", "reason": reason, "error": final}
    else:
        yield {"type": "done", "reason": reason, "message": final}


def error_message_for(model: Model, text: str, stop_reason: StopReason = "error") -> AssistantMessage:
    """An assistant message with no content that failed with ``text``."""
    message = new_output(model)
    message["stopReason"] = stop_reason
    message["errorMessage"] = text
    return message


async def race_abort(awaitable: Awaitable[AssistantMessage], signal: AbortSignal | None) -> AssistantMessage | None:
    """Await a factory's reply; None when ``signal`` aborts first (the factory is cancelled)."""
    task = asyncio.ensure_future(awaitable)
    if signal is None:
        return await task
    aborter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, aborter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborter.cancel()
    if task.done():
        return task.result()
    task.cancel()
    return None
