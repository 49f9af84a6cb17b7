"""The typed-record base behind settings: conversions, error locations, aliases, extras, defaults."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from pi_cli.config.record import Record, RecordError, camel, factory, snake


class Inner(Record):
    reserve_tokens: int = 16384
    enabled: bool = True


class Outer(Record):
    mode: Literal["auto", "ask"] = "auto"
    limit: int | None = None
    ratio: float = 0.5
    name: str = "x"
    tags: list[str] = factory(list)
    packages: list[str | dict[str, Any]] = factory(list)
    inner: Inner = factory(Inner)
    maybe: Inner | None = None
    blob: dict[str, Any] = factory(dict)


def _errors(data: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    with pytest.raises(RecordError) as info:
        Outer.from_dict(data)
    return info.value.errors


def test_names_convert_both_ways() -> None:
    assert camel("reserve_tokens") == "reserveTokens" and camel("ui") == "ui"
    assert snake("reserveTokens") == "reserve_tokens" and snake("maxRetryDelayMs") == "max_retry_delay_ms"


def test_defaults_are_fresh_per_record() -> None:
    a, b = Outer(), Outer()
    a.tags.append("t")
    a.inner.enabled = False
    assert b.tags == [] and b.inner.enabled is True
    assert a != b and Outer() == Outer()


def test_input_takes_aliases_or_names_and_keeps_unknown_keys() -> None:
    record = Outer.from_dict({"inner": {"reserveTokens": 5}, "limit": 3, "myExtension": {"x": 1}})
    assert record.inner.reserve_tokens == 5 and record.limit == 3
    assert record.model_extra == {"myExtension": {"x": 1}}
    assert Outer.from_dict({"inner": {"reserve_tokens": 7}}).inner.reserve_tokens == 7
    out = record.to_dict()
    assert out["inner"] == {"reserveTokens": 5, "enabled": True}
    assert out["myExtension"] == {"x": 1} and list(out)[-1] == "myExtension"


def test_camel_case_attributes_read_and_write_the_fields() -> None:
    record = Outer()
    assert record.inner.reserveTokens == 16384  # type: ignore[attr-defined]
    record.inner.reserveTokens = 1  # type: ignore[attr-defined]
    assert record.inner.reserve_tokens == 1 and record.inner.model_extra == {}
    with pytest.raises(AttributeError):
        _ = record.noSuchThing  # type: ignore[attr-defined]


def test_lax_conversions_match_what_json_users_write() -> None:
    record = Outer.from_dict({"limit": "12", "ratio": 2, "inner": {"enabled": "false", "reserveTokens": 3.0}})
    assert record.limit == 12 and record.ratio == 2.0
    assert record.inner.enabled is False and record.inner.reserve_tokens == 3


@pytest.mark.parametrize(
    ("data", "loc", "words"),
    [
        ({"mode": "never"}, ("mode",), "'auto' or 'ask'"),
        ({"limit": "lots"}, ("limit",), "valid integer"),
        ({"limit": True}, ("limit",), "valid integer"),
        ({"name": 5}, ("name",), "valid string"),
        ({"tags": "a"}, ("tags",), "valid list"),
        ({"tags": ["a", 2]}, ("tags", 1), "valid string"),
        ({"packages": ["ok", 3]}, ("packages", 1), "match one of"),
        ({"inner": {"enabled": "maybe"}}, ("inner", "enabled"), "valid boolean"),
        ({"inner": 4}, ("inner",), "valid dictionary"),
        ({"maybe": {"reserveTokens": "x"}}, ("maybe", "reserveTokens"), "valid integer"),
        ({"blob": []}, ("blob",), "valid dictionary"),
    ],
)
def test_each_bad_field_is_named_where_it_is(data: dict[str, Any], loc: tuple[str | int, ...], words: str) -> None:
    errors = _errors(data)
    assert len(errors) == 1
    assert errors[0][0] == loc and words in errors[0][1]


def test_every_bad_field_is_reported_at_once() -> None:
    errors = _errors({"limit": "x", "inner": {"enabled": 7, "reserveTokens": "y"}})
    assert [loc for loc, _ in errors] == [("limit",), ("inner", "enabled"), ("inner", "reserveTokens")]
