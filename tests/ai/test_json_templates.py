"""TemplateDecoder: the same objects as json.loads, event after event, whatever the events hold."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_cli.ai.transport.json_templates import TemplateDecoder

HOLES = [
    ('"content":"', ("choices", 0, "delta", "content")),
    ('"arguments":"', ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")),
]


def _chunk(text: str, *, rid: str = "c1", finish: str | None = None) -> str:
    body = {"id": rid, "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def _decode_all(docs: list[str]) -> list[Any]:
    decoder = TemplateDecoder(HOLES)
    out = []
    for doc in docs:
        out.append(json.loads(json.dumps(decoder.loads(doc))))  # a copy: the decoder may reuse its object
    return out


def test_repeated_chunks_decode_as_json_loads_does() -> None:
    docs = [_chunk(t) for t in ["", "he", "llo", ' "quoted" ', "\\ back", "😀", "\u2028", "", "end"]]
    assert _decode_all(docs) == [json.loads(d) for d in docs]


def test_a_chunk_that_differs_elsewhere_is_decoded_whole() -> None:
    docs = [_chunk("a"), _chunk("b"), _chunk("c", finish="stop"), _chunk("d", rid="c2"), _chunk("e", rid="c2")]
    assert _decode_all(docs) == [json.loads(d) for d in docs]


def test_a_marker_at_another_path_or_twice_learns_nothing_wrong() -> None:
    docs = [
        '{"other":{"content":"x"},"choices":[{"delta":{"content":"y"}}]}',  # the marker twice
        '{"choices":[{"delta":{"role":"a"}}],"meta":{"content":"x"}}',  # once, at another path
        '{"choices":[{"delta":{"role":"a"}}],"meta":{"content":"z"}}',
        '{"choices":[{"delta":{"content":"a","content":"b"}}]}',  # duplicate keys: the last wins
        '{"choices":[{"delta":{"content":"c","content":"b"}}]}',
    ]
    assert _decode_all(docs) == [json.loads(d) for d in docs]


def test_bad_json_in_the_hole_raises_like_json_loads() -> None:
    decoder = TemplateDecoder(HOLES)
    decoder.loads(_chunk("a"))
    decoder.loads(_chunk("b"))
    bad = _chunk("c").replace('"c"', '"c\x01"')  # a raw control character in the string
    with pytest.raises(ValueError):
        json.loads(bad)
    with pytest.raises(ValueError):
        decoder.loads(bad)
    broken = _chunk("d")[:-1]
    with pytest.raises(ValueError):
        decoder.loads(broken)


def test_a_hole_that_never_repeats_is_given_up() -> None:
    decoder = TemplateDecoder(HOLES)
    docs = [f'{{"n":{n},"choices":[{{"delta":{{"content":"x"}}}}]}}' for n in range(40)]
    assert [decoder.loads(d) for d in docs] == [json.loads(d) for d in docs]
    assert decoder._holes[0].off  # type: ignore[attr-defined]


_texts = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=6)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(_texts, st.sampled_from(["c1", "c2"]), st.sampled_from([None, "stop"]), st.booleans()), max_size=12
    )
)
def test_any_sequence_decodes_as_json_loads(events: list[tuple[str, str, str | None, bool]]) -> None:
    docs = []
    for text, rid, finish, as_args in events:
        if as_args:
            call = {"index": 0, "function": {"arguments": text}}
            docs.append(json.dumps({"id": rid, "choices": [{"delta": {"tool_calls": [call]}}]}, separators=(",", ":")))
        else:
            docs.append(_chunk(text, rid=rid, finish=finish))
    assert _decode_all(docs) == [json.loads(d) for d in docs]
