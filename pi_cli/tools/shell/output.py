"""Collecting a command's output with bounded memory.

A command may print gigabytes; only the last ``TAIL_BYTES`` are kept in memory (enough for pi's
tail truncation, which never shows more than ``DEFAULT_MAX_BYTES``) while every byte is written to
``$TMPDIR/pi-bash-<16 hex>.log`` once the output outgrows what the model will be shown. Lines and
bytes are counted over the whole stream, so notices report true totals.

One trailing newline is not counted as an extra empty line: ``seq 3`` is 3 lines.
"""

from __future__ import annotations

import codecs
import os
import secrets
import tempfile
from collections import deque
from typing import Any, BinaryIO

from pi_cli.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
    truncate_tail,
)

# Twice the byte limit: the tail shown is at most DEFAULT_MAX_BYTES, and keeping more than that
# guarantees the (possibly cut) first line of the buffer is never shown as if it were whole.
TAIL_BYTES = DEFAULT_MAX_BYTES * 2


def new_temp_log_path() -> str:
    """A fresh ``pi-bash-<16 hex>.log`` path in the system temp directory."""
    return os.path.join(tempfile.gettempdir(), f"pi-bash-{secrets.token_hex(8)}.log")


class OutputCollector:
    """Accumulates raw output bytes: rolling in-memory tail + full copy in a temp file when large."""

    def __init__(self, tail_bytes: int = TAIL_BYTES) -> None:
        self._tail_limit = max(tail_bytes, DEFAULT_MAX_BYTES + 1)
        self._chunks: deque[bytes] = deque()
        self._held = 0
        self.dropped = 0  # bytes no longer in memory (they are in the temp file)
        self.total_bytes = 0
        self._newlines = 0
        self._current_line = 0  # bytes after the last newline
        self._last_full_line = 0  # bytes of the line ended by the last newline
        self._ends_with_newline = False
        self.full_output_path: str | None = None
        self._file: BinaryIO | None = None

    # --- feeding ---------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Add a chunk of output."""
        if not data:
            return
        self.total_bytes += len(data)
        count = data.count(b"\n")
        self._newlines += count
        if count:
            last = data.rfind(b"\n")
            before = data.rfind(b"\n", 0, last)
            self._last_full_line = (self._current_line + last) if before == -1 else (last - before - 1)
            self._current_line = len(data) - last - 1
        else:
            self._current_line += len(data)
        self._ends_with_newline = data.endswith(b"\n")

        self._chunks.append(data)
        self._held += len(data)
        if self._file is None and (self.total_bytes > DEFAULT_MAX_BYTES + 1 or self._newlines > DEFAULT_MAX_LINES):
            self._open_file()  # writes everything held so far, including this chunk
        elif self._file is not None:
            self._file.write(data)
        while self._chunks and self._held - len(self._chunks[0]) >= self._tail_limit:
            removed = self._chunks.popleft()
            self._held -= len(removed)
            self.dropped += len(removed)

    def _open_file(self) -> None:
        self.full_output_path = new_temp_log_path()
        self._file = open(self.full_output_path, "wb")  # noqa: SIM115 - closed in close()
        for chunk in self._chunks:
            self._file.write(chunk)

    def close(self) -> None:
        """Flush and close the temp file (if any). Safe to call twice."""
        if self._file is not None:
            self._file.close()
            self._file = None

    # --- reading ---------------------------------------------------------------------------

    @property
    def total_lines(self) -> int:
        if self.total_bytes == 0:
            return 0
        return self._newlines + 1 - (1 if self._ends_with_newline else 0)

    def _tail_text(self) -> str:
        raw = b"".join(self._chunks)
        if self.dropped:
            start = 0
            while start < len(raw) and (raw[start] & 0xC0) == 0x80:  # don't start mid-character
                start += 1
            raw = raw[start:]
        if self._ends_with_newline:
            raw = raw[:-1]
        return raw.decode("utf-8", "replace")

    def truncation(self) -> TruncationResult:
        """pi's tail truncation of the output so far, with totals over the whole stream."""
        # pi 1.6.0 counts every byte of the stream (the final newline too) but not the empty "line"
        # after a final newline; measured: `seq 1 3000` → totalBytes 13893, totalLines 3000.
        result = truncate_tail(self._tail_text(), total_lines=max(self.total_lines, 1), total_bytes=self.total_bytes)
        if self._ends_with_newline and not result.truncated:
            # A whole output keeps its final newline, as pi 1.6.0 returns it ("a\nb\n", not "a\nb"); a
            # truncated tail does not (pi: "…3000\n\n[Showing lines …]").
            result.content += "\n"
        if result.truncated and self._file is None and self.full_output_path is None:
            self._open_file()  # only reachable for many short lines; the whole output is still held
        return result

    def full_text(self, max_bytes: int) -> tuple[str, bool]:
        """The whole output as text, and whether it was cut: beyond ``max_bytes`` the first and last
        halves with pi 1.6's ``[... N bytes omitted ...]`` between (cut at character boundaries)."""
        if self.full_output_path is None:
            return b"".join(self._chunks).decode("utf-8", "replace"), False
        if self._file is not None:
            self._file.flush()
        with open(self.full_output_path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size <= max_bytes:
                return handle.read().decode("utf-8", "replace"), False
            head_bytes = max_bytes // 2
            tail_bytes = max_bytes - head_bytes
            head = handle.read(head_bytes)
            handle.seek(size - tail_bytes)
            tail = handle.read(tail_bytes)
        head_text = codecs.getincrementaldecoder("utf-8")("replace").decode(head)  # holds back a cut character
        start = 0
        while start < len(tail) and (tail[start] & 0xC0) == 0x80:
            start += 1
        omitted = size - head_bytes - tail_bytes
        return f"{head_text}\n\n[... {omitted} bytes omitted ...]\n\n{tail[start:].decode('utf-8', 'replace')}", True

    def last_line_bytes(self) -> int:
        return self._last_full_line if self._ends_with_newline else self._current_line

    def notice(self, result: TruncationResult) -> str:
        """The ``[Showing …. Full output: …]`` line for a truncated result ("" if not truncated)."""
        if not result.truncated:
            return ""
        end = result.total_lines
        start = end - result.output_lines + 1
        where = f"Full output: {self.full_output_path}"
        if result.last_line_partial:
            return (
                f"[Showing last {format_size(result.output_bytes)} of line {end} "
                f"(line is {format_size(self.last_line_bytes())}). {where}]"
            )
        if result.truncated_by == "lines":
            return f"[Showing lines {start}-{end} of {end}. {where}]"
        return f"[Showing lines {start}-{end} of {end} ({format_size(DEFAULT_MAX_BYTES)} limit). {where}]"

    def details(self, result: TruncationResult) -> dict[str, Any] | None:
        """``details`` for a tool result: truncation info and the temp file path, when truncated."""
        if not result.truncated:
            return None
        return {"truncation": result.to_json(), "fullOutputPath": self.full_output_path}
