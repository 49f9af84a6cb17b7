"""The ``ls`` tool: the entries of one directory.

Entries are sorted case-insensitively, include dotfiles, and directories (also symlinks to
directories) end with ``/``. At most ``limit`` entries (default 500) and ``DEFAULT_MAX_BYTES`` of
output are returned, with pi's notices.
"""

from __future__ import annotations

import asyncio
import os
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
from pi_cli.tools.files.paths import resolve_to_cwd
from pi_cli.tools.truncate import DEFAULT_MAX_BYTES

DEFAULT_LS_LIMIT = 500


def _list(path: str) -> list[str]:
    names: list[str] = []
    with os.scandir(path) as entries:
        for entry in entries:
            try:
                is_dir = entry.is_dir()  # follows symlinks, like stat()
            except OSError:
                is_dir = False
            names.append(entry.name + ("/" if is_dir else ""))
    names.sort(key=lambda name: (name.lower(), name))
    return names


class LsTool(BuiltinTool):
    name = "ls"
    label = "ls"
    description = (
        "List a directory: entries in alphabetical order, dotfiles included, directories marked with a "
        f"trailing '/'. Returns at most {DEFAULT_LS_LIMIT} entries by default and "
        f"{DEFAULT_MAX_BYTES // 1024}KB of output."
    )
    parameters = object_schema(
        {
            "path": string("Directory to list (default: working directory)"),
            "limit": number(f"Most entries to return (default: {DEFAULT_LS_LIMIT})"),
        }
    )

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        path = resolve_to_cwd(str(args.get("path") or "."), self.cwd)
        self.guard_read(path)
        limit = max(1, as_int(args.get("limit"), "limit") or DEFAULT_LS_LIMIT)
        check_aborted(signal)
        require_directory(path)
        try:
            names = await asyncio.to_thread(_list, path)
        except OSError as exc:
            raise OSError(f"Cannot read directory: {exc.strerror or exc}") from None
        check_aborted(signal)
        if not names:
            return text_result("(empty directory)")
        reached = limit_notice(len(names) > limit, limit, "entries", "entryLimitReached", advice="")
        return listing_result(names[:limit], reached)
