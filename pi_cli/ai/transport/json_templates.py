"""Decoding a stream's JSON events that repeat one shape: only the string that changed is scanned.

A streamed answer is thousands of events that differ from the one before in a single string, the
text of the delta. ``json.loads`` rebuilds every key and value of each (~4 µs for an OpenAI chunk).
A template remembers one decoded event and its text before and after the string at a known path
(the *hole*). A later event whose text is exactly that prefix, one JSON string, and that suffix is
the remembered event with another string in the hole — the JSON grammar cannot read it any other
way — so decoding it is one ``scanstring`` and one assignment.

A template is learnt from an event that holds the hole's marker (``"content":"``) once, and only
after a probe: the prefix and suffix around another string must decode to the same event with that
string at the hole's path (this rejects a marker at another path, duplicate keys and the like).
A hole whose template keeps failing (the events differ elsewhere too, e.g. a sequence number) is
given up after a few tries, so such a stream pays one ``startswith`` per event.
"""

from __future__ import annotations

import json
import json.decoder
from collections.abc import Callable, Sequence
from typing import Any

# The C string scanner json.loads itself uses (typeshed does not declare it).
scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

Path = tuple[str | int, ...]
_PROBE = "\u2063probe\u2063"
_PROBE_JSON = json.dumps(_PROBE)
_MAX_LEARNT = 8  # a hole relearnt this often with few hits in between is given up


class _Hole:
    __slots__ = ("hits", "leaf", "learnt", "marker", "obj", "off", "path", "prefix", "suffix")

    def __init__(self, marker: str, path: Path) -> None:
        self.marker = marker
        self.path = path
        self.prefix = ""  # up to and including the string's opening quote; "" = no template
        self.suffix = ""
        self.obj: Any = None
        self.leaf: Any = None  # the container holding the string
        self.hits = 0
        self.learnt = 0
        self.off = False


def _get(obj: Any, path: Path) -> Any:
    for key in path:
        if isinstance(key, int):
            if not isinstance(obj, list) or len(obj) <= key:
                return None
        elif not isinstance(obj, dict):
            return None
        obj = obj[key] if isinstance(key, int) else obj.get(key)
    return obj


class TemplateDecoder:
    """``loads`` for one stream's events, with templates for the given holes.

    ``holes`` are ``(marker, path)`` pairs: ``marker`` is the key and opening quote as the server
    writes them (``'"content":"'``), ``path`` the keys and indexes to that string. The object
    :meth:`loads` returns may be returned again, changed, for a later event: read it before
    decoding the next event and keep no part of it.
    """

    __slots__ = ("_holes",)

    def __init__(self, holes: Sequence[tuple[str, Path]]) -> None:
        self._holes = [_Hole(marker, path) for marker, path in holes]

    def loads(self, data: str) -> Any:
        """``json.loads(data)`` (raises ``ValueError`` alike for bad JSON)."""
        for hole in self._holes:
            prefix = hole.prefix
            if prefix and data.startswith(prefix) and data.endswith(hole.suffix):
                try:
                    value, end = scanstring(data, len(prefix))
                except ValueError:
                    break
                if end == len(data) - len(hole.suffix):
                    hole.leaf[hole.path[-1]] = value
                    hole.hits += 1
                    return hole.obj
        obj = json.loads(data)
        for hole in self._holes:
            if not hole.off and hole.marker in data:
                self._learn(hole, data, obj)
        return obj

    @staticmethod
    def _learn(hole: _Hole, data: str, obj: Any) -> None:
        at = data.find(hole.marker)
        if at != data.rfind(hole.marker) or not isinstance(_get(obj, hole.path), str):
            return
        if hole.learnt >= _MAX_LEARNT and hole.hits < 4 * hole.learnt:
            hole.off, hole.prefix = True, ""
            return
        hole.learnt += 1
        start = at + len(hole.marker)
        try:
            value, end = scanstring(data, start)
            probe = json.loads(data[: start - 1] + _PROBE_JSON + data[end:])
        except ValueError:
            return
        if value != _get(obj, hole.path) or _get(probe, hole.path) != _PROBE:
            return
        hole.prefix, hole.suffix = data[:start], data[end:]
        hole.obj, hole.leaf = obj, _get(obj, hole.path[:-1])
