"""Streaming line selection for read: agrees with the naive split, and memory stays bounded."""

from __future__ import annotations

import os
import tempfile
import tracemalloc
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from tool_helpers import text_of, write_file

from pi_cli.agent.types import AgentTool
from pi_cli.tools.files import scan as file_scan
from pi_cli.tools.files.scan import scan_selection


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=60).map(lambda b: b.replace(b"\x00", b"\n").replace(b"\x01", b"\n")),
    st.integers(0, 12),
    st.one_of(st.none(), st.integers(0, 12)),
    st.integers(1, 20),
    st.integers(1, 9),
)
def test_matches_naive_split(content: bytes, start: int, limit: int | None, head_bytes: int, chunk: int) -> None:
    lines = content.split(b"\n")
    with tempfile.NamedTemporaryFile(delete=False) as handle:
        handle.write(content)
    try:
        with mock.patch.object(file_scan, "_CHUNK", chunk):  # exercise chunk boundaries
            if start >= len(lines):
                try:
                    scan_selection(handle.name, start, None if limit is None else start + limit, head_bytes)
                except IndexError as exc:
                    assert exc.args[1] == len(lines)
                    return
                raise AssertionError("expected IndexError")
            end = None if limit is None else start + limit
            result = scan_selection(handle.name, start, end, head_bytes)
    finally:
        os.unlink(handle.name)
    selected = lines[start:end]
    joined = b"\n".join(selected)
    assert result.total_lines == len(lines)
    assert result.selected_lines == len(selected)
    assert result.selected_bytes == len(joined)
    assert result.head == joined[:head_bytes]
    assert result.complete == (len(joined) <= head_bytes)
    assert result.first_line_bytes == (len(selected[0]) if selected else 0)


async def test_reading_the_end_of_a_30mb_file_stays_small(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "huge.log", (b"x" * 99 + b"\n") * 300_000)  # 300,000 lines, 30 MB
    tracemalloc.start()
    try:
        result = await tools["read"].execute("t", {"path": "huge.log", "offset": 299_000}, None, None)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000
    text = text_of(result)
    assert text.endswith("[Showing lines 299000-299511 of 300001 (50.0KB limit). Use offset=299512 to continue.]")
    assert result.details["truncation"]["totalLines"] == 1002  # lines 299000..300001 were selected
    huge_line = await tools["read"].execute("t", {"path": "huge.log", "offset": 300_001}, None, None)
    assert text_of(huge_line) == ""  # the empty line after the final newline
