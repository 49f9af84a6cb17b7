"""Path globs as users write them in settings and ignore files, translated to regex source.

One dialect with one switch: ``*`` and ``?`` stay within one path component, ``**/`` matches any
run of leading folders (none included) and ``**`` anything at all. With ``classes`` (the
``.gitignore`` dialect) ``[...]``/``[!...]`` are character classes (a ``]`` right after the
opening bracket is a member) and ``\\x`` escapes ``x``; without it (permission rules) ``[`` and
``\\`` are literal characters. Anchoring is the caller's: the source matches from where it is put.
"""

from __future__ import annotations

import re


def glob_regex(glob: str, *, classes: bool = False) -> str:
    """The regex source matching what ``glob`` matches (see the module docstring)."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        ch = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*" or ch == "?":
            out.append("[^/]*" if ch == "*" else "[^/]")
            i += 1
        elif classes and ch == "[" and "]" in glob[i + 2 :]:
            end = glob.index("]", i + 2)
            body = glob[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = end + 1
        elif classes and ch == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)
