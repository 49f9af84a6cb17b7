"""The ``write`` tool: create or overwrite a file, making parent directories as needed.

The file is replaced atomically (see :mod:`pi_cli.tools.files.atomic`) under the per-file mutation lock,
so a concurrent ``edit`` of the same file never interleaves with it.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.tools.base import BuiltinTool, check_aborted, object_schema, string, text_result
from pi_cli.tools.files.atomic import atomic_write_bytes
from pi_cli.tools.files.locks import file_mutation_lock
from pi_cli.tools.files.paths import resolve_to_cwd


def _write(path: str, content: str) -> None:
    if os.path.isdir(path):
        raise IsADirectoryError(f"Cannot write {path}: it is a directory")
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    atomic_write_bytes(path, content.encode("utf-8", "surrogatepass"))


class WriteTool(BuiltinTool):
    name = "write"
    label = "write"
    description = (
        "Write a file with the given content, replacing it if it exists and creating it (and any "
        "missing parent directories) if it does not. Prefer edit for changing part of an existing file."
    )
    parameters = object_schema(
        {
            "path": string("File to write, relative to the working directory or absolute"),
            "content": string("The complete new content of the file"),
        },
        ["path", "content"],
    )

    operation_needs = ("write_file",)

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        path_arg = str(args["path"])
        content = str(args["content"])
        absolute = resolve_to_cwd(path_arg, self.cwd)
        self.guard_write(absolute)
        check_aborted(signal)
        async with file_mutation_lock(absolute):
            check_aborted(signal)
            try:
                if self.files is not None:
                    await self.files.mkdir(os.path.dirname(absolute) or ".")
                    await self.files.write_file(absolute, content)
                elif self.file_ops is None or not await self.file_ops.write_text(absolute, content):
                    await asyncio.to_thread(_write, absolute, content)
            except IsADirectoryError:
                raise
            except OSError as exc:
                raise OSError(f"Could not write {path_arg}: {exc.strerror or exc}") from None
        return text_result(f"Successfully wrote to {path_arg}")  # pi 1.6.0 (0.73.1 said "wrote N bytes to")
