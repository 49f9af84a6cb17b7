"""The expansions the gate performs on words statically, and ``$'…'`` decoding.

Brace expansion is static, and the shell does it before it looks a command up (``{rm,-rf,x}``
runs ``rm -rf x``), so :func:`brace_expand` does it too; its input is the *marked* text, where only
unquoted braces and commas are markers.
"""

from __future__ import annotations

from pi_cli.permissions.shell.nodes import CLOSE, COMMA, OPEN, Word

_UNMARK = str.maketrans({OPEN: "{", COMMA: ",", CLOSE: "}"})
MAX_BRACE_WORDS = 64


_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_HEX = "0123456789abcdefABCDEF"


def decode_ansi_c(body: str) -> str:
    """The value of ``$'body'`` (bash's escapes: ``\\n``, ``\\xHH``, ``\\NNN``, ``\\uHHHH`` …)."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            j = i
            while j < n and j - i < width and body[j] in _HEX:
                j += 1
            if j == i:
                out.append("\\" + e)
            else:
                code = int(body[i:j], 16)
                out.append(chr(code) if code <= 0x10FFFF else "\ufffd")
                i = j
        elif e in "01234567":
            j = i
            while j < n and j - i < 2 and body[j] in "01234567":
                j += 1
            out.append(chr(int(e + body[i:j], 8) & 0xFF))
            i = j
        elif e == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)


def _matching_close(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == OPEN:
            depth += 1
        elif text[i] == CLOSE:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _top_commas(body: str) -> list[int]:
    depth, out = 0, []
    for i, c in enumerate(body):
        if c == OPEN:
            depth += 1
        elif c == CLOSE:
            depth -= 1
        elif c == COMMA and depth == 0:
            out.append(i)
    return out


def _sequence(body: str) -> list[str] | None:
    """``1..5``, ``a..e``, ``1..10..2`` → the items; None when ``body`` is not a sequence."""
    parts = body.split("..")
    if len(parts) not in (2, 3):
        return None
    step_text = parts[2] if len(parts) == 3 else "1"
    try:
        step = abs(int(step_text)) or 1
    except ValueError:
        return None
    a, b = parts[0], parts[1]
    try:
        lo, hi = int(a), int(b)
        numbers = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [str(v) for v in numbers][: MAX_BRACE_WORDS + 1]
    except ValueError:
        pass
    if len(a) == 1 and len(b) == 1:
        lo_c, hi_c = ord(a), ord(b)
        codes = range(lo_c, hi_c + 1, step) if lo_c <= hi_c else range(lo_c, hi_c - 1, -step)
        return [chr(v) for v in codes][: MAX_BRACE_WORDS + 1]
    return None


def _expand(marked: str) -> list[str]:
    start = marked.find(OPEN)
    while start != -1:
        end = _matching_close(marked, start)
        if end == -1:
            return [marked]
        body = marked[start + 1 : end]
        commas = _top_commas(body)
        items: list[str] | None
        if commas:
            bounds = [-1, *commas, len(body)]
            items = [body[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
        else:
            items = _sequence(body)
        if items is not None:
            head, tail = marked[:start], marked[end + 1 :]
            out: list[str] = []
            for item in items:
                for expanded in _expand(head + item + tail):
                    out.append(expanded)
                    if len(out) > MAX_BRACE_WORDS:
                        return out
            return out
        start = marked.find(OPEN, start + 1)  # {x} alone is not an expansion; look further
    return [marked]


def brace_expand(word: Word) -> list[str] | None:
    """The words ``word`` becomes after brace expansion; None when it would make more than
    :data:`MAX_BRACE_WORDS` (the caller then treats the command as unknown)."""
    if OPEN not in word.marked:
        return [word.text]
    expanded = _expand(word.marked)
    if len(expanded) > MAX_BRACE_WORDS:
        return None
    return [item.translate(_UNMARK) for item in expanded]
