"""The ``grep`` tool: search file contents with ripgrep.

Respects .gitignore (also outside git repositories), searches hidden files but never ``.git``.
Each match prints as ``path:LINE: text`` and context lines as ``path-LINE- text``; paths are
relative to the searched directory (just the file name when a single file is searched). Lines are
cut to ``GREP_MAX_LINE_LENGTH`` characters, output to ``DEFAULT_MAX_BYTES``, and at most ``limit``
matches (default 100) are reported, with pi's notices saying which limit was hit.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.tools.base import BuiltinTool, as_int, check_aborted, text_result
from pi_cli.tools.paths import resolve_to_cwd
from pi_cli.tools.rg import run_rg_lines
from pi_cli.tools.truncate import DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, format_size, truncate_head, truncate_line

DEFAULT_GREP_LIMIT = 100


def _file_lines(path: str) -> list[str]:
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return []
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


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
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Regular expression to search for (or literal text)"},
            "path": {"type": "string", "description": "Directory or file to search (default: working directory)"},
            "glob": {
                "type": "string",
                "description": "Only search files matching this glob, e.g. '*.py' or 'src/**/*.ts'",
            },
            "ignoreCase": {"type": "boolean", "description": "Match case-insensitively (default: false)"},
            "literal": {"type": "boolean", "description": "Treat pattern as plain text, not a regex (default: false)"},
            "context": {"type": "number", "description": "Lines of context to show around each match (default: 0)"},
            "limit": {"type": "number", "description": f"Most matches to return (default: {DEFAULT_GREP_LIMIT})"},
        },
        "required": ["pattern"],
    }

    async def execute(
        self,
        tool_call_id: str,
        args: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        pattern = str(args["pattern"])
        search_path = resolve_to_cwd(str(args.get("path") or "."), self.cwd)
        context = max(0, as_int(args.get("context"), "context") or 0)
        limit = max(1, as_int(args.get("limit"), "limit") or DEFAULT_GREP_LIMIT)
        check_aborted(signal)
        is_dir = _search_target_is_dir(search_path)

        rg_args = ["--json", "--line-number", "--color=never", "--hidden", "--no-require-git", "--glob=!.git"]
        if args.get("ignoreCase"):
            rg_args.append("--ignore-case")
        if args.get("literal"):
            rg_args.append("--fixed-strings")
        if args.get("glob"):
            rg_args += ["--glob", str(args["glob"])]
        rg_args += ["--", pattern, search_path]

        matches: list[tuple[str, int]] = []

        def on_line(line: bytes) -> bool:
            if not line.startswith(b'{"type":"match"'):
                return True
            try:
                data = json.loads(line)["data"]
                matches.append((data["path"]["text"], int(data["line_number"])))
            except (ValueError, KeyError, TypeError):
                return True  # non-UTF-8 paths come as base64 "bytes"; skip them
            return len(matches) < limit

        run = await run_rg_lines(rg_args, on_line, signal)
        if not run.stopped_early and run.exit_code not in (0, 1) and not matches:
            raise RuntimeError(run.stderr.strip() or f"ripgrep exited with code {run.exit_code}")
        if not matches:
            return text_result("No matches found")

        def display(file_path: str) -> str:
            if is_dir:
                rel = os.path.relpath(file_path, search_path)
                if not rel.startswith(".."):
                    return rel.replace(os.sep, "/")
            return os.path.basename(file_path)

        cache: dict[str, list[str]] = {}
        out_lines: list[str] = []
        cut_any = False
        for file_path, number in matches:
            if file_path not in cache:
                cache[file_path] = await asyncio.to_thread(_file_lines, file_path)
            lines = cache[file_path]
            shown = display(file_path)
            if not lines:
                out_lines.append(f"{shown}:{number}: (unable to read file)")
                continue
            first = max(1, number - context)
            last = min(len(lines), number + context)
            for current in range(first, last + 1):
                text, cut = truncate_line(lines[current - 1] if current <= len(lines) else "")
                cut_any = cut_any or cut
                sep = ":" if current == number else "-"
                out_lines.append(f"{shown}{sep}{current}{sep} {text}")

        trunc = truncate_head("\n".join(out_lines), max_lines=1 << 62)
        output = trunc.content
        details: dict[str, Any] = {}
        notices: list[str] = []
        if run.stopped_early:
            notices.append(f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern")
            details["matchLimitReached"] = limit
        if trunc.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details["truncation"] = trunc.to_json()
        if cut_any:
            notices.append(f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines")
            details["linesTruncated"] = True
        if notices:
            output += f"\n\n[{'. '.join(notices)}]"
        return text_result(output, details or None)
