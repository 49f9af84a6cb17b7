"""UI-neutral display facts shared by every mode that draws for a person (TUI and inline).

Nothing here imports a UI toolkit: these functions turn session state and agent events into short
strings — the footer facts, a tool call's one-line title, a result's text — so the full-screen
and the inline front ends say the same things in the same words.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.tools.files.images import image_dimensions
from pi_cli.tools.truncate import format_size

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

TOOL_OUTPUT_PREVIEW_LINES = 5


def format_tokens(count: float) -> str:
    """Compact token count as pi prints it: ``950``, ``1.2k``, ``15k``, ``1.5M``."""
    if count < 1000:
        return str(int(count))
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    return f"{count / 1_000_000:.1f}M"


def home_relative(path: Path | str) -> str:
    """``path`` with the home directory written as ``~``."""
    text = str(path)
    home = str(Path.home())
    if text == home:
        return "~"
    if text.startswith(home + os.sep):
        return "~" + text[len(home) :]
    return text


def git_branch(cwd: Path) -> str | None:
    """The checked-out branch of the repository holding ``cwd``, read from ``.git/HEAD``.

    Reads one small file instead of running git, so the footer costs nothing to refresh.
    A detached HEAD gives the short commit id; outside a repository, None.
    """
    for directory in (cwd, *cwd.parents):
        git = directory / ".git"
        if git.is_file():  # worktree or submodule: "gitdir: <path>"
            try:
                target = git.read_text(encoding="utf-8").partition("gitdir:")[2].strip()
            except OSError:
                return None
            git = (directory / target).resolve()
        head = git / "HEAD"
        if head.is_file():
            try:
                text = head.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if text.startswith("ref: refs/heads/"):
                return text[len("ref: refs/heads/") :]
            return text[:7] or None
    return None


@dataclass(slots=True)
class FooterFacts:
    """The two footer lines, already formatted (left and right halves of line two)."""

    location: str
    usage: str
    model: str

    def one_line(self, width: int) -> str:
        """Line two with the model pushed to the right edge; usage is cut first when space is short."""
        room = width - len(self.model) - 1
        if room <= 0:
            return self.model[:width]
        usage = self.usage if len(self.usage) <= room else self.usage[: max(room - 1, 0)] + "…"
        return usage + " " * (width - len(usage) - len(self.model)) + self.model


def footer_facts(
    *,
    cwd: Path,
    stats: dict[str, Any],
    model: Mapping[str, Any] | None,
    thinking_level: str,
    session_name: str | None = None,
    auto_compaction: bool = True,
    branch: str | None = None,
    permission_mode: str | None = None,
    sandbox: str | None = None,
) -> FooterFacts:
    """pi's footer: cwd (+branch, +session name); tokens, cost and context %; the approval mode and
    the sandbox beside them (when not pi's defaults: ``⏵ ask``, ``▣ workspace, network off``);
    model and thinking.

    ``stats`` is the session's ``get_session_stats()`` payload (pi's field names), so the footer
    shows exactly the figures ``/session`` and RPC report.
    """
    location = home_relative(cwd)
    if branch:
        location += f" ({branch})"
    if session_name:
        location += f" • {session_name}"
    tokens = stats.get("tokens") or {}
    parts = [
        f"{mark}{format_tokens(tokens[key])}"
        for mark, key in (("↑", "input"), ("↓", "output"), ("R", "cacheRead"), ("W", "cacheWrite"))
        if tokens.get(key)
    ]
    if stats.get("cost"):
        parts.append(f"${float(stats['cost']):.3f}")
    usage = stats.get("contextUsage")
    if usage:
        auto = " (auto)" if auto_compaction else ""
        parts.append(f"{float(usage.get('percent') or 0.0):.1f}%/{format_tokens(usage['contextWindow'])}{auto}")
    if permission_mode and permission_mode != "auto":
        parts.append(f"⏵ {permission_mode}")  # the tool approval mode, when not pi's default
    if sandbox:
        parts.append(f"▣ {sandbox}")  # the sandbox, when on
    model_text = "no model"
    if model:
        model_text = str(model.get("id", "?"))
        if model.get("reasoning"):
            model_text += " • thinking off" if thinking_level == "off" else f" • {thinking_level}"
    return FooterFacts(location=location, usage=" ".join(parts), model=model_text)


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tool_call_title(name: str, args: dict[str, Any]) -> str:
    """One line naming what a tool call does: ``$ ls -la``, ``read src/a.py:10-20``, ``edit a.py``."""
    path = str(args.get("path") or args.get("file_path") or "")
    if name == "bash":
        return "$ " + _short(str(args.get("command", "")), 120)
    if name == "read":
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(offset, int) or isinstance(limit, int):
            start = offset if isinstance(offset, int) else 1
            end = f"{start + limit - 1}" if isinstance(limit, int) else ""
            return f"read {path}:{start}-{end}"
        return f"read {path}"
    if name in ("write", "edit", "ls"):
        return f"{name} {path or '.'}"
    if name in ("grep", "find"):
        where = f" in {path}" if path else ""
        return f"{name} {_short(str(args.get('pattern', '')), 60)}{where}"
    if name == "subagent":
        tasks = args.get("tasks")
        if isinstance(tasks, list):
            agents = ", ".join(str(t.get("agent", "?")) for t in tasks if isinstance(t, dict))
            return f"subagent ×{len(tasks)}: {_short(agents, 80)}"
        return f"subagent {args.get('agent', '?')}: {_short(str(args.get('task', '')), 80)}"
    summary = ", ".join(f"{key}={_short(str(value), 30)}" for key, value in args.items())
    return f"{name} {summary}".rstrip()


def result_text(result: dict[str, Any] | None, *, image_lines: bool = True) -> str:
    """Text blocks of a tool result (``AgentToolResult.to_json()`` shape); each image as its
    :func:`image_label` line, or left out when ``image_lines`` is False (drawn elsewhere)."""
    if not result:
        return ""
    pieces: list[str] = []
    for block in result.get("content") or []:
        if block.get("type") == "text":
            pieces.append(str(block.get("text", "")))
        elif block.get("type") == "image" and image_lines:
            pieces.append(image_label(block))
    return "\n".join(pieces)


_LABEL_HEAD_CHARS = 65_536  # base64 decoded for the size: enough for every header but a JPEG's after huge EXIF


def image_label(block: Mapping[str, Any]) -> str:
    """An image's placeholder line: ``[image png 640x480, 34 KB]`` (the size in pixels when the
    header says it, the bytes from the base64 length)."""
    mime = str(block.get("mimeType", ""))
    kind = mime.partition("/")[2] or mime or "?"
    data = block.get("data")
    if not isinstance(data, str) or not data:
        return f"[image {kind}]"
    try:
        head = base64.b64decode(data[:_LABEL_HEAD_CHARS], validate=True)
    except (binascii.Error, ValueError):
        return f"[image {kind}]"
    size = format_size(len(data) * 3 // 4 - data[-2:].count("="))
    dims = image_dimensions(head, mime)
    return f"[image {kind} {dims[0]}x{dims[1]}, {size}]" if dims else f"[image {kind}, {size}]"


def preview_lines(text: str, keep: int = TOOL_OUTPUT_PREVIEW_LINES) -> tuple[list[str], int]:
    """The last ``keep`` lines of ``text`` and how many earlier lines were left out."""
    lines = text.rstrip("\n").split("\n") if text else []
    if len(lines) <= keep:
        return lines, 0
    return lines[-keep:], len(lines) - keep


def loaded_resource_lines(session: AgentSession, cwd: Path) -> list[str]:
    """What the start header lists as loaded (as pi): context files, skills, prompt templates and
    where each extension came from — one line each, only for what there is."""
    lines: list[str] = []
    loaded = session.resources
    if loaded is not None and loaded.context_files:
        lines.append("Context: " + ", ".join(_short_path(f.path, cwd) for f in loaded.context_files))
    if loaded is not None and loaded.skills:
        lines.append("Skills: " + ", ".join(s.name for s in loaded.skills))
    if loaded is not None and loaded.templates:
        lines.append("Prompts: " + ", ".join("/" + t.name for t in loaded.templates))
    sources = list(session.extensions.sources) if session.extensions is not None else []
    if sources:
        lines.append("Extensions: " + ", ".join(_short_path(s, cwd) if "/" in s else s for s in sources))
    return lines


def _short_path(path: str, cwd: Path) -> str:
    try:
        return str(Path(path).relative_to(cwd))
    except ValueError:
        return home_relative(path)


def question_line_styles(title: str, title_style: str, command_style: str = "") -> list[tuple[str, str]]:
    """Each line of an approval question with its Rich style, as both front ends colour it: the
    first line ``title_style``; then a diff's added lines green and removed ones red (``++``/``--``
    lines are not diff lines), ``$ command`` lines ``command_style`` and ``(notes)`` dim."""
    styled: list[tuple[str, str]] = []
    for index, line in enumerate(title.split("\n")):
        style = title_style if index == 0 else ""
        if index and line[:1] == "+" and line[1:2] != "+":
            style = "green"
        elif index and line[:1] == "-" and line[1:2] != "-":
            style = "red"
        elif line.startswith("$ ") and command_style:
            style = command_style
        elif line.startswith("("):
            style = "dim"
        styled.append((line, style))
    return styled
