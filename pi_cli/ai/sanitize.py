"""Outgoing text hygiene: no lone UTF-16 surrogates ever reach a provider.

A Python ``str`` stores astral characters as single code points, so any code point in
U+D800–U+DFFF is unpaired (it got in via a ``\\udXXX`` JSON escape or ``surrogateescape``).
Providers reject such JSON, and ``str.encode("utf-8")`` raises on it, so they are deleted.
Surrogates can only sit inside JSON strings, so cleaning the serialised body cleans every string
in it in one pass.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def strip_surrogates(text: str) -> str:
    """``text`` without lone surrogates (valid characters, emoji included, untouched)."""
    if text.isascii():
        return text
    return _SURROGATE.sub("", text)


def encode_body(body: dict[str, Any]) -> bytes:
    """Serialise a request body as compact UTF-8 JSON with every lone surrogate removed."""
    return strip_surrogates(json.dumps(body, ensure_ascii=False, separators=(",", ":"))).encode("utf-8")
