"""A small YAML-frontmatter reader for skills and prompt templates (no PyYAML).

A Markdown file may open with a block fenced by ``---`` lines. pi parses that block with a full YAML
library; the files people write for skills and templates use a tiny subset, which this module reads:

* ``key: value`` at the top level, with plain, ``"double"`` (backslash escapes) or ``'single'``
  (``''`` escape) quoted values, a quoted value may continue on following lines;
* plain values continued on more-indented lines (folded with spaces);
* block scalars ``|`` / ``>`` with the ``-`` / ``+`` chomping indicators;
* ``true``/``false``, ``null``/``~``, integers and floats as YAML 1.2's core schema reads them;
* one nested level: an indented mapping or ``- item`` list under a key with no value (``metadata``).

Anything else at the top level is a :class:`FrontmatterError` naming the line, so a broken
``SKILL.md`` gets a clear warning instead of silently wrong data. As in pi, the body after a
frontmatter block is trimmed; a file without one is returned unchanged (newlines normalised).
"""

from __future__ import annotations

import re

__all__ = ["FrontmatterError", "parse_frontmatter", "read_frontmatter_file", "split_frontmatter", "strip_frontmatter"]

_OPEN_RE = re.compile(r"^\s*---(?:\n|$)")
_KEY_RE = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.\-]*)\s*:(?:[ \t]+(.*)|[ \t]*)$")
_QUOTED_KEY_RE = re.compile(r"""^(["'])(.*?)\1\s*:(?:[ \t]+(.*)|[ \t]*)$""")
_INT_RE = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_FLOAT_RE = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_BLOCK_RE = re.compile(r"^([|>])([-+]?)([1-9]?)\s*(?:#.*)?$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "\\": "\\", "/": "/", " ": " ", "e": "\x1b"}


class FrontmatterError(ValueError):
    """The frontmatter block is not in the supported YAML subset; the message names the line."""


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """Split ``text`` into (raw frontmatter or None, body), as pi does.

    Newlines are normalised to ``\\n`` and a UTF-8 BOM dropped. The body after a closing fence is
    trimmed; without a (closed) frontmatter block the whole normalised text is the body.
    """
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    if normalized.startswith("\ufeff"):
        normalized = normalized[1:]
    opening = _OPEN_RE.match(normalized)
    if not opening:
        return None, normalized
    start = opening.end()
    # Search from the opening fence's own newline so an empty block (``---`` twice) still closes.
    end = normalized.find("\n---", start - 1 if normalized[start - 1 : start] == "\n" else start)
    if end == -1:
        return None, normalized
    raw = normalized[start:end] if end > start else ""
    return raw, normalized[end + 4 :].strip()


def strip_frontmatter(text: str) -> str:
    """The body of ``text`` without its frontmatter block (trimmed when there was one)."""
    return split_frontmatter(text)[1]


def parse_frontmatter(text: str) -> tuple[dict[str, object], str]:
    """Parse ``text`` into (frontmatter mapping, body). Raises :class:`FrontmatterError`."""
    raw, body = split_frontmatter(text)
    if raw is None or not raw.strip():
        return {}, body
    return _Parser(raw.split("\n")).parse(), body


def read_frontmatter_file(path: str, kind: str, diagnostics: list[str]) -> tuple[dict[str, object], str] | None:
    """Read and parse the Markdown file at ``path`` into (frontmatter mapping, body).

    On failure appends one ``<path>: <problem>`` line to ``diagnostics`` and returns ``None``;
    ``kind`` names the file in a read error ("skill file", "prompt template").
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            raw = handle.read()
    except OSError as exc:
        diagnostics.append(f"{path}: could not read {kind} ({exc.strerror or exc})")
        return None
    try:
        return parse_frontmatter(raw)
    except FrontmatterError as exc:
        diagnostics.append(f"{path}: invalid frontmatter: {exc}")
        return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _strip_comment(value: str) -> str:
    """Drop a `` #comment`` from a plain scalar (a ``#`` glued to a word is content)."""
    match = re.search(r"\s#", value)
    return value[: match.start()] if match else value


def _plain_scalar(value: str) -> object:
    """Type a plain scalar the way YAML 1.2's core schema does."""
    text = value.strip()
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if _INT_RE.match(text):
        return int(text)
    if _FLOAT_RE.match(text) and any(ch.isdigit() for ch in text):
        return float(text)
    return text


def _unescape_double(body: str, line_no: int) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= len(body):
            raise FrontmatterError(f"line {line_no}: dangling backslash in a double-quoted value")
        code = body[i + 1]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            i += 2
        elif code in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[code]
            digits = body[i + 2 : i + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise FrontmatterError(f"line {line_no}: bad \\{code} escape in a double-quoted value")
            out.append(chr(int(digits, 16)))
            i += 2 + width
        else:
            raise FrontmatterError(f"line {line_no}: unknown escape \\{code} in a double-quoted value")
    return "".join(out)


class _Parser:
    """Line-oriented reader of the supported subset; ``pos`` indexes ``lines``."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.pos = 0

    def parse(self) -> dict[str, object]:
        result: dict[str, object] = {}
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            line_no = self.pos + 1
            if _is_blank_or_comment(line):
                self.pos += 1
                continue
            if line.startswith("\t"):
                raise FrontmatterError(f"line {line_no}: tabs cannot indent YAML")
            if _indent(line) > 0:
                raise FrontmatterError(f"line {line_no}: unexpected indentation")
            key, rest = self._split_key(line, line_no)
            if key in result:
                raise FrontmatterError(f'line {line_no}: duplicate key "{key}"')
            self.pos += 1
            result[key] = self._value(rest, line_no)
        return result

    @staticmethod
    def _split_key(line: str, line_no: int) -> tuple[str, str]:
        match = _KEY_RE.match(line)
        if match:
            return match.group(1), (match.group(2) or "")
        quoted = _QUOTED_KEY_RE.match(line)
        if quoted:
            return quoted.group(2), (quoted.group(3) or "")
        raise FrontmatterError(f"line {line_no}: expected `key: value`, got {line.strip()[:40]!r}")

    def _value(self, rest: str, line_no: int) -> object:
        rest = rest.strip()
        if rest.startswith('"') or rest.startswith("'"):
            return self._quoted(rest, line_no)
        block = _BLOCK_RE.match(rest)
        if block:
            return self._block_scalar(block.group(1), block.group(2), block.group(3))
        rest = _strip_comment(rest).strip()
        if rest == "":
            return self._nested(line_no)
        # A plain scalar may continue on more-indented lines; YAML folds them with spaces.
        parts = [rest]
        while self.pos < len(self.lines):
            nxt = self.lines[self.pos]
            if nxt.strip() and _indent(nxt) == 0:
                break
            if nxt.strip().startswith("#"):
                break
            parts.append(_strip_comment(nxt.strip()) if nxt.strip() else "\n")
            self.pos += 1
        if len(parts) == 1:
            return _plain_scalar(rest)
        return _fold(parts).strip()

    def _quoted(self, rest: str, line_no: int) -> str:
        quote = rest[0]
        text = rest[1:]
        pieces: list[str] = []
        while True:
            end = _closing_quote(text, quote)
            if end is not None:
                pieces.append(text[:end])
                tail = text[end + 1 :].strip()
                if tail and not tail.startswith("#"):
                    raise FrontmatterError(f"line {line_no}: text after a closing quote")
                break
            pieces.append(text)
            if self.pos >= len(self.lines):
                raise FrontmatterError(f"line {line_no}: unterminated quoted value")
            text = self.lines[self.pos].strip()
            self.pos += 1
        joined = _fold([p.strip() if i else p.rstrip() for i, p in enumerate(pieces)]) if len(pieces) > 1 else pieces[0]
        if quote == "'":
            return joined.replace("''", "'")
        return _unescape_double(joined, line_no)

    def _block_scalar(self, style: str, chomp: str, explicit: str) -> str:
        body: list[str] = []
        indent = int(explicit) if explicit else 0
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if line.strip():
                if indent == 0:
                    indent = _indent(line)
                    if indent == 0:
                        break
                if _indent(line) < indent:
                    break
            body.append(line[indent:] if line.strip() else "")
            self.pos += 1
        while body and body[-1] == "" and chomp != "+":
            body.pop()
        text = "\n".join(body) if style == "|" else _fold_block(body)
        if chomp == "-" or not text:
            return text
        return text + "\n"

    def _nested(self, line_no: int) -> object:
        """An indented mapping or list under a key, one level deep; nothing indented means null."""
        items: list[str] = []
        mapping: dict[str, object] = {}
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if _is_blank_or_comment(line):
                self.pos += 1
                continue
            if _indent(line) == 0 and not line.startswith("- "):
                break
            stripped = line.strip()
            self.pos += 1
            if stripped.startswith("- ") or stripped == "-":
                item = stripped[1:].strip()
                items.append(str(self._inline(item, self.pos)))
                continue
            match = _KEY_RE.match(stripped)
            if not match:
                raise FrontmatterError(f"line {self.pos}: expected a nested `key: value` or `- item`")
            mapping[match.group(1)] = self._inline(match.group(2) or "", self.pos)
        if items and mapping:
            raise FrontmatterError(f"line {line_no}: a value cannot mix `- item` and `key: value` lines")
        if items:
            return items
        return mapping if mapping else None

    @staticmethod
    def _inline(text: str, line_no: int) -> object:
        text = text.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            inner = text[1:-1]
            return inner.replace("''", "'") if text[0] == "'" else _unescape_double(inner, line_no)
        return _plain_scalar(_strip_comment(text))


def _closing_quote(text: str, quote: str) -> int | None:
    """Index of the quote closing ``text`` (escapes honoured), or None if it runs on."""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote == '"' and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if quote == "'" and i + 1 < len(text) and text[i + 1] == "'":
                i += 2
                continue
            return i
        i += 1
    return None


def _fold(parts: list[str]) -> str:
    """Join continuation lines: a single break becomes a space, an empty line a newline."""
    out = ""
    for part in parts:
        if part == "\n" or part == "":
            out += "\n"
        elif not out or out.endswith("\n"):
            out += part
        else:
            out += " " + part
    return out


def _fold_block(lines: list[str]) -> str:
    """Fold a ``>`` block: lines join with spaces, empty lines stay as newlines."""
    out = ""
    prev_blank = True
    for line in lines:
        if line == "":
            out += "\n"
            prev_blank = True
        elif line.startswith(" "):
            out += ("" if prev_blank or not out else "\n") + line
            prev_blank = False
        else:
            out += ("" if prev_blank or not out else " ") + line
            prev_blank = False
    return out
