"""rich renderables for what inline mode commits to the terminal's scrollback.

Every function returns a renderable and touches no terminal; the controller decides when to print.
Model and tool text is stripped of terminal control sequences first, so nothing a model or a
command prints can move the cursor, set the title or write the clipboard.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.padding import Padding
from rich.text import Text

from pi_cli.extensions.rendering import CustomRenderer, RenderContext, RenderOptions, ToolRenderer
from pi_cli.modes.display import preview_lines, result_text, tool_call_title
from pi_cli.modes.terminal_images import Protocol, encode
from pi_cli.tools.sanitize import keep_sgr
from pi_cli.tools.sanitize import strip_control_sequences as safe


def user_block(text: str) -> RenderableType:
    """A user message: a tinted bar so turns are easy to find when scrolling back."""
    body = Text(safe(text), style="bold")
    return Padding(Group(Text("› ", style="cyan bold", end=""), body), (1, 0, 0, 0))


def assistant_text_block(text: str) -> RenderableType:
    return Padding(Markdown(safe(text)), (1, 0, 0, 0))


def thinking_block(text: str) -> RenderableType:
    return Padding(Text(safe(text).strip(), style="dim italic"), (1, 0, 0, 0))


def _styled(lines: list[str]) -> Text:
    """An extension renderer's lines: SGR styles kept, other control sequences dropped."""
    return Text("\n").join(Text.from_ansi(keep_sgr(line)) for line in lines)


def tool_block(
    name: str,
    args: dict[str, Any],
    result: dict[str, Any] | None,
    is_error: bool,
    renderer: ToolRenderer | None = None,
    tool_call_id: str = "",
) -> RenderableType:
    """A finished tool call: its title, then the last lines of its output, collapsed. With an
    extension's ``renderer`` (the runner's ``renderer_for(name)``), its lines replace the title
    and/or the output (collapsed: scrollback cannot expand later); one that fails gives None and
    the default drawing."""
    context = RenderContext(tool_call_id, dict(args), is_error=is_error)
    custom_title = renderer.call(args, context) if renderer is not None else None
    custom_output = renderer.result(result, RenderOptions(), context) if renderer is not None else None
    title = Text(safe(tool_call_title(name, args)), style="bold red" if is_error else "bold")
    parts: list[RenderableType] = [title if custom_title is None else _styled(custom_title)]
    if custom_output is not None:
        if any(line.strip() for line in custom_output):
            parts.append(Padding(_styled(custom_output), (0, 0, 0, 2)))
        return Padding(Group(*parts), (1, 0, 0, 0))
    output = safe(result_text(result))
    lines, hidden = preview_lines(output)
    if hidden:
        parts.append(Text(f"  … ({hidden} earlier lines)", style="dim"))
    style = "red" if is_error else "grey62"
    parts.extend(Text("  " + line, style=style) for line in lines)
    return Padding(Group(*parts), (1, 0, 0, 0))


def custom_block(value: dict[str, Any], renderer: CustomRenderer | None, width: int = 100) -> RenderableType:
    """A custom message (``display``) or a custom entry with a renderer: the extension's lines,
    else pi's default ``[customType] text``."""
    lines = renderer.draw(value, False, width) if renderer is not None else None
    if lines is not None:
        return Padding(_styled(lines), (1, 0, 0, 0))
    content = value.get("content")
    if isinstance(content, list):
        content = "".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    body = content if value.get("role") == "custom" else value.get("data", "")
    label = Text(f"[{safe(str(value.get('customType', 'custom')))}] ", style="bold")
    return Padding(label + Text(safe(str(body or ""))), (1, 0, 0, 0))


class TerminalImage(Text):
    """An image for the scrollback printer to write as its escape ``sequence`` (built by
    :mod:`pi_cli.modes.terminal_images` from checked base64), bypassing Rich."""

    def __init__(self, sequence: str) -> None:
        super().__init__("")
        self.sequence = sequence


def result_images(
    result: dict[str, Any] | None, protocol: Protocol | None, width: int, tmux: bool = False
) -> list[RenderableType]:
    """The images of a tool result drawn inline, when the terminal has a protocol (else none: the
    text already names them); ``tmux``: wrapped for tmux's passthrough."""
    if protocol is None or not result:
        return []
    drawn: list[RenderableType] = []
    for block in result.get("content") or []:
        if block.get("type") == "image":
            sequence = encode(block, protocol, width, tmux)
            if sequence:
                drawn.append(TerminalImage(sequence))
    return drawn


def notice(text: str, style: str = "yellow") -> RenderableType:
    return Padding(Text(safe(text), style=style), (1, 0, 0, 0))


class Unbroken(Text):
    """Text the scrollback printer writes as one line, never wrapped or cropped by us: the terminal
    wraps it softly, so selecting it copies it whole (a login URL)."""


def unbroken(text: str) -> RenderableType:
    return Unbroken("\n" + safe(text))


def error_block(text: str) -> RenderableType:
    return notice(text, "bold red")


def bash_run_block(command: str, output: str, exit_code: int | None, cancelled: bool) -> RenderableType:
    """A user's ``!cmd`` run."""
    parts: list[RenderableType] = [Text(f"$ {safe(command)}", style="bold magenta")]
    lines, hidden = preview_lines(safe(output), 20)
    if hidden:
        parts.append(Text(f"  … ({hidden} earlier lines)", style="dim"))
    parts.extend(Text("  " + line) for line in lines)
    if cancelled:
        parts.append(Text("  (cancelled)", style="yellow"))
    elif exit_code:
        parts.append(Text(f"  Command exited with code {exit_code}", style="red"))
    return Padding(Group(*parts), (1, 0, 0, 0))


def header(version: str, notices: list[str], resources: list[str] | None = None) -> RenderableType:
    """Start header: name and version, the key hints, what was loaded (context files, skills,
    prompts, extensions: the TUI's lines), then any startup notices."""
    parts: list[RenderableType] = [
        Text.assemble(("pi_cli", "bold cyan"), f" v{version}  (inline)"),
        Text(
            "enter send/steer · alt+enter follow-up · alt+up restore queue · ctrl+c abort/clear · "
            "ctrl+d quit · / commands · ! bash",
            style="dim",
        ),
    ]
    parts.extend(Text(safe(line), style="dim") for line in resources or [])
    parts.extend(Text(safe(line), style="yellow") for line in notices)
    return Group(*parts)
