"""pi's truncation rules and size format."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pi_cli.tools.truncate import (
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
    utf8_len,
)


def test_format_size_matches_pi() -> None:
    assert format_size(512) == "512B"
    assert format_size(1023) == "1023B"
    assert format_size(1536) == "1.5KB"
    assert format_size(51200) == "50.0KB"
    assert format_size(2 * 1024 * 1024) == "2.0MB"


def test_head_within_limits_is_untouched() -> None:
    result = truncate_head("a\nb\nc")
    assert not result.truncated and result.content == "a\nb\nc" and result.total_lines == 3


def test_head_by_lines() -> None:
    text = "\n".join(str(i) for i in range(1, 2501))
    result = truncate_head(text)
    assert result.truncated and result.truncated_by == "lines"
    assert result.output_lines == 2000 and result.content.split("\n")[-1] == "2000"


def test_head_by_bytes_keeps_whole_lines() -> None:
    text = "\n".join("x" * 99 for _ in range(1000))  # 100 bytes per line with the newline
    result = truncate_head(text)
    assert result.truncated_by == "bytes"
    assert all(len(line) == 99 for line in result.content.split("\n"))
    assert result.output_bytes <= 51200 and result.output_lines == 512


def test_head_first_line_too_long() -> None:
    result = truncate_head("y" * 60000 + "\nshort")
    assert result.first_line_exceeds_limit and result.content == "" and result.output_lines == 0


def test_tail_by_lines_and_bytes() -> None:
    lines = truncate_tail("\n".join(str(i) for i in range(1, 3002)))
    assert lines.truncated_by == "lines" and lines.content.startswith("1002\n") and lines.output_lines == 2000
    wide = truncate_tail("\n".join("z" * 99 for _ in range(1000)))
    assert wide.truncated_by == "bytes" and wide.output_bytes <= 51200


def test_tail_partial_last_line_respects_characters() -> None:
    result = truncate_tail("é" * 40000)  # 80,000 bytes, one line
    assert result.last_line_partial and result.truncated_by == "bytes"
    assert set(result.content) == {"é"} and utf8_len(result.content) <= 51200


def test_truncate_line() -> None:
    assert truncate_line("a" * 10) == ("a" * 10, False)
    text, cut = truncate_line("b" * 600)
    assert cut and text == "b" * 500 + "... [truncated]"


@given(st.lists(st.text(alphabet="ab\u00e9\u4e2d", max_size=80), max_size=60), st.integers(1, 30), st.integers(1, 400))
def test_tail_is_a_suffix_within_limits(parts: list[str], max_lines: int, max_bytes: int) -> None:
    text = "\n".join(parts)
    result = truncate_tail(text, max_lines=max_lines, max_bytes=max_bytes)
    assert text.endswith(result.content)
    assert result.output_lines <= max_lines
    assert utf8_len(result.content) <= max_bytes or not result.truncated


@given(st.lists(st.text(alphabet="ab\u00e9", max_size=50), max_size=60), st.integers(1, 30), st.integers(1, 400))
def test_head_is_a_prefix_of_whole_lines(parts: list[str], max_lines: int, max_bytes: int) -> None:
    text = "\n".join(parts)
    result = truncate_head(text, max_lines=max_lines, max_bytes=max_bytes)
    assert text.startswith(result.content)
    if result.truncated and result.content:
        assert text[len(result.content)] == "\n"
        assert utf8_len(result.content) <= max_bytes and result.output_lines <= max_lines
