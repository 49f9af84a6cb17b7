"""Transcript entries: user messages, assistant messages (streamed), thinking blocks, notices.

``AssistantView`` owns one child per content block, keyed by content index: a
``StreamingMarkdown`` for text (finished pieces keep their rendered lines; only the tail is
rendered again), a ``ThinkingBlock`` for thinking and a ``ToolCard`` for tool calls.
It is fed merged deltas by the app's pump, never single tokens.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from pi_cli.modes.interactive.restyle import CoalescedRepaint
from pi_cli.modes.interactive.widgets.main_screen import LaidOutOnce
from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown
from pi_cli.modes.interactive.widgets.subagent_card import ChildMessages, make_tool_card
from pi_cli.modes.interactive.widgets.tool_card import ToolCard
from pi_cli.tools.sanitize import strip_control_sequences as clean


def message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


class UserView(Static, CoalescedRepaint):
    """A user message on a tinted background."""

    STYLED_WHEN_DRAWN = True

    DEFAULT_CSS = """
    UserView {
        background: $primary 15%;
        padding: 0 1;
        margin: 1 0 0 0;
        height: auto;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__(Text(clean(text)))
        self.text = text


class Notice(Static, CoalescedRepaint):
    """A one-off line in the transcript: info, warning, error."""

    STYLED_WHEN_DRAWN = True

    DEFAULT_CSS = """
    Notice { margin: 1 0 0 0; height: auto; padding: 0 1; }
    Notice.-info { color: $text-muted; }
    Notice.-warning { color: $warning; }
    Notice.-error { color: $error; }
    Notice.-panel { border: round $primary; padding: 0 1; }
    """

    def __init__(self, text: str | Text, kind: str = "info") -> None:
        super().__init__(text if isinstance(text, Text) else Text(clean(text)), classes=f"-{kind}")


class ThinkingBlock(Static, CoalescedRepaint):
    """Model reasoning: one dim line when collapsed, the whole text when expanded (Ctrl-T)."""

    STYLED_WHEN_DRAWN = True

    DEFAULT_CSS = """
    ThinkingBlock { color: $text-muted; text-style: italic; height: auto; padding: 0 1; }
    """

    def __init__(self, text: str = "") -> None:
        super().__init__("")
        self._parts: list[str] = [text] if text else []
        self._expanded = False

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def on_mount(self) -> None:
        self._expanded = bool(getattr(self.app, "show_thinking", False))  # the host app's preference
        self._draw()  # not _redraw: ``is_mounted`` only turns True after the mount handlers ran

    def append(self, text: str) -> None:
        self._parts.append(text)
        if self._expanded or len(self._parts) == 1:
            self._redraw()

    def set_text(self, text: str) -> None:
        self._parts = [text]
        self._redraw()

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self._expanded:
            self._expanded = expanded
            self._redraw()

    def _redraw(self) -> None:
        if self.is_mounted:
            self._draw()

    def _draw(self) -> None:
        text = clean(self.text).strip()
        if self._expanded:
            self.update(Text(text))
        else:
            lines = text.count("\n") + 1 if text else 0
            count = f"{lines} line{'s' if lines != 1 else ''}"
            label = getattr(self.app, "thinking_label", None) or "Thinking…"  # an extension's label
            self.update(Text(f"{label} ({count}, ctrl+t to show)" if text else label))

    def relabel(self) -> None:
        """Redraw with the app's current hidden-thinking label (collapsed blocks only show it)."""
        if not self._expanded:
            self._redraw()


class AssistantView(LaidOutOnce, Vertical, CoalescedRepaint):
    """One assistant message; children follow its content blocks in order."""

    STYLED_WHEN_DRAWN = True

    DEFAULT_CSS = """
    AssistantView { height: auto; margin: 1 0 0 0; }
    """

    def __init__(
        self,
        message: dict[str, Any] | None = None,
        results: dict[str, dict[str, Any]] | None = None,
        children: ChildMessages | None = None,
    ) -> None:
        super().__init__()
        self._children = children
        self.message = message
        self._results = results or {}
        self.blocks: dict[int, Widget] = {}
        self.cards: dict[str, ToolCard] = {}
        self.finished = False

    def compose(self) -> Any:
        """A finished message (history) is built in one go; a streaming one starts empty."""
        if self.message is None or self.message.get("_streaming"):
            return
        for index, block in enumerate(self.message.get("content") or []):
            if block.get("type") == "text":
                text = clean(str(block.get("text", "")))
                if text.strip():
                    yield StreamingMarkdown(text, finished=True)
                continue
            widget = self._widget_for(index, block, final=True)
            if widget is not None:
                yield widget
        yield from self._stop_notices(self.message)
        self.finished = True

    def _widget_for(self, index: int, block: dict[str, Any], *, final: bool) -> Widget | None:
        kind = block.get("type")
        widget: Widget | None = None
        if kind == "text":
            if final and not str(block.get("text", "")).strip():
                return None
            text = clean(str(block.get("text", ""))) if final else ""
            widget = StreamingMarkdown(text, finished=final)
        elif kind == "thinking":
            if final and not str(block.get("thinking", "")).strip():
                return None
            widget = ThinkingBlock(str(block.get("thinking", "")) if final else "")
        elif kind == "toolCall":
            call_id = str(block.get("id", f"call-{index}"))
            card = make_tool_card(call_id, str(block.get("name", "?")), block.get("arguments") or {}, self._children)
            result = self._results.get(call_id)
            if final and result is not None:
                card.state = "error" if result.get("isError") else "done"
                card.output = clean(message_text(result))
                card.details = result.get("details")
                card.result = result  # an extension's render_result draws from it
                card.set_classes("-error" if result.get("isError") else "-done")
            self.cards[call_id] = card
            widget = card
        if widget is not None:
            self.blocks[index] = widget
        return widget

    # --- streaming --------------------------------------------------------------------------

    async def ensure_block(self, index: int, message: dict[str, Any]) -> Widget | None:
        """The widget for content block ``index``, mounting it if it is new."""
        widget = self.blocks.get(index)
        if widget is not None:
            return widget
        content = message.get("content") or []
        if index >= len(content):
            return None
        widget = self._widget_for(index, content[index], final=False)
        if widget is not None:
            await self.mount(widget)
        return widget

    async def apply_delta(self, kind: str, index: int, text: str, message: dict[str, Any]) -> None:
        """Apply merged deltas of one block (text appended, thinking appended, tool args refreshed)."""
        widget = await self.ensure_block(index, message)
        if isinstance(widget, StreamingMarkdown):
            if text:
                await widget.append(clean(text))
        elif isinstance(widget, ThinkingBlock):
            widget.append(text)
        elif isinstance(widget, ToolCard):
            content = message.get("content") or []
            if index < len(content):
                args = content[index].get("arguments")
                if isinstance(args, dict):
                    widget.set_args(args)

    async def finalize(self, message: dict[str, Any]) -> None:
        """At ``message_end``: make every block match the final message; show errors/aborts."""
        self.message = message
        for index, block in enumerate(message.get("content") or []):
            widget = await self.ensure_block(index, message)
            kind = block.get("type")
            if isinstance(widget, StreamingMarkdown):
                final = clean(str(block.get("text", "")))
                if widget.source != final:
                    await widget.replace(final)
                await widget.finish()
            elif isinstance(widget, ThinkingBlock):
                final = str(block.get("thinking", ""))
                if widget.text != final:
                    widget.set_text(final)
            elif isinstance(widget, ToolCard) and kind == "toolCall":
                args = block.get("arguments")
                if isinstance(args, dict) and args != widget.args:
                    widget.set_args(args)
        notices = list(self._stop_notices(message))
        if notices:
            await self.mount_all(notices)
        self.finished = True

    @staticmethod
    def _stop_notices(message: dict[str, Any]) -> list[Widget]:
        reason = message.get("stopReason")
        if reason == "aborted":
            return [Notice("Operation aborted", "error")]
        if reason == "error":
            return [Notice(f"Error: {message.get('errorMessage') or 'unknown error'}", "error")]
        if reason == "length":
            return [Notice("Stopped: the model reached its output token limit", "warning")]
        return []
