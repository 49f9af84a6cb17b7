"""Bounded memory for huge bash output, and the collector's bookkeeping."""

from __future__ import annotations

import os
import re
import time
import tracemalloc

from tool_helpers import read_bytes, text_of

from pi_cli.agent.types import AgentTool
from pi_cli.tools.shell.output import TAIL_BYTES, OutputCollector


def seq_bytes(n: int) -> int:
    """Bytes printed by ``seq 1 n``."""
    total, low, digits = 0, 1, 1
    while low <= n:
        high = min(n, low * 10 - 1)
        total += (high - low + 1) * (digits + 1)
        low, digits = low * 10, digits + 1
    return total


def check_full_output(path: str) -> None:
    """The temp file holds the whole stream, byte for byte at both ends; then it is removed."""
    try:
        assert os.path.getsize(path) == seq_bytes(6_500_000) == 50_888_896
        with open(path, "rb") as handle:
            assert handle.read(16) == b"1\n2\n3\n4\n5\n6\n7\n8\n"
            handle.seek(-16, os.SEEK_END)
            assert handle.read() == b"\n6499999\n6500000\n"[-16:]
    finally:
        os.unlink(path)


async def test_50mb_output_keeps_memory_bounded_and_tail_correct(tools: dict[str, AgentTool]) -> None:
    # seq 1 6500000 prints 50.9 MB; only the tail may stay in memory, the rest goes to the temp file.
    updates: list[object] = []
    tracemalloc.start()
    try:
        started = time.monotonic()
        result = await tools["bash"].execute("t", {"command": "seq 1 6500000"}, None, updates.append)
        elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"50.9 MB through bash in {elapsed:.2f} s, traced peak {peak / 1e6:.1f} MB, {len(updates)} updates")
    assert peak < 8_000_000  # a few copies of the 100 KB tail, nowhere near the 50 MB stream
    text = text_of(result)
    body, notice = text.rsplit("\n\n", 1)
    # pi 1.6.0 (measured with `seq 1 3000`): a truncated tail drops the final newline before the notice
    assert body.split("\n") == [str(i) for i in range(6498001, 6500001)]
    match = re.fullmatch(r"\[Showing lines 6498001-6500000 of 6500000\. Full output: (.+)\]", notice)
    assert match, notice
    check_full_output(match.group(1))
    assert len(updates) <= elapsed * 10 + 3


def test_collector_counts_whole_stream_and_keeps_only_a_tail() -> None:
    collector = OutputCollector()
    line = b"0123456789" * 9 + b"abcdefghi\n"  # 100 bytes
    for _ in range(20_000):
        collector.feed(line)
    assert collector.total_bytes == 2_000_000 and collector.total_lines == 20_000
    assert collector.dropped >= 2_000_000 - TAIL_BYTES - len(line)
    result = collector.truncation()
    assert result.truncated and result.total_lines == 20_000 and result.output_lines == 512
    assert collector.notice(result).startswith("[Showing lines 19489-20000 of 20000 (50.0KB limit). Full output: ")
    collector.close()
    assert collector.full_output_path is not None
    assert read_bytes(collector.full_output_path) == line * 20_000
    os.unlink(collector.full_output_path)


def test_collector_small_output_has_no_temp_file() -> None:
    collector = OutputCollector()
    collector.feed(b"a\nb")
    collector.feed(b"\n")
    result = collector.truncation()
    assert not result.truncated and result.content == "a\nb\n" and collector.total_lines == 2
    assert collector.full_output_path is None and collector.notice(result) == ""
    collector.close()


def test_collector_last_line_size_spanning_chunks() -> None:
    collector = OutputCollector()
    collector.feed(b"first\n" + b"x" * 70_000)
    collector.feed(b"y" * 70_000 + b"\n")
    result = collector.truncation()
    assert result.last_line_partial and collector.last_line_bytes() == 140_000
    assert collector.notice(result).startswith("[Showing last 50.0KB of line 2 (line is 136.7KB).")
    collector.close()
    assert collector.full_output_path is not None
    os.unlink(collector.full_output_path)


def test_collector_does_not_start_mid_character() -> None:
    collector = OutputCollector()
    collector.feed("é".encode() * 100_000 + b"\n")  # the kept tail starts at an odd byte offset
    result = collector.truncation()
    assert "\ufffd" not in result.content and set(result.content) == {"é"}
    collector.close()
    assert collector.full_output_path is not None
    os.unlink(collector.full_output_path)
