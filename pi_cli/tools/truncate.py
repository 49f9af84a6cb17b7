"""Head and tail truncation of tool output, with pi's limits and size format.

Two independent limits apply and whichever is reached first wins: ``DEFAULT_MAX_LINES`` lines and
``DEFAULT_MAX_BYTES`` bytes of UTF-8. Head truncation (``read``, ``grep``, ``ls``, ``find``) keeps
whole lines from the start; tail truncation (``bash``) keeps whole lines from the end, except when
the very last line alone is too big, in which case the end of that line is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500

TruncatedBy = Literal["lines", "bytes"]


@dataclass(slots=True)
class TruncationResult:
    """What a truncation kept. ``total_*`` describe the input, ``output_*`` the kept part."""

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int

    def to_json(self) -> dict[str, Any]:
        """pi's camelCase shape, as stored in a tool result's ``details.truncation``."""
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


def utf8_len(text: str) -> int:
    """Length of ``text`` in UTF-8 bytes (lone surrogates count as the 3 bytes of U+FFFD)."""
    return len(text.encode("utf-8", "replace"))


def format_size(num_bytes: int) -> str:
    """``512B``, ``1.5KB``, ``2.0MB`` — pi's human-readable sizes (binary units, one decimal)."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{_to_fixed_1(num_bytes / 1024)}KB"
    return f"{_to_fixed_1(num_bytes / (1024 * 1024))}MB"


def _to_fixed_1(value: float) -> str:
    """JavaScript's ``value.toFixed(1)``: an exact tie rounds up (1280 bytes are "1.3KB" in pi),
    where Python's format rounds it to even ("1.2")."""
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _untruncated(content: str, lines: int, size: int, max_lines: int, max_bytes: int) -> TruncationResult:
    return TruncationResult(content, False, None, lines, size, lines, size, False, False, max_lines, max_bytes)


def truncate_head(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep the first whole lines that fit both limits.

    If the first line alone exceeds ``max_bytes`` nothing is kept and ``first_line_exceeds_limit``
    is set, so the caller can point the model at another way to see that line.
    """
    total_bytes = utf8_len(content)
    lines = content.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)

    if utf8_len(lines[0]) > max_bytes:
        return TruncationResult("", True, "bytes", total_lines, total_bytes, 0, 0, False, True, max_lines, max_bytes)

    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for index, line in enumerate(lines[:max_lines]):
        cost = utf8_len(line) + (1 if index else 0)  # the joining newline
        if used + cost > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += cost
    out = "\n".join(kept)
    return TruncationResult(
        out,
        True,
        truncated_by,
        total_lines,
        total_bytes,
        len(kept),
        utf8_len(out),
        False,
        False,
        max_lines,
        max_bytes,
    )


def _tail_bytes(text: str, max_bytes: int) -> str:
    """The longest suffix of ``text`` whose UTF-8 form fits ``max_bytes`` (never splits a character)."""
    raw = text.encode("utf-8", "replace")
    if len(raw) <= max_bytes:
        return text
    start = len(raw) - max_bytes
    while start < len(raw) and (raw[start] & 0xC0) == 0x80:  # skip continuation bytes
        start += 1
    return raw[start:].decode("utf-8", "replace")


def truncate_tail(
    content: str,
    max_lines: int = DEFAULT_MAX_LINES,
    max_bytes: int = DEFAULT_MAX_BYTES,
    total_lines: int | None = None,
    total_bytes: int | None = None,
) -> TruncationResult:
    """Keep the last whole lines that fit both limits.

    ``total_lines``/``total_bytes`` let a caller that only holds the tail of a longer stream (see
    :mod:`pi_cli.tools.shell.output`) report the size of the whole stream; the tail it passes must
    then be longer than ``max_bytes`` or hold the complete output.
    """
    lines = content.split("\n")
    own_bytes = utf8_len(content)
    all_lines = total_lines if total_lines is not None else len(lines)
    all_bytes = total_bytes if total_bytes is not None else own_bytes
    if all_lines <= max_lines and all_bytes <= max_bytes and len(lines) == all_lines:
        return _untruncated(content, all_lines, all_bytes, max_lines, max_bytes)

    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                piece = _tail_bytes(line, max_bytes)
                kept.append(piece)
                used = utf8_len(piece)
                partial = True
            break
        kept.append(line)
        used += cost
    kept.reverse()
    if len(kept) >= max_lines and used <= max_bytes:
        truncated_by = "lines"
    out = "\n".join(kept)
    return TruncationResult(
        out,
        True,
        truncated_by,
        all_lines,
        all_bytes,
        len(kept),
        utf8_len(out),
        partial,
        False,
        max_lines,
        max_bytes,
    )


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one line to ``max_chars`` characters plus ``... [truncated]``; returns (text, was_cut)."""
    if len(line) <= max_chars:
        return line, False
    return f"{line[:max_chars]}... [truncated]", True
