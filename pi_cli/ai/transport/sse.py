"""Server-sent events decoding over raw bytes.

The decoder is incremental: feed it whatever byte chunks the socket produced, get back the events
completed so far. Rules (pi's parser, which follows the HTML spec):

* bytes are decoded as UTF-8 incrementally, so a character split across chunks survives;
* lines end at ``\\r\\n``, ``\\r`` or ``\\n`` only (a ``\\r`` at the end of one chunk and a ``\\n``
  at the start of the next are one line end); U+2028/U+2029 and other Unicode separators are data;
* lines starting with ``:`` are comments (keep-alives) and are ignored;
* ``field:value`` drops one optional space after the colon; ``event`` and ``data`` are kept,
  other fields (``id``, ``retry``, unknown) ignored; several ``data`` lines join with ``\\n``;
* a blank line dispatches the pending event if it has at least one ``data`` line;
* :meth:`SSEDecoder.close` processes a last unterminated line and dispatches a pending event even
  without the final blank line.
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

_LINE_END = re.compile(r"\r\n|\r|\n")


class SSEEvent(NamedTuple):
    """One dispatched event; ``event`` is ``""`` when the stream named none."""

    event: str
    data: str


class SSEDecoder:
    """Incremental byte → :class:`SSEEvent` decoder. Not thread-safe; one per response."""

    __slots__ = ("_buf", "_data", "_decoder", "_event", "_pending_cr")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buf = ""
        self._pending_cr = False
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Decode ``chunk`` and return the events it completed (often none, often one)."""
        text = self._decoder.decode(chunk)
        if not text:
            return []
        if self._pending_cr:
            self._pending_cr = False
            if text[0] == "\n":
                text = text[1:]
        buf = self._buf + text if self._buf else text
        if "\r" in buf:
            self._pending_cr = buf[-1] == "\r"
            lines = _LINE_END.split(buf)
        else:
            lines = buf.split("\n")
        self._buf = lines.pop()
        out: list[SSEEvent] = []
        data = self._data
        for line in lines:  # _line() inlined for the two common cases: blank and "data: ..."
            if not line:
                if data:
                    out.append(SSEEvent(self._event, data[0] if len(data) == 1 else "\n".join(data)))
                    data = self._data = []
                self._event = ""
            elif line.startswith("data: "):
                data.append(line[6:])
            else:
                self._line(line, out)
                data = self._data
        return out

    def close(self) -> list[SSEEvent]:
        """End of input: flush the decoder, the last line and any pending event."""
        out: list[SSEEvent] = []
        # A truncated multi-byte sequence at EOF becomes U+FFFD (never a line end).
        self._buf += self._decoder.decode(b"", final=True)
        if self._buf:
            self._line(self._buf, out)
            self._buf = ""
        if self._data:
            out.append(SSEEvent(self._event, "\n".join(self._data)))
        self._event = ""
        self._data = []
        return out

    def _line(self, line: str, out: list[SSEEvent]) -> None:
        if not line:
            if self._data:
                out.append(SSEEvent(self._event, "\n".join(self._data)))
                self._data = []
            self._event = ""
            return
        if line[0] == ":":
            return
        field, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value


def decode_all(chunks: list[bytes]) -> list[SSEEvent]:
    """Decode a complete byte stream given as chunks (tests, fixtures)."""
    decoder = SSEDecoder()
    out: list[SSEEvent] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    out.extend(decoder.close())
    return out
