"""How a pi tool call looks to an ACP client: kind, title, locations, and content.

ACP shows each call as a card that moves pending → in_progress → completed/failed. The title
names what the call does (``Read src/a.py``, the bash command), ``kind`` picks the icon, and
``locations`` let the editor follow along. ``write`` and ``edit`` carry a diff of the whole file
(``{path, oldText, newText}``): the text before the call is captured when it starts, the text
after it when it ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Files larger than this are not put into diffs (the editor would choke on them anyway).
DIFF_LIMIT_BYTES = 2 * 1024 * 1024

KINDS = {
    "read": "read",
    "write": "edit",
    "edit": "edit",
    "bash": "execute",
    "grep": "search",
    "find": "search",
    "ls": "search",
    "tool_search": "search",
    "subagent": "think",  # delegation: the children's progress arrives as the card's content
}


def tool_kind(name: str) -> str:
    """ACP's ``ToolKind`` for a pi tool (``other`` for extension and MCP tools)."""
    return KINDS.get(name, "other")


def _path_arg(args: dict[str, Any]) -> str | None:
    value = args.get("path") or args.get("file_path")
    return value if isinstance(value, str) and value else None


def tool_title(name: str, args: dict[str, Any]) -> str:
    """A one-line description of the call, as an editor shows it on the card."""
    path = _path_arg(args)
    if name == "bash":
        command = str(args.get("command") or "").strip()
        return command.splitlines()[0] if command else "bash"
    if name in ("read", "write", "edit") and path:
        title = f"{name.capitalize()} {path}"
        offset = args.get("offset")
        if name == "read" and isinstance(offset, int):
            limit = args.get("limit")
            title += f" (from line {offset}" + (f", {limit} lines)" if isinstance(limit, int) else ")")
        return title
    if name in ("grep", "find"):
        pattern = str(args.get("pattern") or "")
        return f"{name} {pattern!r}" + (f" in {path}" if path else "")
    if name == "ls":
        return f"ls {path or '.'}"
    if name == "subagent":
        tasks = args.get("tasks")
        items = [t for t in tasks if isinstance(t, dict)] if isinstance(tasks, list) else [args]
        agents = ", ".join(str(t.get("agent") or "?") for t in items)
        lines = str(items[0].get("task") or "").strip().splitlines() if len(items) == 1 else []
        return f"Subagent {agents}: {lines[0][:80]}" if lines else f"Subagents: {agents}"
    return name


def tool_locations(name: str, args: dict[str, Any], cwd: Path) -> list[dict[str, Any]]:
    """The files a call touches, as absolute paths (``line`` for ranged reads)."""
    path = _path_arg(args)
    if path is None or name not in ("read", "write", "edit", "grep", "find", "ls"):
        return []
    location: dict[str, Any] = {"path": str(resolve(cwd, path))}
    offset = args.get("offset")
    if name == "read" and isinstance(offset, int):
        location["line"] = offset
    return [location]


def resolve(cwd: Path, path: str) -> Path:
    """A tool's path argument as the tools resolve it (``~`` expanded, relative to the cwd)."""
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else cwd / candidate


def read_text(path: Path) -> str | None:
    """The file's text, or None when it is missing, too big or not UTF-8."""
    try:
        if path.stat().st_size > DIFF_LIMIT_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def result_text(result: Any) -> str:
    """The text blocks of a tool result (``AgentToolResult.to_json()`` form) joined."""
    if not isinstance(result, dict):
        return ""
    parts = [b.get("text", "") for b in result.get("content") or [] if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(p for p in parts if p)


def text_content(text: str) -> dict[str, Any]:
    """A ``content`` tool-call content item holding text."""
    return {"type": "content", "content": {"type": "text", "text": text}}


@dataclass(slots=True)
class ToolCallTracker:
    """What the ACP bridge remembers about calls in flight: their args and the files' old text."""

    cwd: Path
    announced: set[str] = field(default_factory=set)
    before: dict[str, tuple[str, str | None]] = field(default_factory=dict)

    def start_fields(self, call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Fields of the ``tool_call`` update announcing a call."""
        self.announced.add(call_id)
        return {
            "toolCallId": call_id,
            "title": tool_title(name, args),
            "kind": tool_kind(name),
            "rawInput": args,
            "locations": tool_locations(name, args, self.cwd),
        }

    def remember_file(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        """Capture the file a ``write``/``edit`` is about to change, for the diff at its end."""
        path = _path_arg(args)
        if name in ("write", "edit") and path is not None:
            target = resolve(self.cwd, path)
            self.before[call_id] = (str(target), read_text(target))

    def end_content(self, call_id: str, name: str, result: Any, is_error: bool) -> list[dict[str, Any]]:
        """The content of a finished call: a diff for a successful write/edit, else its text."""
        before = self.before.pop(call_id, None)
        self.announced.discard(call_id)
        if before is not None and not is_error:
            path, old_text = before
            new_text = read_text(Path(path))
            if new_text is not None:
                return [{"type": "diff", "path": path, "oldText": old_text, "newText": new_text}]
        text = result_text(result)
        return [text_content(text)] if text else []
