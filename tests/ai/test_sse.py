"""SSE decoder: framing rules and the split-invariance property."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_cli.ai.transport.sse import SSEDecoder, SSEEvent, decode_all

STREAM = (
    'event: message_start\r\ndata: {"a": "caf\u00e9 \U0001f600"}\r\n\r\n'
    ": keep-alive comment\n\n"
    "data: line one\ndata: line two\n\n"
    "id: 7\nretry: 100\nunknown: x\ndata:no-space\r\r"
    "data: \u2028 stays inside\n\n"
    "event: tail\ndata: final without blank line"
).encode()

EXPECTED = [
    SSEEvent("message_start", '{"a": "caf\u00e9 \U0001f600"}'),
    SSEEvent("", "line one\nline two"),
    SSEEvent("", "no-space"),
    SSEEvent("", "\u2028 stays inside"),
    SSEEvent("tail", "final without blank line"),
]


def test_whole_stream() -> None:
    assert decode_all([STREAM]) == EXPECTED


def test_every_single_split_point() -> None:
    for cut in range(len(STREAM) + 1):
        assert decode_all([STREAM[:cut], STREAM[cut:]]) == EXPECTED, cut


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=40))
def test_any_split_decodes_to_the_same_events(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    chunks = [STREAM[a:b] for a, b in zip([0, *points], [*points, len(STREAM)], strict=True)]
    assert decode_all(chunks) == EXPECTED


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "message_start", "ping"]),
            st.lists(
                st.text(alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",))),
                min_size=1,
                max_size=3,
            ),
        ),
        max_size=6,
    ),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.data(),
)
def test_generated_events_survive_any_line_ending_and_split(
    events: list[tuple[str, list[str]]], newline: str, data: st.DataObject
) -> None:
    text = ""
    for name, lines in events:
        if name:
            text += f"event: {name}{newline}"
        text += "".join(f"data: {line}{newline}" for line in lines) + newline
    raw = text.encode()
    expected = [SSEEvent(name, "\n".join(lines)) for name, lines in events]
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(raw)), max_size=20))))
    chunks = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    assert decode_all(chunks) == expected


def test_crlf_split_between_cr_and_lf_is_one_line_end() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\r") == []
    assert decoder.feed(b"\n\r") == [SSEEvent("", "x")]
    assert decoder.feed(b"\ndata: y\n\n") == [SSEEvent("", "y")]


def test_truncated_utf8_at_eof_becomes_replacement() -> None:
    assert decode_all([b"data: \xf0\x9f"]) == [SSEEvent("", "\ufffd")]


def test_event_without_data_is_not_dispatched() -> None:
    assert decode_all([b"event: lonely\n\ndata: real\n\n"]) == [SSEEvent("", "real")]
