"""The ``read`` tool: file contents for the model, text with head truncation or an image.

Text is decoded as UTF-8 (invalid bytes become U+FFFD) and returned without line numbers; files are
scanned, not loaded, so a multi-gigabyte log costs little memory. At most
``DEFAULT_MAX_LINES`` lines / ``DEFAULT_MAX_BYTES`` bytes are returned, on whole lines, followed by
a notice telling the model which ``offset`` continues. Images (png, jpeg, gif, webp, recognised by
their bytes, not their name) come back as an image block; ones too large to send are described
instead of sent.
"""

from __future__ import annotations

import asyncio
import base64
import os
from typing import Any

from pi_cli.agent.types import AgentToolResult, OnUpdate
from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.types import UserContent
from pi_cli.tools.base import BuiltinTool, as_int, check_aborted, number, object_schema, string, text_result
from pi_cli.tools.files.images import (
    MAX_IMAGE_BASE64_BYTES,
    MAX_IMAGE_DIMENSION,
    detect_image_mime,
    image_dimensions,
)
from pi_cli.tools.files.paths import resolve_read_path
from pi_cli.tools.files.scan import Selection, scan_selection, selection_from_text
from pi_cli.tools.operations import FileOperations
from pi_cli.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head

# A NUL byte in the first block is how we call a file binary (the same test git and grep use).
_BINARY_SNIFF_BYTES = 8192
# Enough to recognise an image and find its size (a JPEG's frame header can follow large EXIF data).
_HEAD_BYTES = 256 * 1024


def _check_readable(path: str) -> None:
    if not os.path.exists(path):
        # pi surfaces Node's access() error verbatim; models have learnt that wording.
        raise FileNotFoundError(f"ENOENT: no such file or directory, access '{path}'")
    if os.path.isdir(path):
        raise IsADirectoryError(f"Cannot read {path}: it is a directory. Use ls to list it.")
    if not os.path.isfile(path):
        raise ValueError(f"Cannot read {path}: not a regular file (device, socket or pipe)")
    if not os.access(path, os.R_OK):
        raise PermissionError(f"EACCES: permission denied, access '{path}'")


class ReadTool(BuiltinTool):
    name = "read"
    label = "read"
    description = (
        "Read a file. Text files come back as plain text (no line numbers), at most "
        f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB per call, whichever comes first; "
        "a note at the end gives the offset to continue from. Use offset and limit to page through "
        "large files. Images (jpg, png, gif, webp) are returned as image attachments."
    )
    parameters = object_schema(
        {
            "path": string("File to read, relative to the working directory or absolute"),
            "offset": number("First line to return, counting from 1"),
            "limit": number("Largest number of lines to return"),
        },
        ["path"],
    )

    operation_needs = ("read_file",)

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        result = await self._read(args, signal)
        result.structured_content = read_output(result.content)
        return result

    async def _read(self, args: dict[str, Any], signal: AbortSignal | None) -> AgentToolResult:
        path_arg = str(args["path"])
        offset = as_int(args.get("offset"), "offset")
        limit = as_int(args.get("limit"), "limit")
        check_aborted(signal)
        absolute = resolve_read_path(path_arg, self.cwd)
        self.guard_read(absolute)
        start = max(0, offset - 1) if offset else 0
        end = start + max(limit, 0) if limit is not None else None
        if self.files is not None:
            return await _read_through(self.files, absolute, path_arg, start, end, offset, signal)
        _check_readable(absolute)
        head, size = await asyncio.to_thread(_read_head, absolute)
        check_aborted(signal)
        mime = detect_image_mime(head[:16])
        if mime is not None:
            return await asyncio.to_thread(_image_result, absolute, head, size, mime)
        if b"\x00" in head[:_BINARY_SNIFF_BYTES]:
            raise ValueError(
                f"Cannot read {absolute}: it is a binary file ({format_size(size)}). "
                "Use bash (e.g. file, xxd, strings) to inspect it."
            )
        buffer = await self.file_ops.read_text(absolute) if self.file_ops is not None else None
        try:
            if buffer is not None:  # the editor's text (it may hold unsaved changes)
                selection = selection_from_text(buffer, start, end, DEFAULT_MAX_BYTES + 2)
            else:
                selection = await asyncio.to_thread(scan_selection, absolute, start, end, DEFAULT_MAX_BYTES + 2)
        except IndexError as exc:
            raise ValueError(f"Offset {offset} is beyond end of file ({exc.args[1]} lines total)") from None
        check_aborted(signal)
        return _text_result(selection, path_arg, start, end)


async def _read_through(
    ops: FileOperations, absolute: str, path_arg: str, start: int, end: int | None, offset: int | None,
    signal: AbortSignal | None,
) -> AgentToolResult:  # fmt: skip
    """``read`` through an extension's backend: its ``access`` check, its image type (or the
    bytes'), then the same image, binary and line rules as a local file (whole file in memory)."""
    await ops.access(absolute)
    mime = await ops.image_mime(absolute)
    data = await ops.read_file(absolute)
    check_aborted(signal)
    if mime is False:
        mime = detect_image_mime(data[:16])
    if mime:
        return _image_result(data, data[:_HEAD_BYTES], len(data), str(mime))
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        raise ValueError(
            f"Cannot read {absolute}: it is a binary file ({format_size(len(data))}). "
            "Use bash (e.g. file, xxd, strings) to inspect it."
        )
    try:
        selection = selection_from_text(data.decode("utf-8", "replace"), start, end, DEFAULT_MAX_BYTES + 2)
    except IndexError as exc:
        raise ValueError(f"Offset {offset} is beyond end of file ({exc.args[1]} lines total)") from None
    return _text_result(selection, path_arg, start, end)


def _read_head(path: str) -> tuple[bytes, int]:
    with open(path, "rb") as handle:
        return handle.read(_HEAD_BYTES), os.fstat(handle.fileno()).st_size


def read_output(content: list[Any]) -> Any:
    """pi 1.6's ``structuredContent`` of a read: the text, or for an image ``{type: "image", data,
    mimeType, note}`` (the note being the text block beside it)."""
    text = next((block.get("text", "") for block in content if block.get("type") == "text"), "")
    image = next((block for block in content if block.get("type") == "image"), None)
    if image is None:
        return text
    return {"type": "image", "data": image["data"], "mimeType": image["mimeType"], "note": text}


def _image_result(path: str | bytes, head: bytes, size: int, mime: str) -> AgentToolResult:
    """The image block for the file at ``path`` (or of the bytes given instead: an extension's
    backend read them), or a note in its place when it is too large to send."""
    note = f"Read image file [{mime}]"
    dims = image_dimensions(head, mime)
    encoded_size = (size + 2) // 3 * 4
    too_wide = dims is not None and max(dims) > MAX_IMAGE_DIMENSION
    if too_wide or encoded_size > MAX_IMAGE_BASE64_BYTES:
        shape = f"{dims[0]}x{dims[1]}, " if dims else ""
        note += (
            f"\n[Image is too large to attach ({shape}{format_size(size)}); the limit is "
            f"{MAX_IMAGE_DIMENSION}x{MAX_IMAGE_DIMENSION} and {format_size(MAX_IMAGE_BASE64_BYTES)} encoded, "
            "and resizing is not available. The image was omitted.]"
        )
        return text_result(note, {"omitted": True, "mimeType": mime, "bytes": size})
    if isinstance(path, bytes):
        data = path
    else:
        with open(path, "rb") as handle:
            data = handle.read()
    content: list[UserContent] = [
        {"type": "text", "text": note},
        {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime},
    ]
    return AgentToolResult(content=content, details=None)


def _text_result(selection: Selection, path_arg: str, start: int, end: int | None) -> AgentToolResult:
    total = selection.total_lines
    trunc = truncate_head(selection.head.decode("utf-8", "replace"))
    if not selection.complete:
        # Only the head of the selection was read; report the sizes of the whole selection.
        trunc.total_lines = selection.selected_lines
        trunc.total_bytes = selection.selected_bytes
    first = start + 1
    details: dict[str, Any] | None = None
    if trunc.first_line_exceeds_limit:
        size = format_size(selection.first_line_bytes)
        out = (
            f"[Line {first} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first}p' {path_arg} | head -c {DEFAULT_MAX_BYTES}]"
        )
        details = {"truncation": trunc.to_json()}
    elif trunc.truncated:
        last = first + trunc.output_lines - 1
        limit_note = "" if trunc.truncated_by == "lines" else f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
        out = (
            f"{trunc.content}\n\n[Showing lines {first}-{last} of {total}{limit_note}. "
            f"Use offset={last + 1} to continue.]"
        )
        details = {"truncation": trunc.to_json()}
    elif end is not None and end < total:
        out = f"{trunc.content}\n\n[{total - end} more lines in file. Use offset={end + 1} to continue.]"
    else:
        out = trunc.content
    return text_result(out, details)
