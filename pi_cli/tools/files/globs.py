"""Glob patterns as ``find`` understands them (fd's ``--glob`` rules), compiled to regexes.

``*`` and ``?`` stay within one path component, ``**`` crosses components, ``[...]``/``[!...]``
are character classes and ``{a,b}`` alternatives. A pattern without ``/`` is matched against the
file name; one with ``/`` against the path relative to the search root, anywhere in it (as if
prefixed with ``**/``). Matching is case-insensitive unless the pattern has an upper-case letter
(fd's smart case).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    depth = 0  # open { groups
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            if pattern.startswith("**", i):
                i += 2
                if i < n and pattern[i] == "/":
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif ch == "{":
            depth += 1
            out.append("(?:")
        elif ch == "}" and depth:
            depth -= 1
            out.append(")")
        elif ch == "," and depth:
            out.append("|")
        elif ch == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(ch))
        i += 1
    out.extend(")" * depth)
    return "".join(out)


@dataclass(slots=True)
class GlobMatcher:
    regex: re.Pattern[str]
    full_path: bool

    def matches(self, rel_path: str) -> bool:
        """Does ``rel_path`` (POSIX, relative to the search root, no trailing slash) match?"""
        target = rel_path if self.full_path else rel_path.rsplit("/", 1)[-1]
        return self.regex.fullmatch(target) is not None


def compile_glob(pattern: str) -> GlobMatcher:
    """Compile ``pattern``; raises ``ValueError`` for a pattern that cannot be compiled."""
    full_path = "/" in pattern
    source = pattern
    if full_path:
        source = source.lstrip("/")
        if not source.startswith("**/"):
            source = "**/" + source
    flags = 0 if any(c.isupper() for c in pattern) else re.IGNORECASE
    try:
        return GlobMatcher(re.compile(_translate(source), flags), full_path)
    except re.error as exc:
        raise ValueError(f"Invalid glob pattern {pattern!r}: {exc}") from None
