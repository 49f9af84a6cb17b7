"""Applies batches of agent/session events (merged by the pump) to the transcript.

Holds the streaming assistant view and the tool cards by call id. Every method runs on the app's
loop inside one pump frame; nothing here is called per token.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from textual.widget import Widget

from pi_cli.extensions.rendering import CustomRenderer
from pi_cli.modes.interactive.pump import Delta, Op
from pi_cli.modes.interactive.widgets.custom_view import CustomView
from pi_cli.modes.interactive.widgets.messages import AssistantView, Notice, UserView, message_text
from pi_cli.modes.interactive.widgets.subagent_card import ChildMessages, make_tool_card
from pi_cli.modes.interactive.widgets.tool_card import ToolCard
from pi_cli.modes.interactive.widgets.transcript import Builder, Transcript

MessageRenderers = Callable[[str], CustomRenderer | None]
"""customType → an extension's renderer of custom messages (None: the default drawing)."""


def _no_renderer(custom_type: str) -> CustomRenderer | None:
    return None


def builder_for(
    message: dict[str, Any], results: dict[str, dict[str, Any]], renderers: MessageRenderers = _no_renderer
) -> Builder | None:
    """A function that builds the widget for a finished message (None: not shown on its own)."""
    role = message.get("role")
    if role == "custom":
        if not message.get("display"):
            return None
        renderer = renderers(str(message.get("customType", "")))
        return lambda: CustomView(message, renderer)
    if role == "user":
        text = message_text(message)
        return lambda: UserView(text)
    if role == "assistant":
        return lambda: AssistantView(message, results)
    if role == "bashExecution":
        return lambda: bash_card(message)
    if role in ("compactionSummary", "branchSummary"):
        summary = str(message.get("summary", ""))[:200]
        return lambda: Notice(f"[{role}] {summary}", "info")
    return None


def bash_card(message: dict[str, Any]) -> ToolCard:
    """A finished user ``!cmd`` run, from its ``bashExecution`` message."""
    card = ToolCard("", "bash", {"command": message.get("command", "")}, user_bash=True)
    card.state = "done"
    exit_code = message.get("exitCode")
    output = str(message.get("output", ""))
    card.finish({"content": [{"type": "text", "text": output}]}, is_error=bool(exit_code) and exit_code != 0)
    if message.get("cancelled"):
        card.notes.append("cancelled")
    elif exit_code not in (0, None):
        card.notes.append(f"exit code {exit_code}")
    if message.get("excludeFromContext"):
        card.notes.append("not sent to the model")
    return card


class EventRenderer:
    """Turns ops into widget changes. ``on_change`` is called after each batch (footer, queue)."""

    def __init__(
        self,
        transcript: Transcript,
        on_event: Callable[[dict[str, Any]], None],
        children: ChildMessages | None = None,
        message_renderers: MessageRenderers = _no_renderer,
        entry_renderers: MessageRenderers = _no_renderer,
    ) -> None:
        self.transcript = transcript
        self.on_event = on_event
        self.children = children  # a subagent call's children's messages, while it runs
        # extensions' renderers of custom messages / entries, by customType (None: the default)
        self.message_renderers = message_renderers
        self.entry_renderers = entry_renderers
        self.current: AssistantView | None = None
        self.cards: dict[str, ToolCard] = {}
        self.results: dict[str, dict[str, Any]] = {}

    async def apply(self, ops: list[Op]) -> None:
        for op in ops:
            if isinstance(op, Delta):
                await self._delta(op)
            else:
                await self._event(op)
                self.on_event(op)
        if not self.transcript.is_anchored:
            self.transcript.call_after_refresh(self.transcript.follow)

    async def _delta(self, op: Delta) -> None:
        view = self.current
        if view is None:
            view = await self._start_assistant(op.message)
        before = set(view.cards)
        await view.apply_delta(op.kind, op.content_index, op.text, op.message)
        for call_id in set(view.cards) - before:
            self.cards[call_id] = view.cards[call_id]

    async def _start_assistant(self, message: dict[str, Any]) -> AssistantView:
        view = AssistantView(None, self.results, self.children)
        holder: dict[str, Any] = {"message": message}
        results, children = self.results, self.children

        def rebuild() -> Widget:
            return AssistantView(holder["message"], results, children)

        view.rebuild_holder = holder  # type: ignore[attr-defined]
        await self.transcript.add(view, rebuild)
        self.current = view
        return view

    async def _event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message") or {}
            role = message.get("role")
            if role == "assistant":
                await self._start_assistant(message)
            elif role == "user":
                text = message_text(message)
                await self.transcript.add(UserView(text), lambda: UserView(text))
            elif role in ("bashExecution", "custom"):
                await self.add_message(message)
        elif kind == "entry_appended":
            await self._custom_entry(event.get("entry") or {})
        elif kind == "message_update":
            inner = event.get("assistantMessageEvent") or {}
            message = event.get("message") or inner.get("partial") or {}
            if self.current is None:
                await self._start_assistant(message)
            index = inner.get("contentIndex")
            if isinstance(index, int) and self.current is not None:
                before = set(self.current.cards)
                await self.current.ensure_block(index, message)
                for call_id in set(self.current.cards) - before:
                    self.cards[call_id] = self.current.cards[call_id]
        elif kind == "message_end":
            message = event.get("message") or {}
            role = message.get("role")
            if role == "assistant":
                view = self.current or await self._start_assistant(message)
                await view.finalize(message)
                for call_id, card in view.cards.items():
                    self.cards.setdefault(call_id, card)
                holder = getattr(view, "rebuild_holder", None)
                if isinstance(holder, dict):
                    holder["message"] = message
                self.current = None
            elif role == "toolResult":
                self.results[str(message.get("toolCallId"))] = message
        elif kind == "tool_execution_start":
            card = await self._card(event)
            card.start(event.get("args") if isinstance(event.get("args"), dict) else None)
        elif kind == "tool_execution_update":
            card = await self._card(event)
            card.set_partial(event.get("partialResult") or {})
        elif kind == "tool_execution_end":
            card = await self._card(event)
            took = event.get("durationMs")
            card.finish(event.get("result"), bool(event.get("isError")), took if isinstance(took, int) else None)
        elif kind == "auto_retry_end" and not event.get("success"):
            await self.notice(f"Retry failed after {event.get('attempt')} attempts: {event.get('finalError')}", "error")
        elif kind == "compaction_end":
            # errorMessage is already "Compaction failed: …"; a cancelled manual one says so, as pi.
            if event.get("aborted") and event.get("reason") == "manual":
                await self.notice("Compaction cancelled", "error")
            elif event.get("errorMessage"):
                await self.notice(str(event["errorMessage"]), "error")
            elif event.get("result"):
                await self.notice("Context compacted.", "info")
        elif kind == "agent_end":
            self.current = None

    async def _card(self, event: dict[str, Any]) -> ToolCard:
        call_id = str(event.get("toolCallId"))
        card = self.cards.get(call_id)
        if card is None:
            # A tool whose call never streamed (or whose view was unmounted): give it its own card.
            card = make_tool_card(call_id, str(event.get("toolName", "?")), event.get("args") or {}, self.children)
            self.cards[call_id] = card
            await self.transcript.add(card)
        return card

    async def _custom_entry(self, entry: dict[str, Any]) -> None:
        """An extension's ``append_entry``: shown only when a renderer is registered for its type."""
        renderer = self.entry_renderers(str(entry.get("customType", ""))) if entry.get("type") == "custom" else None
        if renderer is not None:
            await self.transcript.add(CustomView(entry, renderer), lambda: CustomView(entry, renderer))

    async def notice(self, text: str, kind: str = "info") -> None:
        await self.transcript.add(Notice(text, kind), lambda: Notice(text, kind))

    async def add_message(self, message: dict[str, Any]) -> None:
        build = builder_for(message, self.results, self.message_renderers)
        if build is not None:
            await self.transcript.add(build(), build)

    async def load_history(self, messages: Sequence[dict[str, Any]]) -> None:
        """Show a resumed transcript: build records for all, mount only the tail. Messages of a
        resumed huge session (``LazyMessages``: ``role(i)`` without decoding) are read from the file
        only when their widget is built (the tail now, older ones on scroll-back)."""
        roles = getattr(messages, "roles", None)
        if callable(roles):
            await self.transcript.add_many(self._lazy_builders(messages, roles()))
            return
        for message in messages:
            if message.get("role") == "toolResult":
                self.results[str(message.get("toolCallId"))] = message
        builders = [b for b in (builder_for(m, self.results, self.message_renderers) for m in messages) if b]
        await self.transcript.add_many(builders)

    def _lazy_builders(self, messages: Sequence[dict[str, Any]], roles: list[str]) -> list[Builder]:
        shown = {"user", "assistant", "bashExecution", "compactionSummary", "branchSummary", "custom"}
        stub: Callable[[int], dict[str, Any]] = getattr(messages, "stub", messages.__getitem__)
        result_at = {str(stub(i).get("toolCallId")): i for i, role in enumerate(roles) if role == "toolResult"}

        def build(index: int) -> Widget:
            message = messages[index]
            blocks = message.get("content") if message.get("role") == "assistant" else None
            for block in blocks if isinstance(blocks, list) else []:
                call_id = str(block.get("id")) if isinstance(block, dict) and block.get("type") == "toolCall" else ""
                if call_id in result_at and call_id not in self.results:
                    self.results[call_id] = messages[result_at[call_id]]  # the card shows its result
            built = builder_for(message, self.results, self.message_renderers)
            return built() if built is not None else Notice(f"[{message.get('role')}]", "info")

        return [functools.partial(build, i) for i, role in enumerate(roles) if role in shown]

    def forget(self) -> None:
        self.current = None
        self.cards.clear()
        self.results.clear()
