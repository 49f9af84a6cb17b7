"""The ``grep`` tool: search file contents with ripgrep.

Respects .gitignore (also outside git repositories), searches hidden files but never ``.git``.
Each match prints as ``path:LINE: text`` and context lines as ``path-LINE- text``; paths are
relative to the searched directory (just the file name when a single file is searched). Lines come
from ripgrep's own output (context included), so matched files are never loaded whole; unlike pi,
the context of neighbouring matches is merged rather than repeated. Lines are
cut to ``GREP_MAX_LINE_LENGTH`` characters, output to ``DEFAULT_MAX_BYTES``, and at most ``limit``
matches (default 100) are reported, with pi's notices saying which limit was hit.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from typing import Any

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.tools.base import (
    BuiltinTool,
    Notice,
    as_int,
    boolean,
    check_aborted,
    limit_notice,
    listing_result,
    number,
    object_schema,
    string,
    text_result,
)
from pi_cli.tools.files.paths import resolve_to_cwd
from pi_cli.tools.files.rg import SEARCH_FLAGS, run_rg_lines
from pi_cli.tools.truncate import DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, truncate_line

DEFAULT_GREP_LIMIT = 100


def _event_text(field: dict[str, Any]) -> str:
    """A line from an rg JSON event (``text``, or base64 ``bytes`` for invalid UTF-8), without its newline."""
    if "text" in field:
        text = str(field["text"])
    else:
        text = base64.b64decode(field.get("bytes", "")).decode("utf-8", "replace")
    return text.rstrip("\n").replace("\r", "")


class _Collector:
    """Turns rg's JSON events into pi's lines, stopping once ``limit`` matches have their context.

    A match beyond the limit (or the leading context rg prints for one) proves there are more
    matches, which is when the limit notice is shown.
    """

    def __init__(self, limit: int, context: int, display: Callable[[str], str]) -> None:
        self.limit = limit
        self.context = context
        self.display = display
        self.lines: list[str] = []
        self.matches = 0
        self.limit_reached = False
        self.cut_any = False
        self._last: tuple[str, int] = ("", 0)

    def on_line(self, raw: bytes) -> bool:
        if not raw.startswith((b'{"type":"match"', b'{"type":"context"')):
            return True
        try:
            event = json.loads(raw)
            data = event["data"]
            path = str(data["path"].get("text") or base64.b64decode(data["path"]["bytes"]).decode("utf-8", "replace"))
            number = int(data["line_number"])
            text = _event_text(data["lines"])
        except (ValueError, KeyError, TypeError, AttributeError):
            return True
        is_match = event["type"] == "match"
        if self.matches >= self.limit:
            last_path, last_number = self._last
            if is_match or path != last_path or number > last_number + self.context:
                self.limit_reached = True
                return False
        if is_match:
            self.matches += 1
            self._last = (path, number)
        line, cut = truncate_line(text)
        self.cut_any = self.cut_any or cut
        sep = ":" if is_match else "-"
        self.lines.append(f"{self.display(path)}{sep}{number}{sep} {line}")
        return True


def _search_target_is_dir(path: str) -> bool:
    if not os.path.exists(path):
        raise FileNotFoundError(f"Path not found: {path}")
    return os.path.isdir(path)


class GrepTool(BuiltinTool):
    name = "grep"
    label = "grep"
    description = (
        "Search the contents of files for a regular expression (or a literal string) using ripgrep. "
        "Prints matching lines as path:line: text. Honours .gitignore. Returns at most "
        f"{DEFAULT_GREP_LIMIT} matches by default and {DEFAULT_MAX_BYTES // 1024}KB of output; lines longer "
        f"than {GREP_MAX_LINE_LENGTH} characters are cut."
    )
    parameters = object_schema(
        {
            "pattern": string("Regular expression to search for (or literal text)"),
            "path": string("Directory or file to search (default: working directory)"),
            "glob": string("Only search files matching this glob, e.g. '*.py' or 'src/**/*.ts'"),
            "ignoreCase": boolean("Match case-insensitively (default: false)"),
            "literal": boolean("Treat pattern as plain text, not a regex (default: false)"),
            "context": number("Lines of context to show around each match (default: 0)"),
            "limit": number(f"Most matches to return (default: {DEFAULT_GREP_LIMIT})"),
        },
        ["pattern"],
    )

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        pattern = str(args["pattern"])
        search_path = resolve_to_cwd(str(args.get("path") or "."), self.cwd)
        self.guard_read(search_path)
        context = max(0, as_int(args.get("context"), "context") or 0)
        limit = max(1, as_int(args.get("limit"), "limit") or DEFAULT_GREP_LIMIT)
        check_aborted(signal)
        is_dir = _search_target_is_dir(search_path)

        rg_args = ["--json", "--line-number", *SEARCH_FLAGS]
        if args.get("ignoreCase"):
            rg_args.append("--ignore-case")
        if args.get("literal"):
            rg_args.append("--fixed-strings")
        if args.get("glob"):
            rg_args += ["--glob", str(args["glob"])]
        if context:
            rg_args += ["--context", str(context)]
        rg_args += ["--", pattern, search_path]

        def display(file_path: str) -> str:
            if is_dir:
                rel = os.path.relpath(file_path, search_path)
                if not rel.startswith(".."):
                    return rel.replace(os.sep, "/")
            return os.path.basename(file_path)

        collected = _Collector(limit, context, display)
        run = await run_rg_lines(rg_args, collected.on_line, signal, confinement=self.confinement())
        run.raise_if_failed(found_any=collected.matches > 0)
        if not collected.matches:
            return text_result("No matches found")
        reached = limit_notice(collected.limit_reached, limit, "matches", "matchLimitReached")
        cut_notice: Notice | None = None
        if collected.cut_any:
            cut_notice = (
                f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines",
                "linesTruncated",
                True,
            )
        return listing_result(collected.lines, reached, cut_notice)
