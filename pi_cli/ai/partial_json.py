"""Best-effort JSON for streamed tool-call arguments (pi's ``parseStreamingJson`` ladder).

:func:`parse_streaming_json` never raises and always returns a ``dict``:

1. blank text → ``{}``;
2. strict ``json.loads``; then ``json.loads(strict=False)`` (raw control characters in strings);
3. :func:`repair_json` and parse again, when the repair changed something;
4. partial parse of the raw text (``partial-json-parser``: open strings closed, incomplete members
   dropped, literal prefixes completed);
5. partial parse of the repaired text;
6. ``{}``.
A value that parses but is not an object (``[1]``, ``"x"``) counts as ``{}``.

:class:`StreamingArgs` accumulates fragments and re-parses them with a growth-based throttle, so a
megabyte of arguments in thousands of deltas costs a bounded number of parses; ``final()`` always
parses the whole buffer.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from partial_json_parser import loads as _partial_loads

_lenient_loads = functools.partial(json.loads, strict=False)

# A valid escape (kept) or any other backslash (doubled into a literal backslash).
_ESCAPE = re.compile(r'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})|\\')
_CONTROL = re.compile(r"[\x00-\x1f]")
_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


def _fix_escape(match: re.Match[str]) -> str:
    text = match.group(0)
    return text if len(text) > 1 else "\\\\"


def _control_escape(char: str) -> str:
    return _SHORT.get(char) or f"\\u{ord(char):04x}"


def repair_json(text: str) -> str:
    """Fix what streaming models get wrong inside strings (pi's ``repairJson``).

    Invalid escapes (``\\q``, ``\\H``, a short ``\\u12``, a trailing lone backslash) become literal
    backslashes, valid ones are kept. Raw control characters inside strings become escapes (short
    forms for ``\\n \\t \\r \\b \\f``, else ``\\u00XX``); outside strings they are left alone, as
    whitespace there is valid. The escape fix runs over the whole text at regex speed: outside
    strings a backslash is invalid JSON anyway.
    """
    if "\\" in text:
        text = _ESCAPE.sub(_fix_escape, text)
    if _CONTROL.search(text) is None:
        return text
    return _escape_controls_in_strings(text)


def _escape_controls_in_strings(text: str) -> str:
    out: list[str] = []
    in_string = False
    escaped = False
    start = 0
    for position, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            elif char < " ":
                out.append(text[start:position])
                out.append(_control_escape(char))
                start = position + 1
        elif char == '"':
            in_string = True
    out.append(text[start:])
    return "".join(out)


def _as_object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# Tokens of a JSON prefix: closed string | unterminated string (only possible at the end) |
# punctuation | bare scalar (number, literal, or garbage) | whitespace.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|"[^"\\]*(?:\\.[^"\\]*)*\\?|[{}\[\]:,]|[^\s{}\[\]:,"]+|\s+', re.S)
_LITERALS = ("null", "true", "false")
_SHORT_UNICODE = re.compile(r"(\\+)u[0-9a-fA-F]{0,3}$")
_CLOSERS = {"{": "}", "[": "]"}


def _complete_scalar(token: str) -> str | None:
    """A literal prefix completed, a number kept or trimmed; None when nothing sensible remains."""
    for literal in _LITERALS:
        if literal.startswith(token):
            return literal
    trimmed = token.rstrip("eE+-") if token[-1] in "eE+-" else token
    try:
        float(trimmed)
    except ValueError:
        return None
    return trimmed if trimmed[-1].isdigit() else None


def complete_prefix(text: str) -> str | None:
    """Close a truncated JSON document so that it parses (pi's partial parser rules).

    Completed members stay; a member whose key or value is still incomplete is dropped, except an
    open string value (closed, with a dangling backslash or short ``\\u`` escape removed), a literal
    prefix (``tr`` → ``true``) and a number that parses as is (``12``) or after cutting a dangling
    exponent (``1e`` → ``1``). Returns None when the text is not a JSON prefix this scan understands.
    A regex tokenizer keeps long strings at C speed, so megabyte buffers stay cheap.
    """
    kinds: list[str] = []  # open containers, "{" or "["
    states: list[str] = []  # per container: "key", "colon", "value", "comma"
    state = "value"  # at top level
    # Only a token that also sets safe_end pushes or pops ``kinds``, so at the end ``kinds`` is the
    # stack as it was at safe_end (copying it at every safe point made deep nesting quadratic).
    safe_end = 0
    length = len(text)
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first.isspace():
            continue
        start, end = match.span()
        if first in "{[":
            if state != "value":
                return None
            if kinds:
                states[-1] = "comma"
            kinds.append(first)
            state = "key" if first == "{" else "value"
            states.append(state)
            safe_end = end
        elif first in "}]":
            if not kinds or _CLOSERS[kinds[-1]] != first or state == "colon" or (state == "value" and first == "}"):
                return None
            kinds.pop()
            states.pop()
            state = states[-1] if states else "done"
            safe_end = end
        elif first == ",":
            if state != "comma":
                return None
            state = "key" if kinds[-1] == "{" else "value"
            states[-1] = state
        elif first == ":":
            if state != "colon":
                return None
            state = states[-1] = "value"
        elif first == '"':
            closed = len(token) >= 2 and token[-1] == '"' and _is_closed(token)
            if state == "key":
                if not closed:
                    break
                state = states[-1] = "colon"
            elif state == "value":
                if not closed:
                    body = _drop_dangling_escape(token)
                    return text[:start] + body + '"' + "".join(_CLOSERS[k] for k in reversed(kinds))
                state = _after_value(states)
                safe_end = end
            else:
                return None
        else:  # bare scalar
            if state != "value":
                return None
            if end == length:
                done = _complete_scalar(token)
                if done is None:
                    break
                return text[:start] + done + "".join(_CLOSERS[k] for k in reversed(kinds))
            state = _after_value(states)
            safe_end = end
    if safe_end == 0:
        return None
    return text[:safe_end] + "".join(_CLOSERS[k] for k in reversed(kinds))


def _drop_dangling_escape(token: str) -> str:
    """Cut an unfinished escape (odd trailing backslash, ``\\u`` with < 4 hex digits) off an open string."""
    if "\\" not in token[-6:]:
        return token
    run = len(token) - len(token.rstrip("\\"))
    if run % 2:
        return token[:-1]
    short = _SHORT_UNICODE.search(token)
    if short and len(short.group(1)) % 2:
        return token[: short.start() + len(short.group(1)) - 1]
    return token


def _is_closed(token: str) -> bool:
    """True if the final quote of ``token`` is not escaped (odd run of backslashes before it)."""
    run = len(token) - 1 - len(token[:-1].rstrip("\\"))
    return run % 2 == 0


def _after_value(states: list[str]) -> str:
    if states:
        states[-1] = "comma"
        return "comma"
    return "done"


def _partial(text: str) -> dict[str, Any] | None:
    completed = complete_prefix(text)
    if completed is not None:
        try:
            return _as_object(_lenient_loads(completed))
        except (ValueError, RecursionError):
            pass
    if len(text) <= _SLOW_PARSER_LIMIT:
        try:
            return _as_object(_partial_loads(text, parser=_lenient_loads))
        except Exception:  # the library raises assorted types on garbage; all mean "no"
            pass
    return None


# partial-json-parser is the fallback for shapes the fast scan rejects; it is quadratic on strings
# with many escaped quotes, so it only sees small buffers.
_SLOW_PARSER_LIMIT = 32_768
# Matches the longest prefix holding only valid escapes; stopping short means a bad one follows.
_VALID_ESCAPES_PREFIX = re.compile(r'[^\\]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^\\]*)*')


def parse_streaming_json(text: str | None) -> dict[str, Any]:
    """Parse possibly incomplete, possibly sloppy JSON into an object. Never raises."""
    if not text or text.isspace():
        return {}
    try:
        return _as_object(json.loads(text))
    except (ValueError, RecursionError):
        pass
    try:
        return _as_object(_lenient_loads(text))
    except (ValueError, RecursionError):
        pass
    # Raw control characters need no repair here: json.loads(strict=False) accepts them in strings.
    needs_repair = _VALID_ESCAPES_PREFIX.match(text).end() != len(text)  # type: ignore[union-attr]
    repaired = repair_json(text) if needs_repair else text
    if repaired != text:
        try:
            return _as_object(_lenient_loads(repaired))
        except (ValueError, RecursionError):
            pass
    value = _partial(text)
    if value is None and repaired != text:
        value = _partial(repaired)
    return {} if value is None else value


class StreamingArgs:
    """Accumulates argument fragments; ``update()`` re-parses with a growth throttle.

    Buffers up to ``eager_bytes`` are re-parsed on every fragment (so a UI sees a growing path at
    once); beyond that a re-parse happens only after the buffer grew by an eighth since the last
    one, which bounds the total work on a huge argument buffer to a small multiple of its size.
    """

    __slots__ = ("_fragments", "_length", "_parsed_at", "_text", "eager_bytes", "value")

    def __init__(self, eager_bytes: int = 2048) -> None:
        self._fragments: list[str] = []
        self._text = ""
        self._length = 0
        self._parsed_at = 0
        self.eager_bytes = eager_bytes
        self.value: dict[str, Any] = {}

    @property
    def text(self) -> str:
        if self._fragments:
            self._text += "".join(self._fragments)
            self._fragments.clear()
        return self._text

    def append(self, fragment: str) -> None:
        if fragment:
            self._fragments.append(fragment)
            self._length += len(fragment)

    def update(self) -> dict[str, Any]:
        """The best-effort object so far (possibly the cached previous parse)."""
        grown = self._length - self._parsed_at
        if grown and (self._length <= self.eager_bytes or grown >= self._length >> 3):
            self.value = parse_streaming_json(self.text)
            self._parsed_at = self._length
        return self.value

    def final(self) -> dict[str, Any]:
        """Parse the whole buffer (always, regardless of the throttle)."""
        self.value = parse_streaming_json(self.text)
        self._parsed_at = self._length
        return self.value
