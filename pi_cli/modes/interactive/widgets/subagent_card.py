"""The card of a ``subagent`` call: a block per child (agent, model, tokens, elapsed; task; running
tool or status; last line of text), from the progress ``details`` the tool streams
(:mod:`pi_cli.session.subagents.display` words them). Expanded (Ctrl-O), each block goes on with
the child's own transcript, read from its live session while the call runs. Elapsed time ticks
once a second while children run, between the tool's updates.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from pi_cli.modes.display import tool_call_title
from pi_cli.modes.interactive.widgets.tool_card import ToolCard
from pi_cli.session.subagents.display import STATUS_MARKS, card_lines, clip
from pi_cli.tools.sanitize import strip_control_sequences as clean

TRANSCRIPT_LINES = 40  # per child, expanded: the latest ones
_STYLES = {"done": "green", "error": "red", "aborted": "yellow", "running": "bold", "queued": "dim"}

# (tool call id) → each child's messages so far, or None when the call is not running here.
ChildMessages = Callable[[str], list[Sequence[dict[str, Any]]] | None]


class SubagentCard(ToolCard):
    """A :class:`ToolCard` whose body is the children's blocks instead of output text."""

    def __init__(self, tool_call_id: str, args: dict[str, Any] | None, child_messages: ChildMessages | None) -> None:
        super().__init__(tool_call_id, "subagent", args)
        self._child_messages = child_messages
        self._ticking = False

    def set_partial(self, partial: dict[str, Any]) -> None:
        details = partial.get("details")
        if isinstance(details, dict):
            self.details = details
        super().set_partial(partial)
        if not self._ticking and self.state == "running" and self.is_mounted:
            self._ticking = True
            self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        if self.state == "running":
            self._redraw()

    def build(self) -> RenderableType:
        children = self.details.get("results") if isinstance(self.details, dict) else None
        if not isinstance(children, list) or not children:
            return super().build()
        style = "bold red" if self.state == "error" else "bold"
        title = Text(clean(tool_call_title("subagent", self.args)), style=style)
        if self.state == "running":
            title.append("  running", style="dim italic")
        parts: list[RenderableType] = [title]
        width = max(20, (self.size.width or 80) - 2)
        now = int(time.time() * 1000)
        transcripts = self._child_messages(self.tool_call_id) if self._expanded and self._child_messages else None
        for index, child in enumerate(children):
            if not isinstance(child, dict):
                continue
            parts.append(self._child_block(child, now, width))
            if transcripts is not None and index < len(transcripts):
                parts.append(_transcript(transcripts[index], width))
        if self.state in ("done", "error") and self.elapsed is not None:
            parts.append(Text(f"Took {self.elapsed:.1f}s", style="dim"))
        return Group(*parts)

    def _child_block(self, child: dict[str, Any], now: int, width: int) -> Text:
        lines = card_lines(child, now, width - 2)
        status = str(child.get("status") or "queued")
        block = Text()
        block.append("\n" + lines[0], style=_STYLES.get(status, ""))
        for line in lines[1:]:
            block.append("\n  " + clean(line), style="dim" if line is lines[-1] and status == "running" else "")
        return block


def _transcript(messages: Sequence[dict[str, Any]], width: int) -> Text:
    """A child's messages as one line each (tool calls by their titles), the latest ones."""
    lines: list[str] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            lines.append("› " + _text_of(message))
        elif role == "assistant":
            for block in message.get("content") or []:
                if block.get("type") == "text" and str(block.get("text", "")).strip():
                    lines.extend(str(block["text"]).strip().splitlines())
                elif block.get("type") == "toolCall":
                    lines.append(tool_call_title(str(block.get("name", "?")), block.get("arguments") or {}))
        elif role == "toolResult":
            mark = STATUS_MARKS["error"] if message.get("isError") else "  ↳"
            lines.append(f"{mark} {_text_of(message)}")
    shown = lines[-TRANSCRIPT_LINES:]
    text = Text()
    if len(lines) > len(shown):
        text.append(f"\n    … ({len(lines) - len(shown)} earlier lines)", style="dim italic")
    for line in shown:
        text.append("\n    " + clip(clean(line), width - 4), style="grey62")
    return text


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(str(b.get("text", "")) for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def make_tool_card(
    tool_call_id: str, name: str, args: dict[str, Any] | None, child_messages: ChildMessages | None = None
) -> ToolCard:
    """The card for a tool call: a :class:`SubagentCard` for ``subagent``, else a plain one."""
    if name == "subagent":
        return SubagentCard(tool_call_id, args, child_messages)
    return ToolCard(tool_call_id, name, args)
