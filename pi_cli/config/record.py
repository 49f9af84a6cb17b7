"""Typed records for JSON settings: camelCase keys, unknown keys kept, field-by-field errors.

Settings are read on every start, in every mode. pydantic did this job, but importing it and
building the settings' models cost 130–190 ms of each start on the development machine (more than
a third of the TUI's launch); the settings need a small part of it. A :class:`Record` subclass
declares fields with annotations and defaults, as a dataclass would:

    class Compaction(Record):
        enabled: bool = True
        reserve_tokens: int = 16384

The field types understood are ``bool``, ``int``, ``float``, ``str``, ``Any``, ``None``,
``Literal[...]``, ``list[T]``, ``dict[str, T]``, unions of these, and nested records. Input keys
may be the field's name or its camelCase alias; output (``to_dict``) uses the alias. Conversions
follow pydantic's lax mode for what JSON can hold: ``"5"`` and ``5.0`` are valid integers, ``"true"``
and ``1`` valid booleans. A mutable default is written ``factory(list)`` (or ``factory(Nested)``),
built fresh for each record.
"""

from __future__ import annotations

import copy
import re
import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar, Literal, Union

Loc = tuple[str | int, ...]
T = typing.TypeVar("T")


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def factory(make: Callable[[], T]) -> T:
    """A field default built fresh for each record (``items: list[str] = factory(list)``)."""
    return _Factory(make)  # type: ignore[return-value]  # stands in for the value until __init__


class RecordError(ValueError):
    """Invalid input: ``errors`` holds ``(location, message)`` pairs, locations in alias names."""

    def __init__(self, errors: list[tuple[Loc, str]]) -> None:
        super().__init__("; ".join(f"{'.'.join(map(str, loc))}: {msg}" for loc, msg in errors))
        self.errors = errors


def camel(name: str) -> str:
    """``reserve_tokens`` → ``reserveTokens``."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    """``reserveTokens`` → ``reserve_tokens``."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


_TRUE = frozenset({"true", "t", "yes", "y", "on", "1"})
_FALSE = frozenset({"false", "f", "no", "n", "off", "0"})


class _Invalid(Exception):
    """What went wrong, relative to the value being converted: ``(location, message)`` pairs."""

    def __init__(self, message: str, loc: Loc = (), errors: list[tuple[Loc, str]] | None = None) -> None:
        self.errors = errors if errors is not None else [(loc, message)]

    def inside(self, *prefix: str | int) -> _Invalid:
        return _Invalid("", errors=[((*prefix, *loc), message) for loc, message in self.errors])


def _convert(kind: Any, value: Any) -> Any:
    """``value`` as ``kind``, or :class:`_Invalid` naming what was expected (and where, inside)."""
    if kind is Any:
        return value
    if kind is None or kind is type(None):
        if value is None:
            return None
        raise _Invalid("Input should be None")
    origin = typing.get_origin(kind)
    if origin is Union or origin is types.UnionType:
        members = typing.get_args(kind)
        if value is None and type(None) in members:
            return None
        failures: list[_Invalid] = []
        for member in members:
            if member is type(None):
                continue
            try:
                return _convert(member, value)
            except _Invalid as exc:
                failures.append(exc)
        if len(failures) == 1:
            raise failures[0]
        raise _Invalid(_union_message(members))
    if origin is Literal:
        choices = typing.get_args(kind)
        if value in choices and not isinstance(value, bool):
            return value
        names = [repr(c) for c in choices]
        raise _Invalid(f"Input should be {', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0])
    if origin is list:
        if not isinstance(value, list):
            raise _Invalid("Input should be a valid list")
        (item,) = typing.get_args(kind) or (Any,)
        out = []
        for index, element in enumerate(value):
            try:
                out.append(_convert(item, element))
            except _Invalid as exc:
                raise exc.inside(index) from None
        return out
    if origin is dict or kind is dict:
        if not isinstance(value, dict):
            raise _Invalid("Input should be a valid dictionary")
        args = typing.get_args(kind)
        if not args or args[1] is Any:
            return dict(value)
        return {key: _convert(args[1], element) for key, element in value.items()}
    if isinstance(kind, type) and issubclass(kind, Record):
        if isinstance(value, kind):
            return value
        if not isinstance(value, dict):
            raise _Invalid(f"Input should be a valid dictionary or instance of {kind.__name__}")
        try:
            return kind.from_dict(value)
        except RecordError as exc:
            raise _Invalid("", errors=exc.errors) from None
    return _scalar(kind, value)


def _scalar(kind: Any, value: Any) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise _Invalid("Input should be a valid boolean")
    if kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
            return int(value)
        raise _Invalid("Input should be a valid integer")
    if kind is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise _Invalid("Input should be a valid number")
    if kind is str:
        if isinstance(value, str):
            return value
        raise _Invalid("Input should be a valid string")
    raise TypeError(f"record field type {kind!r} is not supported")


def _union_message(members: tuple[Any, ...]) -> str:
    names = [getattr(m, "__name__", None) or str(m) for m in members if m is not type(None)]
    return f"Input should match one of: {', '.join(names)}"


class Record:
    """A settings object; see the module docs. Unknown input keys are kept in ``model_extra``."""

    model_fields: ClassVar[dict[str, Any]]  # field name → resolved type (set on first use)
    _defaults: ClassVar[dict[str, Any]]
    _aliases: ClassVar[dict[str, str]]  # input key (name or alias) → field name

    def __init__(self, **values: Any) -> None:
        cls = type(self)
        fields = cls._fields()
        extra: dict[str, Any] = {}
        object.__setattr__(self, "model_extra", extra)
        for name in fields:
            default = cls._defaults[name]
            object.__setattr__(self, name, default.make() if isinstance(default, _Factory) else default)
        for key, value in values.items():
            field = cls._aliases.get(key)
            if field is None:
                extra[key] = value
            else:
                object.__setattr__(self, field, value)

    @classmethod
    def _fields(cls) -> dict[str, Any]:
        if "model_fields" not in cls.__dict__:
            hints = typing.get_type_hints(cls)
            fields = {n: t for n, t in hints.items() if not n.startswith("_") and typing.get_origin(t) is not ClassVar}
            fields.pop("model_extra", None)
            cls._defaults = {n: getattr(cls, n, None) for n in fields}
            cls._aliases = {**{camel(n): n for n in fields}, **{n: n for n in fields}}
            cls.model_fields = fields
        return cls.model_fields

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> typing.Self:
        """A record from JSON-like ``data``; :class:`RecordError` lists every invalid field."""
        fields = cls._fields()
        values: dict[str, Any] = {}
        errors: list[tuple[Loc, str]] = []
        for key, value in data.items():
            name = cls._aliases.get(key)
            if name is None:
                values[key] = value
                continue
            try:
                values[camel(name)] = _convert(fields[name], value)
            except _Invalid as exc:
                errors.extend(exc.inside(camel(name)).errors)
        if errors:
            raise RecordError(errors)
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data: aliases as keys, nested records as objects, extras last."""
        out: dict[str, Any] = {}
        for name in self._fields():
            out[camel(name)] = _dump(getattr(self, name))
        out.update(copy.deepcopy(self.model_extra))
        return out

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: pi's JSON name (settings.defaultModel) reads the field.
        field = snake(name)
        if field != name and field in type(self)._fields():
            return getattr(self, field)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        # settings.steeringMode = "all" sets the field, it does not add an unknown key.
        field = snake(name)
        object.__setattr__(self, field if field in type(self)._fields() else name, value)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields())
        return f"{type(self).__name__}({inner})"


def _dump(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value
