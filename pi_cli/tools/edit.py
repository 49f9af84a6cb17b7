"""The ``edit`` tool: targeted text replacements in one file.

Reads the file, strips a UTF-8 BOM and converts line endings to LF, applies the replacements with
:func:`pi_cli.tools.edit_match.apply_edits`, restores the BOM and the original line ending (CRLF if
the first line break was CRLF) and replaces the file atomically — all under the per-file mutation
lock, so parallel edits of one file apply one after another instead of losing each other's changes.
``details`` holds a numbered diff, pi 1.6's unified ``patch`` and the first changed line.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.tools.base import BuiltinTool, check_aborted, object_schema, string, text_result
from pi_cli.tools.files.atomic import atomic_write_bytes
from pi_cli.tools.files.locks import file_mutation_lock
from pi_cli.tools.files.paths import resolve_to_cwd


def _read_text(path: str, path_arg: str) -> str:
    """The file as text (undecodable bytes kept as surrogate escapes so they survive the rewrite)."""
    from pi_cli.tools.edit_match import EditError

    if not os.path.exists(path):
        raise EditError(f"Could not edit file: {path_arg}. Error code: ENOENT.")
    if os.path.isdir(path):
        raise EditError(f"Could not edit file: {path_arg}. Error code: EISDIR.")
    if not os.access(path, os.R_OK | os.W_OK):
        raise EditError(f"Could not edit file: {path_arg}. Error code: EACCES.")
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "surrogateescape")


class EditTool(BuiltinTool):
    name = "edit"
    label = "edit"
    description = (
        "Change an existing file by replacing exact text. Give one or more {oldText, newText} pairs in "
        "edits; each oldText must appear exactly once in the current file, and every edit is located "
        "in the original file (not in the result of earlier edits), so edits must not overlap. Include "
        "enough surrounding lines to make oldText unique. Use several edits for separate changes to the "
        "same file in one call."
    )
    parameters = object_schema(
        {
            "path": string("File to edit, relative to the working directory or absolute"),
            "edits": {
                "type": "array",
                "description": "Replacements, each matched against the original file content",
                "minItems": 1,
                "items": object_schema(
                    {
                        "oldText": string("Text to replace; must occur exactly once in the file"),
                        "newText": string("Text to put in its place"),
                    },
                    ["oldText", "newText"],
                    closed=True,
                ),
            },
        },
        ["path", "edits"],
        closed=True,
    )

    operation_needs = ("read_file", "write_file")

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        """Accept the legacy single ``oldText``/``newText`` form and ``edits`` sent as a JSON string."""
        out = dict(args)
        edits = out.get("edits")
        if isinstance(edits, str):
            try:
                parsed = json.loads(edits)
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                out["edits"] = parsed
            elif isinstance(parsed, dict):
                out["edits"] = [parsed]
        old, new = out.get("oldText"), out.get("newText")
        if isinstance(old, str) and isinstance(new, str):
            existing = out.get("edits")
            merged = list(existing) if isinstance(existing, list) else []
            merged.append({"oldText": old, "newText": new})
            out["edits"] = merged
            del out["oldText"], out["newText"]
        return out

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        from pi_cli.tools.diff import generate_diff, line_parts, unified_patch
        from pi_cli.tools.edit_match import (
            Edit,
            EditError,
            apply_edits,
            detect_line_ending,
            normalize_to_lf,
            restore_line_endings,
            strip_bom,
        )

        path_arg = str(args["path"])
        raw_edits = args.get("edits")
        if not isinstance(raw_edits, list) or not raw_edits:
            raise EditError("Edit tool input is invalid. edits must contain at least one replacement.")
        edits = [Edit(str(e["oldText"]), str(e["newText"])) for e in raw_edits]
        absolute = resolve_to_cwd(path_arg, self.cwd)
        self.guard_read(absolute)  # the diff in the result shows the old text
        self.guard_write(absolute)
        check_aborted(signal)
        async with file_mutation_lock(absolute):
            check_aborted(signal)
            ops = self.files
            raw: str | None = None
            if ops is not None:
                await ops.access(absolute)
                raw = (await ops.read_file(absolute)).decode("utf-8", "surrogateescape")
            else:
                raw = await self.file_ops.read_text(absolute) if self.file_ops is not None else None
            if raw is None:
                raw = await asyncio.to_thread(_read_text, absolute, path_arg)
            bom, text = strip_bom(raw)
            ending = detect_line_ending(text)
            applied = apply_edits(normalize_to_lf(text), edits, path_arg)
            final = bom + restore_line_endings(applied.new_content, ending)
            check_aborted(signal)
            if ops is not None:
                await ops.write_file(absolute, final)
            elif self.file_ops is None or not await self.file_ops.write_text(absolute, final):
                data = final.encode("utf-8", "surrogateescape")
                await asyncio.to_thread(atomic_write_bytes, absolute, data)
        parts = line_parts(applied.base_content, applied.new_content)
        diff = generate_diff(applied.base_content, applied.new_content, parts=parts)
        return text_result(
            f"Successfully replaced {len(edits)} block(s) in {path_arg}.",
            {"diff": diff.diff, "patch": unified_patch(path_arg, parts), "firstChangedLine": diff.first_changed_line},
        )
