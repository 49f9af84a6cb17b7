"""The resumed context of a huge session, its message bodies left in the file until needed.

:class:`LazyMessages` is a read-only sequence of the context's messages. Messages of slim entries
(see :mod:`~pi_cli.store.slim.lazy_entries`) are held as their stubs and decoded from the file when
indexed; :meth:`LazyMessages.materialize` decodes them all (the agent does that before its first
request: the model must get every message). Until then a resumed 57 MB session costs the memory of
its index, and ``get_messages`` copies each message's JSON text from the file
(:meth:`LazyMessages.json_chunks`) instead of decoding and re-encoding it.

Decoded messages equal what a whole parse of the file gives (``json.loads`` of the same text).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, overload

from pi_cli.store.slim.lazy_entries import gc_paused, unreadable_message
from pi_cli.store.slim.message_index import CHILD_USAGE, SPAN, TOOL_CALLS
from pi_cli.store.stats import Tally, stats_payload, tally_messages


def tally_stubs(items: list[dict[str, Any]]) -> Tally:
    """What :func:`~pi_cli.store.stats.tally_messages` gives for the messages behind ``items``
    (stubs and whole messages mixed), read off the stubs' facts."""
    counts, tool_calls, tok, cost = tally_messages([item for item in items if SPAN not in item])
    for item in items:
        if SPAN not in item:
            continue
        role = item["role"]
        if role in counts:
            counts[role] += 1
        if role == "assistant":
            tool_calls += item.get(TOOL_CALLS, 0)
            usage = item.get("usage") or {}
            for key in tok:
                tok[key] += int(usage.get(key) or 0)
            cost += float((usage.get("cost") or {}).get("total") or 0.0)
        children = item.get(CHILD_USAGE)
        if children is not None:
            for key in tok:
                tok[key] += children[0][key]
            cost += children[1]
    return counts, tool_calls, tok, cost


def whole_session_stats(
    entries: Sequence[dict[str, Any]],
    session_file: str | None,
    session_id: str,
    context_usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """pi 1.6.0's ``getSessionStats``: every entry of the session (all branches, and what a
    compaction summarised away), not just the current context. Message entries count by role; the
    tokens and cost are the replies' plus those of the summarisations (``compaction`` and
    ``branch_summary`` entries with ``usage``) and of ``usage`` entries. Slim entries of a huge
    resumed file are tallied from their stubs (nothing decoded)."""
    messages = [entry["message"] for entry in entries if entry.get("type") == "message"]
    counts, tool_calls, tok, cost = tally_stubs(messages)
    for entry in entries:
        kind = entry.get("type")
        usage = entry.get("usage") if kind in ("compaction", "branch_summary", "usage") else None
        if isinstance(usage, dict):
            for key in ("input", "output", "cacheRead", "cacheWrite"):
                tok[key] += int(usage.get(key) or 0)
            cost += float((usage.get("cost") or {}).get("total") or 0.0)
    return stats_payload((counts, tool_calls, tok, cost), len(messages), session_file, session_id, context_usage)


_BATCH = 128  # spans per read (about 1.3 MB of tool output in the benchmark session)


class LazyMessages(Sequence[dict[str, Any]]):
    """Messages, some of them stubs whose JSON text is read from ``path`` on demand."""

    def __init__(
        self, items: list[dict[str, Any]], path: Path,
        on_materialized: Callable[[list[dict[str, Any]], list[dict[str, Any]]], None] | None = None,
    ) -> None:  # fmt: skip
        """``on_materialized(stubs_and_messages, decoded)`` is told what :meth:`materialize`
        decoded (the session store keeps those messages in its entries: one copy, not two)."""
        self._items = items
        self._path = path
        self._on_materialized = on_materialized
        self._tally: Tally | None = None

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self._decode(item) for item in self._items[index]]
        return self._decode(self._items[index])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for item in self._items:
            yield self._decode(item)

    def stub(self, index: int) -> dict[str, Any]:
        """Message ``index`` as held: a stub (only role and a few facts) or the message itself."""
        return self._items[index]

    def roles(self) -> list[str]:
        """Every message's role, without reading any."""
        return [str(item.get("role", "")) for item in self._items]

    def tally(self) -> Tally:
        """:func:`~pi_cli.store.stats.tally_messages` of these messages, from the stubs (the
        messages never change, so it is worked out once)."""
        if self._tally is None:
            self._tally = tally_stubs(self._items)
        return self._tally

    def materialize(self) -> list[dict[str, Any]]:
        """Every message decoded, a batch of spans per read and per JSON parse (so key strings are
        shared within a batch and no second copy of the whole file is ever held)."""
        with gc_paused():
            decoded = self._materialize()
        if self._on_materialized is not None:
            self._on_materialized(self._items, decoded)
        return decoded

    def _materialize(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for group in self._grouped():
            if isinstance(group, list):
                out.extend(self._decode_batch(group))
            else:
                out.append(group)
        return out

    def _grouped(self) -> Iterator[list[dict[str, Any]] | dict[str, Any]]:
        """The items in order: runs of up to :data:`_BATCH` stubs as lists (one read each),
        whole messages one by one."""
        batch: list[dict[str, Any]] = []
        for item in self._items:
            if SPAN not in item:
                if batch:
                    yield batch
                    batch = []
                yield item
                continue
            batch.append(item)
            if len(batch) == _BATCH:
                yield batch
                batch = []
        if batch:
            yield batch

    def _decode_batch(self, batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        try:
            values = json.loads(b"[" + b",".join(self._read([item[SPAN] for item in batch])) + b"]")
            if len(values) == len(batch) and all(
                isinstance(v, dict) and v.get("role") == item["role"] for v, item in zip(values, batch, strict=True)
            ):
                return list(values)
        except (OSError, ValueError):
            pass
        return [self._decode(item) for item in batch]  # the file changed under us: placeholders where unreadable

    def json_chunks(self, encode: Callable[[Any], bytes]) -> Iterator[bytes | memoryview]:
        """The body of these messages' JSON array in pieces: each message's text, with commas
        between. A run of stubs is one piece (their texts copied from the file), another message
        is ``encode(msg)``: the writer then moves megabytes a step instead of paying Python's cost
        per piece for each of 20,000 messages."""
        pieces = self._runs(encode)
        first = next(pieces, None)
        if first is None:
            return
        yield first
        for piece in pieces:
            yield b","
            yield piece

    def _runs(self, encode: Callable[[Any], bytes]) -> Iterator[bytes]:
        for group in self._grouped():
            yield self._joined(group, encode) if isinstance(group, list) else encode(group)

    def _joined(self, batch: list[dict[str, Any]], encode: Callable[[Any], bytes]) -> bytes:
        """The texts of ``batch``'s messages, comma-separated; a text no longer whole in the file
        (it changed under us) is decoded the careful way instead."""
        try:
            views = self._read([item[SPAN] for item in batch])
        except OSError:
            views = [memoryview(b"")] * len(batch)
        texts: list[bytes | memoryview] = [
            view if _looks_whole(view) else encode(self._decode(item)) for item, view in zip(batch, views, strict=True)
        ]
        return b",".join(texts)

    def _decode(self, item: dict[str, Any]) -> dict[str, Any]:
        span = item.get(SPAN)
        if span is None:
            return item
        try:
            (text,) = self._read([span])
            value = json.loads(bytes(text))
            if isinstance(value, dict) and value.get("role") == item["role"]:
                return value
        except (OSError, ValueError):
            pass
        return unreadable_message(item, self._path)

    def _read(self, spans: list[tuple[int, int]]) -> list[memoryview]:
        """The bytes of each span (views, not copies); one read covers a run of spans in file order."""
        fd = os.open(self._path, os.O_RDONLY)
        try:
            low = min(offset for offset, _ in spans)
            high = max(offset + length for offset, length in spans)
            if high - low <= 16 * 1024 * 1024 and all(a[0] <= b[0] for a, b in itertools.pairwise(spans)):
                view = memoryview(os.pread(fd, high - low, low))
                return [view[o - low : o - low + n] for o, n in spans]
            return [memoryview(os.pread(fd, n, o)) for o, n in spans]
        finally:
            os.close(fd)


def _looks_whole(text: memoryview) -> bool:
    """A cheap check that a span still holds a JSON object (the file was not cut or rewritten)."""
    return len(text) > 1 and text[0] == 0x7B and text[-1] == 0x7D  # "{" ... "}"
