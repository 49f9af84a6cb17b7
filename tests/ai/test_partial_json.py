"""pi's streaming JSON ladder: table from spec §6.2 plus properties."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_cli.ai.partial_json import StreamingArgs, complete_prefix, parse_streaming_json, repair_json


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {}),
        ("   ", {}),
        ('{"path": "src/ma', {"path": "src/ma"}),
        ('{"p": "a\\', {"p": "a"}),
        ('{"p":"x","n": 1.', {"p": "x"}),
        ('{"a":{"b":tr', {"a": {"b": True}}),
        ('{"a":nu', {"a": None}),
        ('{"a":[1,2,', {"a": [1, 2]}),
        ('{"a":1e', {"a": 1}),
        ('{"a":-', {}),
        ('{"k', {}),
        ('{"k":', {}),
        ('{"a":"x\\u00', {"a": "x"}),
        ('{"a":"q\\"', {"a": 'q"'}),
        ('{"a":"line\nbreak"}', {"a": "line\nbreak"}),
        ('{"a":"t\tab \\H"}', {"a": "t\tab \\H"}),
        ('{"a":"x\\\\q"}', {"a": "x\\q"}),
        ('{"a":[{"b":"c"},{"d', {"a": [{"b": "c"}, {}]}),
        ("[1, 2]", {}),
        ('"just a string"', {}),
        ("not json at all", {}),
        ('{"a": 1} trailing', {}),
    ],
)
def test_ladder_table(text: str, expected: dict[str, Any]) -> None:
    assert parse_streaming_json(text) == expected


def test_repair_keeps_valid_escapes_and_fixes_the_rest() -> None:
    assert repair_json('{"a": "ok \\n \\u00e9 \\" bad \\q"}') == '{"a": "ok \\n \\u00e9 \\" bad \\\\q"}'
    assert repair_json('{"a": "raw\ttab"}\n') == '{"a": "raw\\ttab"}\n'


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4), st.booleans())
def test_every_prefix_gives_an_object_and_the_whole_text_round_trips(value: dict[str, Any], ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    for end in range(len(text) + 1):
        result = parse_streaming_json(text[:end])
        assert isinstance(result, dict)
    assert parse_streaming_json(text) == value


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    assert isinstance(parse_streaming_json(text), dict)
    completed = complete_prefix(text)
    assert completed is None or isinstance(completed, str)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='{}[]":,\\ntrue1.-e ', max_size=40))
def test_never_raises_on_json_shaped_noise(text: str) -> None:
    assert isinstance(parse_streaming_json(text), dict)


def test_streaming_args_throttles_but_final_is_exact() -> None:
    value = {"path": "big.txt", "content": 'word "quoted" \\ ' * 20000}
    text = json.dumps(value)
    args = StreamingArgs()
    parses = 0
    last: dict[str, Any] = {}
    for start in range(0, len(text), 50):
        args.append(text[start : start + 50])
        current = args.update()
        if current is not last:
            parses += 1
            last = current
        assert isinstance(current, dict)
    assert parses < 200  # ~8,000 fragments, far fewer parses
    assert args.final() == value
