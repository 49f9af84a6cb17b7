"""How a ``subagent`` call reads as text, for every front end: pure functions over its details.

The tool's partial results carry ``details`` (``{"mode", "results": [child, …]}``, see
:mod:`pi_cli.session.subagents.progress`) and, as their text content, :func:`progress_text` of
them, so clients that only show text (ACP's ``tool_call_update``, ``--mode json`` readers) get a
readable status line per child. An inline front end prints :func:`progress_lines` (one
:func:`child_line` per child), a TUI card :func:`card_lines` (or the fields themselves); the final
answer is :func:`result_text`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

STATUS_MARKS = {"queued": "·", "running": "▸", "done": "✓", "error": "✗", "aborted": "■"}
_LINE_WIDTH = 100


def clip(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: max(0, width - 1)] + "…"


def first_line(text: str) -> str:
    """The first non-empty line of ``text`` (stripped), or an empty string."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def tool_summary(name: str, args: Mapping[str, Any]) -> str:
    """A short description of a tool call (``bash`` → its command, file tools → the path)."""
    if name == "bash":
        return clip(first_line(str(args.get("command") or "")), 60)
    path = args.get("path") or args.get("file_path")
    if name in ("read", "write", "edit", "ls"):
        return clip(str(path or "."), 60)
    if name in ("grep", "find"):
        where = f" in {path}" if path else ""
        return clip(f"{args.get('pattern') or ''}{where}", 60)
    if name == "subagent":
        tasks = args.get("tasks")
        agents = [str(t.get("agent")) for t in tasks if isinstance(t, dict)] if isinstance(tasks, list) else []
        return clip(", ".join(agents) or str(args.get("agent") or ""), 60)
    try:
        return clip(json.dumps(dict(args), ensure_ascii=False), 50)
    except (TypeError, ValueError):
        return ""


def format_tokens(count: int) -> str:
    """``950``, ``1.2k``, ``34k``, ``1.5M`` (pi-subagents' style)."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{round(count / 1000)}k"
    return f"{count / 1_000_000:.1f}M"


def format_elapsed(ms: int) -> str:
    """``4s``, ``1m05s``, ``1h02m``."""
    seconds = max(0, ms) // 1000
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"


def elapsed_ms(child: Mapping[str, Any], now_ms: int | None = None) -> int:
    """How long the child has run: until now while running (a front end ticking a clock passes
    its own ``now_ms``), else the recorded ``elapsedMs``."""
    started = child.get("startedAt")
    if child.get("status") == "running" and isinstance(started, int):
        now = now_ms if now_ms is not None else int(time.time() * 1000)
        return max(0, now - started)
    value = child.get("elapsedMs")
    return value if isinstance(value, int) else 0


def _doing(child: Mapping[str, Any], status: str) -> str:
    """What a child is doing: its running tool and that call's summary, else its failure, else
    ``status``."""
    tool = child.get("currentTool")
    if status == "running" and isinstance(tool, dict):
        return f"{tool.get('name')} {tool.get('summary') or ''}".strip()
    if status == "error":
        return f"failed: {child.get('error') or 'error'}"
    return status


def _tokens(child: Mapping[str, Any]) -> str:
    """``↑<input> ↓<output>`` tokens of a child's usage so far."""
    raw = child.get("usage")
    usage: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    return f"↑{format_tokens(int(usage.get('input') or 0))} ↓{format_tokens(int(usage.get('output') or 0))}"


def child_line(child: Mapping[str, Any], now_ms: int | None = None, width: int = _LINE_WIDTH) -> str:
    """One line for a child: mark, label, state (the running tool, else the status), tokens,
    elapsed time, then the last line of its text as far as ``width`` allows. E.g.
    ``▸ scout  grep 'def main' in src  ↑1.2k ↓340  12s  — Looking at the entry point``."""
    status = str(child.get("status") or "queued")
    mark = STATUS_MARKS.get(status, "·")
    label = str(child.get("label") or child.get("agent") or "?")
    state = _doing(child, status)
    head = f"{mark} {label}  {clip(state, 48)}  {_tokens(child)}  {format_elapsed(elapsed_ms(child, now_ms))}"
    last = str(child.get("lastLine") or "")
    if last and status in ("running", "queued") and len(head) + 4 < width:
        head += "  — " + clip(last, width - len(head) - 4)
    return head


def card_lines(child: Mapping[str, Any], now_ms: int | None = None, width: int = 80) -> list[str]:
    """A child as a TUI card shows it, collapsed: its heading (mark, label, model, tokens, elapsed),
    the task, what it is doing (the running tool, else its status or error) and, while it runs,
    the last line of its text. E.g. ``["▸ scout · fx/big · ↑1.2k ↓56 · 12s", "map the parser",
    "grep def parse in src", "Looking at the entry point"]``."""
    status = str(child.get("status") or "queued")
    parts = [f"{STATUS_MARKS.get(status, '·')} {child.get('label') or child.get('agent') or '?'}"]
    if child.get("model"):
        parts.append(str(child["model"]))
    parts.append(_tokens(child))
    parts.append(format_elapsed(elapsed_ms(child, now_ms)))
    doing = _doing(child, status)
    lines = [clip(" · ".join(parts), width), clip(first_line(str(child.get("task") or "")), width), clip(doing, width)]
    last = str(child.get("lastLine") or "")
    if last and status == "running":
        lines.append(clip(last, width))
    return lines


def progress_lines(details: Mapping[str, Any], now_ms: int | None = None, width: int = _LINE_WIDTH) -> list[str]:
    """:func:`child_line` for each child of a call's ``details`` (an inline front end prints
    these; a TUI card shows one per child and the task under it)."""
    results = details.get("results")
    children: Sequence[Any] = results if isinstance(results, list) else []
    return [child_line(child, now_ms, width) for child in children if isinstance(child, dict)]


def progress_text(details: Mapping[str, Any], now_ms: int | None = None) -> str:
    """The text of a partial result: a heading and one line per child."""
    lines = progress_lines(details, now_ms)
    done = sum(1 for child in details.get("results") or [] if child.get("status") in ("done", "error", "aborted"))
    heading = f"Subagents: {done}/{len(lines)} finished" if len(lines) > 1 else "Subagent"
    return "\n".join([heading, *lines])


def result_text(children: Sequence[Mapping[str, Any]], answers: Sequence[str]) -> str:
    """The final result the parent's model reads: one labelled section per task, holding the
    child's final answer (or what it had produced when it failed or was aborted)."""
    sections: list[str] = []
    for child, answer in zip(children, answers, strict=True):
        status = str(child.get("status"))
        state = {"done": "done", "aborted": "aborted"}.get(status, f"failed: {child.get('error') or 'error'}")
        heading = f"## {child.get('label') or child.get('agent')} ({state})"
        body = answer.strip() or "(no output)"
        if status == "aborted" and answer.strip():
            body = f"(aborted; what it had so far)\n{body}"
        sections.append(f"{heading}\nTask: {clip(str(child.get('task') or ''), 200)}\n\n{body}")
    return "\n\n".join(sections)
