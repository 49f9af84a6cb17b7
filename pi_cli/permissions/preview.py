"""What the approval prompt shows: the command, the diff, or the arguments being approved.

``bash`` shows ``$ <command>``; ``edit`` the diff of each edit (pi's compact ``+n`` / ``-n``
format); ``write`` the diff against the current file, or the first lines of a new file; other
tools their arguments as JSON. Long previews are cut at :data:`MAX_LINES` with a note, so a
dialog never grows past the screen.
"""

from __future__ import annotations

import json
import os
from typing import Any

from pi_cli.permissions.rules import tool_path

MAX_LINES = 40
MAX_FILE_BYTES = 512 * 1024  # larger files are not diffed, only named


def _cut(lines: list[str]) -> list[str]:
    if len(lines) <= MAX_LINES:
        return lines
    return [*lines[:MAX_LINES], f"… {len(lines) - MAX_LINES} more lines"]


def _display_path(tool: str, args: dict[str, Any], cwd: str) -> str:
    path = tool_path(tool, args, cwd) or ""
    inside = path.startswith(cwd.rstrip("/") + "/")
    return os.path.relpath(path, cwd) if inside else path


def _current_text(path: str) -> str | None:
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _edited_file(path: str, edits: list[dict[str, Any]]) -> tuple[str, str] | None:
    """(current text, text after ``edits``) of the file an edit call changes, as the edit tool
    will apply them; None when the file cannot be read or the edits would not apply."""
    from pi_cli.tools.edit_match import Edit, EditError, apply_edits, normalize_to_lf, strip_bom

    current = _current_text(path) if path and os.path.isfile(path) else None
    if current is None or not edits:
        return None
    text = normalize_to_lf(strip_bom(current)[1])
    try:
        applied = apply_edits(text, [Edit(str(e.get("oldText", "")), str(e.get("newText", ""))) for e in edits], path)
    except EditError:
        return None
    return applied.base_content, applied.new_content


def preview_lines(tool: str, args: dict[str, Any], cwd: str) -> list[str]:
    """The lines that show what this call would do."""
    from pi_cli.tools.diff import generate_diff  # only when a question is asked (difflib)

    if tool == "bash":
        command = args.get("command")
        lines = [f"$ {line}" if i == 0 else f"  {line}" for i, line in enumerate(str(command).split("\n"))]
        return _cut(lines)
    if tool == "edit":
        lines = [f"edit {_display_path(tool, args, cwd)}"]
        raw = args.get("edits")
        edits = [e for e in raw if isinstance(e, dict)] if isinstance(raw, list) else []
        whole = _edited_file(tool_path(tool, args, cwd) or "", edits)
        if whole is not None:  # the diff as the result will show it, with the file's own line numbers
            return _cut([*lines, *generate_diff(*whole).diff.split("\n")])
        for item in edits:  # the file cannot be read (or the edits do not apply): each replacement
            lines.extend(generate_diff(str(item.get("oldText", "")), str(item.get("newText", ""))).diff.split("\n"))
        return _cut(lines)
    if tool == "write":
        path = tool_path(tool, args, cwd) or ""
        content = str(args.get("content", ""))
        old = _current_text(path) if os.path.isfile(path) else None
        shown = _display_path(tool, args, cwd)
        if old is None and os.path.exists(path):
            return [f"write {shown} (replaces the file; too large to diff)"]
        if old is None:
            new_lines = content.split("\n")
            return _cut([f"write {shown} (new file, {len(new_lines)} lines)", *(f"+ {line}" for line in new_lines)])
        return _cut([f"write {shown}", *generate_diff(old, content).diff.split("\n")])
    text = json.dumps(args, ensure_ascii=False, indent=2, default=str)
    return _cut([tool, *text.split("\n")])
