"""The ``find`` tool: list files and directories whose names match a glob.

The file list comes from ``rg --files`` (so .gitignore is honoured, hidden files are included and
``.git`` is skipped); matching follows fd's glob rules (see :mod:`pi_cli.tools.files.globs`). Directories
that contain listed files are candidates too and print with a trailing ``/``; empty directories
are not listed, since ripgrep only enumerates files. Results are in path order.
"""

from __future__ import annotations

from typing import Any

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.tools.base import (
    BuiltinTool,
    as_int,
    check_aborted,
    limit_notice,
    listing_result,
    number,
    object_schema,
    require_directory,
    string,
    text_result,
)
from pi_cli.tools.files.globs import compile_glob
from pi_cli.tools.files.paths import resolve_to_cwd
from pi_cli.tools.files.rg import SEARCH_FLAGS, run_rg_lines
from pi_cli.tools.truncate import DEFAULT_MAX_BYTES

DEFAULT_FIND_LIMIT = 1000


class FindTool(BuiltinTool):
    name = "find"
    label = "find"
    description = (
        "Find files by glob pattern (e.g. '*.py', '**/*.json', 'src/**/test_*.py') and list their paths "
        "relative to the search directory; directories end with '/'. Honours .gitignore. Returns at most "
        f"{DEFAULT_FIND_LIMIT} results by default and {DEFAULT_MAX_BYTES // 1024}KB of output."
    )
    parameters = object_schema(
        {
            "pattern": string("Glob to match, e.g. '*.ts', '**/*.json' or 'src/**/*.spec.ts'"),
            "path": string("Directory to search (default: working directory)"),
            "limit": number(f"Most results to return (default: {DEFAULT_FIND_LIMIT})"),
        },
        ["pattern"],
    )

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        matcher = compile_glob(str(args["pattern"]))
        search_path = resolve_to_cwd(str(args.get("path") or "."), self.cwd)
        self.guard_read(search_path)
        limit = max(1, as_int(args.get("limit"), "limit") or DEFAULT_FIND_LIMIT)
        check_aborted(signal)
        require_directory(search_path)

        results: list[str] = []
        seen_dirs: set[str] = set()

        def on_line(line: bytes) -> bool:
            rel = line.decode("utf-8", "surrogateescape").removeprefix("./")
            if not rel:
                return True
            parts = rel.split("/")
            for depth in range(1, len(parts)):
                directory = "/".join(parts[:depth])
                if directory in seen_dirs:
                    continue
                seen_dirs.add(directory)
                if matcher.matches(directory):
                    results.append(directory + "/")
                    if len(results) >= limit:
                        return False
            if matcher.matches(rel):
                results.append(rel)
            return len(results) < limit

        rg_args = ["--files", *SEARCH_FLAGS, "--sort=path"]
        run = await run_rg_lines(rg_args, on_line, signal, cwd=search_path, confinement=self.confinement())
        run.raise_if_failed(found_any=bool(results))
        if not results:
            return text_result("No files found matching pattern")
        return listing_result(results, limit_notice(run.stopped_early, limit, "results", "resultLimitReached"))
