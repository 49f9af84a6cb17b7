"""Resolving the paths models pass to tools.

Paths are taken relative to the session's working directory; ``~`` and ``~/…`` expand to the home
directory; a leading ``@`` is dropped because models copy it from ``@file`` mentions; exotic Unicode
spaces become plain spaces. For reads, a few spellings macOS uses in file names (narrow no-break
space before AM/PM in screenshot names, NFD-decomposed accents, a curly apostrophe) are tried when
the literal path does not exist.
"""

from __future__ import annotations

import os
import re
import unicodedata

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_NARROW_NBSP = "\u202f"


def expand_path(path: str) -> str:
    """Strip a leading ``@``, normalise Unicode spaces and expand ``~``; no cwd is applied."""
    if path.startswith("@"):
        path = path[1:]
    path = _UNICODE_SPACES.sub(" ", path)
    if path == "~":
        return os.path.expanduser("~")
    if path.startswith("~/"):
        return os.path.expanduser("~") + path[1:]
    return path


def resolve_to_cwd(path: str, cwd: str) -> str:
    """Absolute, normalised form of ``path`` as seen from ``cwd`` (symlinks are not resolved)."""
    expanded = expand_path(path)
    if os.path.isabs(expanded):
        return os.path.normpath(expanded)
    return os.path.normpath(os.path.join(cwd, expanded))


def resolve_read_path(path: str, cwd: str) -> str:
    """Like :func:`resolve_to_cwd`, then try macOS file-name variants if the path is missing."""
    resolved = resolve_to_cwd(path, cwd)
    if os.path.lexists(resolved):
        return resolved
    nfd = unicodedata.normalize("NFD", resolved)
    candidates = [
        re.sub(r" (AM|PM)\.", _NARROW_NBSP + r"\1.", resolved),
        nfd,
        resolved.replace("'", "\u2019"),
        nfd.replace("'", "\u2019"),
    ]
    for candidate in candidates:
        if candidate != resolved and os.path.lexists(candidate):
            return candidate
    return resolved
