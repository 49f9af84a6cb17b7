"""Tool cards: one per tool call (and per user ``!cmd`` run).

A card shows the call's title while its arguments stream, live output from
``tool_execution_update`` while it runs, then the result or error. Output is cleaned of terminal
control sequences and collapsed to its last lines (first lines for read/write) unless the app's
"expand tools" toggle is on. Edit results show their diff coloured.

An extension tool with renderers (``render_call`` / ``render_result``) draws its own title and
output: the card asks the app's ``tool_renderer(name)`` seam (None: the default drawing) when
mounted, and draws the lines it gets (ANSI styles kept, other control sequences dropped).

Images in a result (``read`` of a PNG, an MCP tool's picture) are drawn under the text, at most
the transcript's ``image_cells`` columns wide: by the terminal through kitty's Unicode
placeholders where the transcript says kitty's protocol is in use (kitty_image.py; the card's
``render_lines`` puts the pixels in front of the image's first visible row), with half blocks
elsewhere (tool_image.py). An image that cannot be drawn, or every image when
``terminal.showImages`` is off, is its placeholder line (type, pixel size, bytes).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Static

from pi_cli.extensions.rendering import RenderContext, RenderOptions, ToolRenderer
from pi_cli.modes.display import image_label, result_text, tool_call_title
from pi_cli.modes.interactive.restyle import CoalescedRepaint
from pi_cli.modes.interactive.widgets.transcript import Transcript
from pi_cli.tools.sanitize import keep_sgr
from pi_cli.tools.sanitize import strip_control_sequences as clean

COLLAPSED_LINES = 5
HEAD_PREVIEW_TOOLS = frozenset({"read", "write"})
HEAD_PREVIEW_LINES = 10
DEFAULT_IMAGE_CELLS = 60  # columns an image may take when no transcript says otherwise
EXPANDED_MAX_LINES = 2000  # even "expanded" has a ceiling so one huge output cannot stall layout


def _planned_edits(args: dict[str, Any]) -> str:
    """An edit call's replacements as ``-old``/``+new`` lines (from partial arguments while streaming)."""
    lines: list[str] = []
    edits = args.get("edits")
    for edit in edits if isinstance(edits, list) else []:
        if not isinstance(edit, dict):
            continue
        lines.extend(f"-{line}" for line in str(edit.get("oldText", "")).split("\n") if edit.get("oldText"))
        lines.extend(f"+{line}" for line in str(edit.get("newText", "")).split("\n") if "newText" in edit)
    return "\n".join(lines)


def styled_lines(lines: list[str]) -> Text:
    """A renderer's lines as Rich text: SGR styles kept, every other control sequence dropped."""
    return Text("\n").join(Text.from_ansi(keep_sgr(line)) for line in lines)


def _diff_text(diff: str) -> Text:
    out = Text()
    for line in diff.rstrip("\n").split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("+") and not stripped.startswith("+++"):
            style = "green"
        elif stripped.startswith("-") and not stripped.startswith("---"):
            style = "red"
        else:
            style = "dim"
        out.append(line + "\n", style=style)
    out.rstrip()
    return out


class ToolCard(Static, CoalescedRepaint):
    """A tool call's card; state changes re-render only this widget."""

    STYLED_WHEN_DRAWN = True

    DEFAULT_CSS = """
    ToolCard {
        background: $boost;
        padding: 0 1;
        margin: 1 0 0 0;
        height: auto;
    }
    ToolCard.-running { background: $primary 10%; }
    ToolCard.-done { background: $success 10%; }
    ToolCard.-error { background: $error 15%; }
    ToolCard.-own-shell, ToolCard.-own-shell.-running, ToolCard.-own-shell.-done, ToolCard.-own-shell.-error {
        background: transparent;
        padding: 0;
    }
    """

    def __init__(
        self, tool_call_id: str, name: str, args: dict[str, Any] | None = None, *, user_bash: bool = False
    ) -> None:
        super().__init__("", classes="-pending")
        self.tool_call_id = tool_call_id
        self.tool_name = name
        self.args: dict[str, Any] = dict(args or {})
        self.user_bash = user_bash
        self.output = ""
        self.details: Any = None
        self.state = "pending"  # pending → running → done | error
        self.started_at: float | None = None
        self.elapsed: float | None = None
        self.notes: list[str] = []
        self._expanded = False
        self.result: dict[str, Any] | None = None  # the last partial or final result (for renderers)
        self.renderer: ToolRenderer | None = None  # an extension's renderers, found on mount
        self._render_state: dict[str, Any] = {}  # pi's context.state, shared by both slots
        self.image_blocks: list[dict[str, Any]] = []  # the final result's images
        self._pictures: list[RenderableType] | None = None  # drawn once, on the first build after finish
        self._image_cells = DEFAULT_IMAGE_CELLS  # the transcript's setting, read on mount
        self._image_scale = 1  # pixels per half cell: 1 for half blocks; more where kitty draws them
        self._image_tmux = False

    # --- state updates (cheap: store, then one refresh) -----------------------------------

    def set_args(self, args: dict[str, Any]) -> None:
        self.args = dict(args)
        self._redraw()

    def start(self, args: dict[str, Any] | None = None) -> None:
        if args is not None:
            self.args = dict(args)
        self.state = "running"
        self.started_at = time.monotonic()
        self.set_class(True, "-running")
        self.set_class(False, "-pending")
        self._redraw()

    def set_output(self, text: str) -> None:
        self.output = clean(text)
        self._redraw()

    def set_partial(self, partial: dict[str, Any]) -> None:
        """A ``tool_execution_update``'s partial result: its text is the live output."""
        self.result = partial
        blocks = partial.get("content") or []
        self.set_output("".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"))

    def finish(self, result: dict[str, Any] | None, is_error: bool, duration_ms: int | None = None) -> None:
        """The call ended; ``duration_ms`` is how long the tool itself ran (the agent's measure,
        without an approval dialog's wait), else the time since the card started."""
        self.result = result
        self.image_blocks = [b for b in (result or {}).get("content") or [] if b.get("type") == "image"]
        self._pictures = None
        self.output = clean(result_text(result, image_lines=False))
        self.details = (result or {}).get("details")
        self.state = "error" if is_error else "done"
        if duration_ms is not None:
            self.elapsed = duration_ms / 1000
        elif self.started_at is not None:
            self.elapsed = time.monotonic() - self.started_at
        self.remove_class("-pending", "-running")
        self.add_class("-error" if is_error else "-done")
        self._redraw()

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self._expanded:
            self._expanded = expanded
            self._redraw()

    def on_mount(self) -> None:
        self._expanded = bool(getattr(self.app, "tools_expanded", False))  # the host app's preference
        transcript = next((node for node in self.ancestors if isinstance(node, Transcript)), None)
        if transcript is not None:
            self._image_cells = transcript.image_cells
            if transcript.image_protocol == "kitty":
                from pi_cli.modes.interactive.widgets.kitty_image import PIXELS_PER_HALF_CELL

                self._image_scale = PIXELS_PER_HALF_CELL
                self._image_tmux = transcript.image_tmux
        lookup = getattr(self.app, "tool_renderer", None)  # the app's seam; other hosts have none
        if self.renderer is None and callable(lookup) and not self.user_bash:
            self.renderer = lookup(self.tool_name)
        if self.renderer is not None and self.renderer.shell == "self":  # pi's renderShell: "self"
            self.add_class("-own-shell")
        # Not _redraw(): ``is_mounted`` turns true only after this handler, and a card built
        # finished (a resumed session) gets no later update that would draw it.
        self.update(self.build())

    # --- rendering --------------------------------------------------------------------------

    def _redraw(self) -> None:
        if self.is_mounted:
            self.update(self.build())

    def title(self) -> str:
        if self.user_bash:
            return f"$ {self.args.get('command', '')}"
        return tool_call_title(self.tool_name, self.args)

    def _render_context(self) -> RenderContext:
        return RenderContext(
            self.tool_call_id,
            dict(self.args),
            expanded=self._expanded,
            is_partial=self.state != "done" and self.state != "error",
            is_error=self.state == "error",
            state=self._render_state,
        )

    def _custom_title(self) -> Text | None:
        lines = self.renderer.call(self.args, self._render_context()) if self.renderer is not None else None
        return None if lines is None else styled_lines(lines)

    def _custom_output(self) -> Text | None:
        if self.renderer is None or (self.result is None and self.state in ("pending", "running")):
            return None
        context = self._render_context()
        options = RenderOptions(expanded=self._expanded, is_partial=context.is_partial)
        lines = self.renderer.result(self.result, options, context)
        return None if lines is None else styled_lines(lines)

    def build(self) -> RenderableType:
        parts: list[RenderableType] = []
        title_style = "bold red" if self.state == "error" else "bold"
        title = self._custom_title() or Text(clean(self.title()), style=title_style)
        if self.state == "pending":
            title.append("  …", style="dim")
        elif self.state == "running":
            title.append("  running", style="dim italic")
        parts.append(title)
        custom = self._custom_output()
        diff = self.details.get("diff") if isinstance(self.details, dict) else None
        if custom is not None:
            if custom.plain.strip():  # the renderer decides what shows, collapsed or expanded
                parts.append(custom)
        elif self.tool_name == "edit" and self.state == "done" and isinstance(diff, str) and diff:
            parts.append(self._collapsed(_diff_text(clean(diff)), head=True))
        elif self.tool_name == "edit" and self.state in ("pending", "running") and _planned_edits(self.args):
            # While the call streams (and until the result's own diff arrives): the replacements asked for.
            parts.append(self._collapsed(_diff_text(clean(_planned_edits(self.args))), head=True))
        elif self.tool_name == "write" and self.state != "error" and not self.output.strip():
            content = str(self.args.get("content", ""))
            if content:
                parts.append(self._collapsed(Text(clean(content), style="dim"), head=True))
        elif self.output.strip():
            style = "red" if self.state == "error" else "grey66"
            head = self.tool_name in HEAD_PREVIEW_TOOLS and not self.user_bash
            parts.append(self._collapsed(Text(self.output.rstrip("\n"), style=style), head=head))
        parts.extend(self._images())
        footer = self._footer()
        if footer is not None:
            parts.append(footer)
        return Group(*parts)

    def _images(self) -> list[RenderableType]:
        """The result's images: drawn where they decode (once per card), else placeholder lines.
        A large PNG shows its placeholder until a worker thread has decoded it."""
        if self._pictures is None:
            from pi_cli.modes.interactive.widgets.tool_image import slow_to_draw  # the decoder: on first image

            pictures: list[RenderableType] = []
            self._pictures = pictures
            cells, scale = self._image_cells, self._image_scale
            for index, block in enumerate(self.image_blocks):
                if cells > 0 and self.is_attached and slow_to_draw(block, cells, scale):
                    pictures.append(Text(f"{image_label(block)} drawing…", style="dim"))
                    self.run_worker(self._draw_later(pictures, index, block), group="tool-images")
                else:
                    pictures.append(self._picture(block))
        return self._pictures

    def render_lines(self, crop: Region) -> list[Strip]:
        """Textual's lines, plus the pixels of images the terminal draws (kitty's placeholders)
        in front of each one's first visible row."""
        strips = super().render_lines(crop)
        if self._image_scale > 1 and self._pictures:
            from pi_cli.modes.interactive.widgets.kitty_image import KittyImage

            for picture in self._pictures:
                if isinstance(picture, KittyImage):
                    strips = picture.carry_upload(strips)
        return strips

    def _picture(self, block: dict[str, Any]) -> RenderableType:
        from pi_cli.modes.interactive.widgets.tool_image import MAX_ROWS, HalfBlockImage, drawable

        picture = drawable(block, self._image_cells, self._image_scale) if self._image_cells > 0 else None
        if picture is None:
            return Text(image_label(block), style="dim")
        if self._image_scale > 1:
            from pi_cli.modes.interactive.widgets.kitty_image import KittyImage

            return KittyImage(picture, self._image_cells, MAX_ROWS, tmux=self._image_tmux)
        return HalfBlockImage(picture, self._image_cells, self._background)

    async def _draw_later(self, pictures: list[RenderableType], index: int, block: dict[str, Any]) -> None:
        from pi_cli.modes.interactive.widgets.tool_image import drawable

        await asyncio.to_thread(drawable, block, self._image_cells, self._image_scale)  # fills the cache
        if self._pictures is pictures:  # not replaced by a newer result meanwhile
            pictures[index] = self._picture(block)
            self._redraw()

    def _background(self) -> tuple[int, int, int]:
        """The colour under the card's content now (transparent pixels are blended over it)."""
        return self.background_colors[1].rgb

    def _collapsed(self, text: Text, *, head: bool) -> Text:
        lines = text.split("\n", allow_blank=True)
        limit = EXPANDED_MAX_LINES if self._expanded else (HEAD_PREVIEW_LINES if head else COLLAPSED_LINES)
        if len(lines) <= limit:
            return text
        hidden = len(lines) - limit
        note = Text(f"... ({hidden} {'more' if head else 'earlier'} lines, ctrl+o to expand)", style="dim italic")
        shown = lines[:limit] if head else lines[-limit:]
        body = Text("\n").join(shown)
        return Text("\n").join([body, note] if head else [note, body])

    def _footer(self) -> Text | None:
        bits: list[str] = []
        details = self.details if isinstance(self.details, dict) else {}
        if details.get("truncation") or details.get("fullOutputPath"):
            path = details.get("fullOutputPath")
            bits.append(f"Output truncated{f'; full output: {path}' if path else ''}")
        bits.extend(self.notes)
        if self.state in ("done", "error") and self.elapsed is not None and self.tool_name == "bash":
            bits.append(f"Took {self.elapsed:.1f}s")
        if not bits:
            return None
        return Text(" · ".join(bits), style="dim")
