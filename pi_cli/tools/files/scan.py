"""Reading a slice of lines from a file of any size without loading it whole.

``read`` needs three things from a file: how many lines it has, the bytes of the requested lines
and — only when the first requested line is huge — that line's length. :func:`scan_selection`
gets them in one streaming pass plus one bounded read, so memory stays at a few megabytes for a
multi-gigabyte log. Lines are split on ``\\n`` only, as pi does (a ``\\r`` stays part of its line).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO

_CHUNK = 1 << 20


@dataclass(slots=True)
class Selection:
    total_lines: int  # lines in the whole file ("a\\nb" and "a\\nb\\n" have 2 and 3, as in pi)
    selected_lines: int  # lines in [start, end)
    selected_bytes: int  # bytes of those lines joined by their newlines
    head: bytes  # the first bytes of the selection, at most ``head_bytes``
    complete: bool  # ``head`` holds the whole selection
    first_line_bytes: int  # length of the selection's first line


def _line_starts(handle: BinaryIO, wanted: list[int]) -> tuple[dict[int, int], int, int]:
    """Byte offsets where the lines in ``wanted`` start, plus (total newline count, file size)."""
    found: dict[int, int] = {}
    pending = sorted(k for k in set(wanted) if k > 0)
    if any(k == 0 for k in wanted):
        found[0] = 0
    newlines = 0
    base = 0
    handle.seek(0)
    while True:
        chunk = handle.read(_CHUNK)
        if not chunk:
            break
        count = chunk.count(b"\n")
        while pending and pending[0] <= newlines + count:
            # line k starts right after the k-th newline of the file
            target = pending.pop(0)
            pos = -1
            for _ in range(target - newlines):
                pos = chunk.find(b"\n", pos + 1)
            found[target] = base + pos + 1
        newlines += count
        base += len(chunk)
    return found, newlines, base


def _first_newline_from(handle: BinaryIO, offset: int, limit: int) -> int:
    """Distance from ``offset`` to the next newline (or to ``limit``, the end of the region)."""
    handle.seek(offset)
    distance = 0
    while offset + distance < limit:
        chunk = handle.read(min(_CHUNK, limit - offset - distance))
        if not chunk:
            break
        index = chunk.find(b"\n")
        if index != -1:
            return distance + index
        distance += len(chunk)
    return limit - offset


def scan_selection(path: str, start: int, end: int | None, head_bytes: int) -> Selection:
    """Scan ``path`` for lines ``start`` (0-based) up to ``end`` (exclusive, ``None`` = to the end).

    Raises ``IndexError`` when ``start`` is at or past the end of the file; ``total_lines`` is then
    in the exception's ``args[1]``.
    """
    with open(path, "rb") as handle:
        wanted = [start] + ([end] if end is not None else [])
        starts, newlines, size = _line_starts(handle, wanted)
        total = newlines + 1
        if start >= total:
            raise IndexError("offset beyond end", total)
        begin = starts[start]
        if end is not None and end < total:
            finish = max(begin, starts[end] - 1)  # without the newline ending the last line
            last = end
        else:
            finish = size
            last = total
        length = finish - begin
        handle.seek(begin)
        head = handle.read(min(length, head_bytes))
        newline = head.find(b"\n")
        if newline != -1:
            first_line = newline
        elif len(head) == length:
            first_line = length
        else:
            first_line = len(head) + _first_newline_from(handle, begin + len(head), finish)
    return Selection(
        total_lines=total,
        selected_lines=last - start,
        selected_bytes=length,
        head=head,
        complete=len(head) == length,
        first_line_bytes=first_line,
    )


def selection_from_text(text: str, start: int, end: int | None, head_bytes: int) -> Selection:
    """:func:`scan_selection` over text already in memory (an editor's buffer); same rules."""
    lines = text.split("\n")
    total = len(lines)
    if start >= total:
        raise IndexError("offset beyond end", total)
    chosen = lines[start:end]
    data = "\n".join(chosen).encode("utf-8", "surrogatepass")
    first = len(chosen[0].encode("utf-8", "surrogatepass")) if chosen else 0
    return Selection(total, len(chosen), len(data), data[:head_bytes], len(data) <= head_bytes, first)
