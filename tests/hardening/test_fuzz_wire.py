"""Fuzzing the byte-level decoders a server feeds: the SSE decoder and streaming partial JSON.

Properties: nothing raises, however the bytes arrive; chunking never changes the result; what a
well-behaved server sends decodes exactly; partial JSON always yields an object and the complete
text yields the original object.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pi_cli.ai.partial_json import StreamingArgs, parse_streaming_json, repair_json
from pi_cli.ai.transport.sse import SSEDecoder, SSEEvent, decode_all

from .fuzz_settings import FUZZ

# --- SSE -------------------------------------------------------------------------------------

_SSE_ALPHABET = st.sampled_from(
    [
        b"data:",
        b"data: ",
        b"event: ",
        b"event:x",
        b": ping",
        b"id: 1",
        b"retry: 5",
        b"\n",
        b"\r",
        b"\r\n",
        b"{",
        b"}",
        b'"',
        b"\xe2\x82\xac",
        b"\xf0\x9f\x98\x80",
        b"\xff",
        b"\xc3",
        b"\x00",
        b" ",
        b"a",
        b"\xe2\x80\xa8",
    ]
)
hostile_bytes = st.one_of(st.binary(max_size=400), st.lists(_SSE_ALPHABET, max_size=60).map(b"".join))


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    chunks, last = [], 0
    for point in points:
        chunks.append(data[last:point])
        last = point
    chunks.append(data[last:])
    return chunks


@FUZZ
@given(hostile_bytes, st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_sse_any_bytes_any_chunking_same_events(data: bytes, cuts: list[int]) -> None:
    whole = decode_all([data])
    chunked = decode_all(_split(data, cuts))
    assert chunked == whole
    for event in whole:
        assert isinstance(event, SSEEvent)
        assert isinstance(event.event, str) and isinstance(event.data, str)
        # Line terminators never leak into a field; joined data lines use "\n" only.
        assert "\r" not in event.data and "\r" not in event.event and "\n" not in event.event


_field_text = st.text(alphabet=st.characters(codec="utf-8", blacklist_characters="\r\n"), max_size=30)


@FUZZ
@given(
    st.lists(
        st.tuples(
            st.one_of(st.just(""), _field_text.filter(lambda s: not s.startswith(" "))),
            st.lists(_field_text, min_size=1, max_size=3),
        ),
        max_size=6,
    ),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=10),
    st.booleans(),
)
def test_sse_well_formed_stream_round_trips(
    events: list[tuple[str, list[str]]], newline: str, cuts: list[int], comments: bool
) -> None:
    parts: list[str] = []
    for name, data_lines in events:
        if comments:
            parts.append(": keep-alive" + newline)
        if name:
            parts.append(f"event: {name}{newline}")
        parts.extend(f"data: {line}{newline}" for line in data_lines)
        parts.append(newline)
    wire = "".join(parts).encode("utf-8")
    got = decode_all(_split(wire, cuts))
    assert got == [SSEEvent(name, "\n".join(lines)) for name, lines in events]


def test_sse_megabyte_single_line_is_one_event() -> None:
    payload = "x" * 1_000_000
    decoder = SSEDecoder()
    out: list[SSEEvent] = []
    wire = f"data: {payload}\n\n".encode()
    for start in range(0, len(wire), 65_536):
        out.extend(decoder.feed(wire[start : start + 65_536]))
    out.extend(decoder.close())
    assert out == [SSEEvent("", payload)]


def test_sse_invalid_utf8_becomes_replacement_not_error() -> None:
    assert decode_all([b"data: \xff\xfe ok\n\n"]) == [SSEEvent("", "\ufffd\ufffd ok")]
    # A truncated multi-byte sequence at EOF is flushed as U+FFFD, not raised.
    assert decode_all([b"data: \xe2\x82"]) == [SSEEvent("", "\ufffd")]


# --- partial JSON ------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)


@FUZZ
@given(st.text(max_size=300))
def test_partial_json_any_text_gives_an_object(text: str) -> None:
    value = parse_streaming_json(text)
    assert isinstance(value, dict)
    json.dumps(value)  # whatever came back is itself serialisable
    assert isinstance(repair_json(text), str)


@FUZZ
@given(json_objects, st.integers(min_value=0, max_value=10_000), st.booleans())
def test_partial_json_every_prefix_parses_and_whole_is_exact(obj: dict[str, Any], cut: int, ascii_: bool) -> None:
    text = json.dumps(obj, ensure_ascii=ascii_)
    prefix = text[: cut % (len(text) + 1)]
    assert isinstance(parse_streaming_json(prefix), dict)
    assert parse_streaming_json(text) == obj


@FUZZ
@given(json_objects, st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=200))
def test_streaming_args_fragments_end_exact(obj: dict[str, Any], sizes: list[int]) -> None:
    text = json.dumps(obj)
    args = StreamingArgs(eager_bytes=16)
    position = 0
    index = 0
    while position < len(text):
        size = sizes[index % len(sizes)]
        args.append(text[position : position + size])
        position += size
        index += 1
        assert isinstance(args.update(), dict)
    assert args.final() == obj


def test_partial_json_deep_nesting_does_not_escape() -> None:
    for text in ('{"a":' + "[" * 100_000, '{"a":' + "[" * 100_000 + "]" * 100_000 + "}", "{" * 50_000):
        assert isinstance(parse_streaming_json(text), dict)
