"""HTTP/1.1 for provider streams: an httpx transport whose bodies are read in bulk.

Through httpx's default transport every network read of a streamed answer passes h11's chunk
parser and five generator layers — about fifty Python calls per SSE event, most of ``pi -p``'s CPU
at a paced 1,000 events/s. Here one read takes every byte the socket delivered, strips the chunked
framing of all its chunks in one pass, and hands the body bytes over; a provider reads them with
one await (:meth:`Body.read_some`) and may let a trickling stream gather between reads
(:meth:`Body.hold`).

Contract (httpx's ``AsyncBaseTransport``): one request per connection at a time; idle connections
are kept per origin (at most :data:`MAX_IDLE` each, for :data:`KEEPALIVE_S`) and dropped when the
server closed them or sent unasked bytes. Request bodies are sent whole. Response bodies end at
``Content-Length``, at the last chunk (trailers are read and dropped), or at EOF; a body that breaks
early raises ``httpx.RemoteProtocolError``/``ReadError`` in httpx's wording, a silent server
``httpx.ReadTimeout`` after the request's read timeout. Connections that are not read to the end,
or whose task is cancelled, are closed, never reused. No proxies and no HTTP/2: the caller uses
httpx's own transport for those.
"""

from __future__ import annotations

import re
import ssl
import time
from collections.abc import AsyncIterator, Callable

import httpx

from pi_cli.ai.transport.asyncio_backend import Connection, connect

MAX_IDLE = 8
KEEPALIVE_S = 5.0
MAX_HEAD_BYTES = 64 * 1024
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_STATUS = re.compile(rb"HTTP/(\d)\.(\d) (\d{3})(?: ([^\r\n]*))?")
_NO_BODY_STATUS = frozenset((204, 304))
Origin = tuple[bytes, bytes, int]


class Body(httpx.AsyncByteStream):
    """One response body; iterate it, or call :meth:`read_some` until it returns ``b""``."""

    __slots__ = ("_chunk_left", "_conn", "_length_left", "_mode", "_pool", "_request", "_timeout", "done")

    def __init__(self, pool: StreamTransport, conn: Connection, request: httpx.Request, mode: str, length: int) -> None:
        self._pool = pool
        self._conn: Connection | None = conn
        self._request = request
        self._mode = mode  # "length" | "chunked" | "eof" | "none"
        self._length_left = length
        # chunked: bytes left in this chunk's data (> 0), a size line next (-1), the CRLF after data
        # (-2), the trailers after the last chunk (0)
        self._chunk_left = -1
        self._timeout = _timeout(request, "read")
        self.done = mode == "none" or (mode == "length" and length == 0)
        if self.done:
            self._release()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            data = await self.read_some()
            if not data:
                return
            yield data

    async def read_some(self) -> bytes:
        """The body bytes that have arrived (at least one), waiting for them; ``b""`` at the end."""
        while True:
            data = self.take()
            if data or self.done:
                return data
            conn = self._conn
            if conn is None:
                raise httpx.StreamClosed()
            if conn.closed:
                self._ended_early(conn)
                return b""
            if not await conn.wait_more(self._timeout):
                raise httpx.ReadTimeout("timed out waiting for the server", request=self._request)

    def take(self) -> bytes:
        """Body bytes already received, without waiting (``b""`` if none yet)."""
        conn = self._conn
        if conn is None or not conn.buffer:
            return b""
        buffer = conn.buffer
        if self._mode == "chunked":
            data = self._dechunk(buffer)
        elif self._mode == "length":
            data = bytes(buffer[: self._length_left])
            del buffer[: len(data)]
            self._length_left -= len(data)
            if not self._length_left:
                self._finish()
        else:  # until EOF
            data = bytes(buffer)
            buffer.clear()
        conn.after_read()
        return data

    def hold(self, seconds: float) -> None:
        """Leave the socket unread for up to ``seconds``, so what arrives meanwhile comes in one read."""
        if self._conn is not None and not self.done:
            self._conn.hold(seconds)

    async def aclose(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()  # not read to the end: the connection is in an unknown state

    def _dechunk(self, buffer: bytearray) -> bytes:
        """Strip the framing of every complete piece in ``buffer``; keep an incomplete size line."""
        if self._chunk_left == 0:  # after the last chunk: its trailers
            if self._drop_trailers(buffer):
                self._finish()
            return b""
        raw = bytes(buffer)  # one copy; the chunks' data are sliced from it
        find = raw.find
        parts: list[bytes] = []
        pos, end = 0, len(raw)
        left = self._chunk_left
        while pos < end:
            if left == -1:  # a size line
                line_end = find(b"\n", pos)
                if line_end < 0:
                    if end - pos > 1024:
                        raise httpx.RemoteProtocolError("chunk size line too long", request=self._request)
                    break
                size = self._chunk_size(raw[pos:line_end])
                pos = line_end + 1
                if size == 0:
                    del buffer[:pos]
                    self._chunk_left = 0
                    if self._drop_trailers(buffer):
                        self._finish()
                    return b"".join(parts)
                stop = pos + size
                if raw.startswith(b"\r\n", stop):  # the whole chunk is here: the common case
                    parts.append(raw[pos:stop])
                    pos = stop + 2
                    continue
                left = size
            elif left > 0:  # inside a chunk's data
                stop = min(end, pos + left)
                parts.append(raw[pos:stop])
                left -= stop - pos
                pos = stop
                if left == 0:
                    left = -2
            else:  # the line end after a chunk's data
                line_end = find(b"\n", pos)
                if line_end < 0:
                    break
                pos, left = line_end + 1, -1
        del buffer[:pos]
        self._chunk_left = left
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _chunk_size(self, line: bytes) -> int:
        try:
            size = int(line, 16)  # int() ignores the surrounding whitespace, "\r" included
        except ValueError:
            try:
                size = int(line.split(b";", 1)[0], 16)  # a chunk extension
            except ValueError:
                size = -1
        if size < 0:
            raise httpx.RemoteProtocolError(f"bad chunk size line {line[:40]!r}", request=self._request)
        return size

    def _drop_trailers(self, buffer: bytearray) -> bool:
        """After the last chunk: drop trailer lines up to the blank line; False if it is not here yet."""
        while True:
            line_end = buffer.find(b"\n")
            if line_end < 0:
                return False
            blank = buffer[:line_end].strip() == b""
            del buffer[: line_end + 1]
            if blank:
                return True

    def _finish(self) -> None:
        self.done = True
        self._release()

    def _release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._pool.release(conn)

    def _ended_early(self, conn: Connection) -> None:
        if self._mode == "eof" and conn.error is None:
            self.done = True
            self._conn = None
            conn.close()
            return
        if conn.error is not None:
            raise httpx.ReadError(str(conn.error) or type(conn.error).__name__, request=self._request)
        if self._mode == "chunked":
            detail = "incomplete chunked read"
        else:
            detail = f"{self._length_left} bytes short of Content-Length"
        raise httpx.RemoteProtocolError(
            f"peer closed connection without sending complete message body: {detail}", request=self._request
        )


def _timeout(request: httpx.Request, kind: str) -> float | None:
    timeouts = request.extensions.get("timeout") or {}
    value = timeouts.get(kind)
    return float(value) if value is not None else None


class StreamTransport(httpx.AsyncBaseTransport):
    """An ``httpx.AsyncBaseTransport`` over :func:`~pi_cli.ai.transport.asyncio_backend.connect`;
    ``ssl_context`` makes the TLS context, once, when the first ``https`` connection opens."""

    def __init__(self, ssl_context: Callable[[], ssl.SSLContext]) -> None:
        self._make_ssl = ssl_context  # called on the first TLS connection (loading CAs costs ~30 ms)
        self._ssl: ssl.SSLContext | None = None
        self._idle: dict[Origin, list[tuple[Connection, float]]] = {}
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        origin: Origin = (url.raw_scheme, url.raw_host, url.port or (443 if url.raw_scheme == b"https" else 80))
        if origin[0] not in (b"http", b"https"):
            raise httpx.UnsupportedProtocol(f"unsupported scheme {url.scheme!r}", request=request)
        body = await request.aread()
        head = _request_head(request, body)
        conn = self._reuse(origin) or await self._open(origin, request)
        try:
            await self._send(conn, request, head + body)
            status, reason, version, headers = await self._read_head(conn, request)
        except BaseException:
            conn.close()
            raise
        mode, length = _framing(request.method, status, headers, request)
        if not _keep_alive(version, headers) or mode == "eof" or status == 101:
            conn.reusable = False
        stream = Body(self, conn, request, mode, length)
        return httpx.Response(
            status,
            headers=headers,
            stream=stream,
            extensions={"http_version": b"HTTP/1.%d" % version, "reason_phrase": reason, "pi_body": stream},
        )

    async def aclose(self) -> None:
        self._closed = True
        for connections in self._idle.values():
            for conn, _ in connections:
                conn.close()
        self._idle.clear()

    def release(self, conn: Connection) -> None:
        """Take back a connection whose response was read whole (closed if it cannot serve another)."""
        if self._closed or not conn.reusable or conn.closed or conn.buffer:
            conn.close()
            return
        idle = self._idle.setdefault(conn.origin, [])
        if len(idle) >= MAX_IDLE:
            conn.close()
            return
        idle.append((conn, time.monotonic() + KEEPALIVE_S))

    def _reuse(self, origin: Origin) -> Connection | None:
        idle = self._idle.get(origin)
        now = time.monotonic()
        while idle:
            conn, expires = idle.pop()
            if expires > now and not conn.closed and not conn.buffer:
                return conn
            conn.close()
        return None

    async def _open(self, origin: Origin, request: httpx.Request) -> Connection:
        scheme, host, port = origin
        tls: ssl.SSLContext | None = None
        if scheme == b"https":
            if self._ssl is None:
                self._ssl = self._make_ssl()
            tls = self._ssl
        name = request.extensions.get("sni_hostname") or host.decode("ascii")
        try:
            return await connect(origin, host.decode("ascii"), port, tls, name, _timeout(request, "connect"))
        except TimeoutError:
            raise httpx.ConnectTimeout("timed out connecting", request=request) from None
        except (OSError, ssl.SSLError, ConnectionError) as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__, request=request) from None

    async def _send(self, conn: Connection, request: httpx.Request, data: bytes) -> None:
        try:
            sent = await conn.write(data, _timeout(request, "write"))
        except ConnectionError as exc:
            raise httpx.WriteError(str(exc) or "connection closed", request=request) from None
        if not sent:
            raise httpx.WriteTimeout("timed out sending the request", request=request)

    async def _read_head(
        self, conn: Connection, request: httpx.Request
    ) -> tuple[int, bytes, int, list[tuple[bytes, bytes]]]:
        """Status, reason, minor version and headers of the final (non-1xx) response head."""
        timeout = _timeout(request, "read")
        while True:
            match = _HEAD_END.search(conn.buffer)
            while match is None:
                if len(conn.buffer) > MAX_HEAD_BYTES:
                    raise httpx.RemoteProtocolError("response head too large", request=request)
                if conn.closed:
                    if conn.error is not None and not conn.buffer:
                        raise httpx.ReadError(str(conn.error) or type(conn.error).__name__, request=request)
                    raise httpx.RemoteProtocolError("Server disconnected without sending a response.", request=request)
                if not await conn.wait_more(timeout):
                    raise httpx.ReadTimeout("timed out waiting for the server", request=request)
                match = _HEAD_END.search(conn.buffer)
            head = bytes(conn.buffer[: match.start()])
            del conn.buffer[: match.end()]
            status, reason, version, headers = _parse_head(head, request)
            if status >= 200 or status == 101:
                return status, reason, version, headers


def _request_head(request: httpx.Request, body: bytes) -> bytes:
    lines = [b"%s %s HTTP/1.1\r\n" % (request.method.encode("ascii"), request.url.raw_path)]
    for name, value in request.headers.raw:
        if name.lower() == b"transfer-encoding":
            continue  # the body goes whole, with a Content-Length
        lines.append(b"%s: %s\r\n" % (name, value))
    if body and b"content-length" not in (n.lower() for n, _ in request.headers.raw):
        lines.append(b"Content-Length: %d\r\n" % len(body))
    lines.append(b"\r\n")
    return b"".join(lines)


def _parse_head(head: bytes, request: httpx.Request) -> tuple[int, bytes, int, list[tuple[bytes, bytes]]]:
    lines = re.split(rb"\r?\n", head)
    match = _STATUS.fullmatch(lines[0].rstrip())
    if match is None:
        raise httpx.RemoteProtocolError(f"bad response status line {lines[0][:60]!r}", request=request)
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        if line[:1] in (b" ", b"\t") and headers:  # obsolete line folding
            name, value = headers[-1]
            headers[-1] = (name, value + b" " + line.strip())
            continue
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip():
            raise httpx.RemoteProtocolError(f"bad response header line {line[:60]!r}", request=request)
        headers.append((name, value.strip()))
    major, minor = int(match.group(1)), int(match.group(2))
    if major != 1:
        raise httpx.RemoteProtocolError(f"unsupported HTTP version {major}.{minor}", request=request)
    return int(match.group(3)), match.group(4) or b"", minor, headers


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> list[bytes]:
    return [value for key, value in headers if key.lower() == name]


def _framing(method: str, status: int, headers: list[tuple[bytes, bytes]], request: httpx.Request) -> tuple[str, int]:
    """How the body ends: ``("none"|"chunked"|"length"|"eof", Content-Length)``."""
    if method == "HEAD" or status in _NO_BODY_STATUS or status < 200:
        return "none", 0
    codings = b",".join(_header(headers, b"transfer-encoding")).lower()
    if codings:
        if codings.rsplit(b",", 1)[-1].strip() == b"chunked":
            return "chunked", 0
        return "eof", 0
    lengths = {value.strip() for value in _header(headers, b"content-length")}
    if lengths:
        if len(lengths) != 1 or not next(iter(lengths)).isdigit():
            raise httpx.RemoteProtocolError("bad Content-Length", request=request)
        return "length", int(next(iter(lengths)))
    return "eof", 0


def _keep_alive(minor: int, headers: list[tuple[bytes, bytes]]) -> bool:
    tokens = {token.strip().lower() for value in _header(headers, b"connection") for token in value.split(b",")}
    return b"keep-alive" in tokens if minor == 0 else b"close" not in tokens
