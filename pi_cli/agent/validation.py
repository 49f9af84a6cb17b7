"""Tool-argument validation: coerce to the schema, then check it with jsonschema.

Behaves like pi-ai's ``validateToolArguments`` (AJV with ``coerceTypes``): the arguments are
copied, scalars are coerced to the schema's declared type (``"5"`` → ``5`` for number/integer,
``5`` → ``"5"`` for string, ``"true"`` → ``True`` …), and on failure a :class:`ToolValidationError`
is raised whose text is pi's::

    Validation failed for tool "<name>":
      - <path>: <message>

    Received arguments:
    <arguments as 2-space indented JSON>

``path`` is the dotted location of the failing value; for a missing property at the top level it
is the property's name, otherwise ``root``. Messages use AJV's wording for the common keywords so
models trained on pi see familiar text. A schema jsonschema cannot use is skipped (pi skips a
schema AJV cannot compile).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # jsonschema itself is imported at the first validation: it costs ~40 ms at start-up
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

_validators: dict[int, tuple[dict[str, Any], Validator]] = {}
_NO = object()  # "cannot coerce"


class ToolValidationError(ValueError):
    """Arguments that do not match a tool's schema; ``str()`` is pi's full error text."""


def _is_type(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "null":
        return value is None
    return True


def _number_from_text(text: str) -> float | int | object:
    stripped = text.strip()
    if not stripped:
        return _NO
    try:
        number = float(stripped)
    except ValueError:
        return _NO
    if not math.isfinite(number):
        return _NO
    return int(number) if number.is_integer() and "." not in stripped and "e" not in stripped.lower() else number


def _js_number_text(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _coerce_scalar(value: Any, kind: str) -> Any:
    """AJV's ``coerceTypes: true`` conversions for one value, or ``_NO``."""
    if isinstance(value, dict | list):
        return _NO
    if kind in ("number", "integer"):
        if isinstance(value, bool):
            return int(value)
        if value is None:
            return 0
        if isinstance(value, str):
            number = _number_from_text(value)
            if number is _NO:
                return _NO
            if kind == "integer":
                if isinstance(number, float) and not number.is_integer():
                    return _NO
                return int(number)  # type: ignore[call-overload]
            return number
        return _NO
    if kind == "string":
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return _js_number_text(value)
        if value is None:
            return ""
        return _NO
    if kind == "boolean":
        if value in ("true", 1) and not isinstance(value, float):
            return True
        if value in ("false", 0) and not isinstance(value, float):
            return False
        if value is None:
            return False
        return _NO
    if kind == "null":
        if value in ("", 0, False):
            return None
        return _NO
    return _NO


def coerce_arguments(value: Any, schema: Any) -> Any:
    """A fresh copy of ``value`` (dicts and lists copied) with scalars coerced to ``schema``."""
    if isinstance(schema, dict):
        declared = schema.get("type")
        if isinstance(declared, str):
            kinds = [declared]
        else:
            kinds = [k for k in declared if isinstance(k, str)] if isinstance(declared, list) else []
        if kinds and not any(_is_type(value, kind) for kind in kinds):
            for kind in kinds:
                converted = _coerce_scalar(value, kind)
                if converted is not _NO:
                    value = converted
                    break
    else:
        schema = {}
    if isinstance(value, dict):
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        out: dict[str, Any] = {}
        for key, item in value.items():
            sub = properties.get(key) if isinstance(properties, dict) and key in properties else extra
            out[key] = coerce_arguments(item, sub)
        return out
    if isinstance(value, list):
        items = schema.get("items")
        return [coerce_arguments(item, items) for item in value]
    return value


def _message(error: ValidationError) -> str:
    """AJV's wording for the common keywords (jsonschema's own text otherwise)."""
    keyword, expected = error.validator, cast(Any, error.validator_value)
    formats: dict[str, Callable[[], str]] = {
        "required": lambda: f"must have required property '{_missing(error)}'",
        "type": lambda: f"must be {expected if isinstance(expected, str) else ','.join(map(str, expected))}",
        "enum": lambda: "must be equal to one of the allowed values",
        "const": lambda: "must be equal to constant",
        "minimum": lambda: f"must be >= {expected}",
        "maximum": lambda: f"must be <= {expected}",
        "exclusiveMinimum": lambda: f"must be > {expected}",
        "exclusiveMaximum": lambda: f"must be < {expected}",
        "minLength": lambda: f"must NOT have fewer than {expected} characters",
        "maxLength": lambda: f"must NOT have more than {expected} characters",
        "minItems": lambda: f"must NOT have fewer than {expected} items",
        "maxItems": lambda: f"must NOT have more than {expected} items",
        "additionalProperties": lambda: "must NOT have additional properties",
        "pattern": lambda: f'must match pattern "{expected}"',
        "format": lambda: f'must match format "{expected}"',
        "anyOf": lambda: "must match a schema in anyOf",
        "oneOf": lambda: "must match exactly one schema in oneOf",
    }
    make = formats.get(str(keyword))
    return make() if make is not None else error.message


def _missing(error: ValidationError) -> str:
    # jsonschema's text is "'name' is a required property"; the name is the quoted prefix.
    text = error.message
    if text.startswith("'") and "' is a required property" in text:
        return text[1 : text.index("' is a required property")]
    return text


def _path(error: ValidationError) -> str:
    if error.absolute_path:
        return ".".join(str(part) for part in error.absolute_path)
    if error.validator == "required":
        return _missing(error)
    return "root"


def _validator_for(schema: dict[str, Any]) -> Validator | None:
    hit = _validators.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    import jsonschema

    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        validator: Validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    except Exception:
        return None
    _validators[id(schema)] = (schema, validator)
    return validator


def validate_tool_arguments(tool_name: str, schema: Any, arguments: Any) -> dict[str, Any]:
    """Coerced copy of ``arguments``; raises :class:`ToolValidationError` with pi's text."""
    coerced = coerce_arguments(arguments, schema)
    if not isinstance(schema, dict):
        return coerced if isinstance(coerced, dict) else {}
    validator = _validator_for(schema)
    if validator is None:
        return coerced if isinstance(coerced, dict) else {}
    try:
        errors = list(validator.iter_errors(coerced))
    except Exception:  # an unusable schema is skipped, as pi skips one AJV cannot compile
        return coerced if isinstance(coerced, dict) else {}
    if not errors:
        return coerced if isinstance(coerced, dict) else {}
    lines = "\n".join(f"  - {_path(error)}: {_message(error)}" for error in errors)
    received = json.dumps(arguments, indent=2, ensure_ascii=False, default=str)
    raise ToolValidationError(f'Validation failed for tool "{tool_name}":\n{lines}\n\nReceived arguments:\n{received}')
