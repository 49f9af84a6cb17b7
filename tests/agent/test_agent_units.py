"""Unit tests of the agent core's helpers: validation/coercion, queues, the incremental filter."""

from __future__ import annotations

from typing import Any

import pytest

from pi_cli.agent.loop import LlmMessageFilter, default_convert_to_llm
from pi_cli.agent.queues import MessageQueue
from pi_cli.agent.validation import ToolValidationError, coerce_arguments, validate_tool_arguments

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "n": {"type": "number"},
        "i": {"type": "integer"},
        "s": {"type": "string"},
        "b": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "integer"}},
        "mode": {"type": "string", "enum": ["a", "b"]},
    },
    "required": ["s"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"s": "x", "n": "5"}, {"s": "x", "n": 5}),
        ({"s": "x", "n": "2.5"}, {"s": "x", "n": 2.5}),
        ({"s": 7}, {"s": "7"}),
        ({"s": True}, {"s": "true"}),
        ({"s": "x", "b": "false"}, {"s": "x", "b": False}),
        ({"s": "x", "i": "12"}, {"s": "x", "i": 12}),
        ({"s": "x", "tags": ["1", 2]}, {"s": "x", "tags": [1, 2]}),
    ],
)
def test_coercion(raw: dict[str, Any], expected: dict[str, Any]) -> None:
    out = validate_tool_arguments("t", SCHEMA, raw)
    assert out == expected and out is not raw
    assert type(out.get("n", 0)) in (int, float)


def test_coercion_copies_nested_values() -> None:
    raw = {"s": "x", "tags": [1]}
    out = coerce_arguments(raw, SCHEMA)
    out["tags"].append(2)
    assert raw["tags"] == [1]


def test_error_text_lists_every_failure() -> None:
    with pytest.raises(ToolValidationError) as info:
        validate_tool_arguments("t", SCHEMA, {"i": "1.5", "mode": "z", "extra": 1})
    text = str(info.value)
    lines = text.split("\n")
    assert lines[0] == 'Validation failed for tool "t":'
    assert "  - s: must have required property 's'" in lines
    assert "  - i: must be integer" in lines
    assert "  - mode: must be equal to one of the allowed values" in lines
    assert "  - root: must NOT have additional properties" in lines
    assert text.endswith('Received arguments:\n{\n  "i": "1.5",\n  "mode": "z",\n  "extra": 1\n}')


def test_unusable_schema_is_skipped() -> None:
    assert validate_tool_arguments("t", {"type": 12}, {"a": 1}) == {"a": 1}
    assert validate_tool_arguments("t", None, {"a": 1}) == {"a": 1}


def test_queue_modes() -> None:
    q = MessageQueue()
    for name in "abc":
        q.push({"role": "user", "content": name})
    assert [m["content"] for m in q.drain()] == ["a"]
    q.mode = "all"
    assert [m["content"] for m in q.drain()] == ["b", "c"]
    assert q.drain() == [] and not q
    q.push({"role": "user", "content": "d"})
    assert [m["content"] for m in q.snapshot()] == ["d"] and [m["content"] for m in q.clear()] == ["d"]


def test_incremental_filter_matches_plain_function() -> None:
    f = LlmMessageFilter()
    msgs: list[Any] = [{"role": "user"}, {"role": "notification"}, {"role": "assistant"}]
    assert f(msgs) == default_convert_to_llm(msgs)
    msgs.append({"role": "toolResult"})
    msgs.append({"role": "custom"})
    assert f(msgs) == default_convert_to_llm(msgs)
    first = f(msgs)
    first.clear()  # the caller mutating its list does not corrupt the cache
    assert f(msgs) == default_convert_to_llm(msgs)
    changed = [msgs[0], {"role": "assistant", "x": 1}, *msgs[2:]]
    assert f(changed) == default_convert_to_llm(changed)
    assert f(msgs[:2]) == default_convert_to_llm(msgs[:2])
