"""An httpcore network backend on asyncio's transports and protocols.

httpx reaches the network through httpcore, whose default backend under asyncio is anyio's: every
read opens a cancel scope for its timeout and goes through anyio's stream wrappers. A streamed
answer is thousands of small reads (one per SSE event), so that wrapping was the largest single
cost of a token on its way to the screen (~45 % of the CPU of ``pi -p`` while streaming). Here a
read takes bytes the protocol has already buffered, or waits on one future with one timer.

:class:`Connection` and :func:`connect` are the same machinery for pi_cli's own HTTP/1.1 transport
(:mod:`pi_cli.ai.transport.http1`), which reads the protocol's buffer directly.

Contract (httpcore's ``AsyncNetworkStream``): ``read`` returns up to ``max_bytes`` bytes, ``b""``
at end of stream, and raises ``ReadTimeout``/``ReadError``; ``write`` raises ``WriteTimeout``/
``WriteError``; ``start_tls`` returns a new stream over TLS or raises ``ConnectError``/
``ConnectTimeout``; ``get_extra_info("is_readable")`` is true when an idle connection has data or
was closed by the server (the pool then drops it). Cancelling the awaiting task (an abort) leaves
the stream consistent.
"""

from __future__ import annotations

import asyncio
import os
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

HIGH_WATER = 1 << 20  # stop reading from the socket past this much unread data
SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]


class _Protocol(asyncio.Protocol):
    """Buffers what arrives; wakes the one reader waiting for it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.paused = False  # flow control: too much unread data
        self.held: asyncio.TimerHandle | None = None  # a reader asked to gather data (Connection.hold)
        # The read timeout: one timer re-armed lazily, not one per read (a stream is thousands).
        self.deadline = 0.0
        self.deadline_timer: asyncio.TimerHandle | None = None
        self.timed_out = False
        self.write_waiter: asyncio.Future[None] | None = None
        self.write_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > HIGH_WATER and self.transport is not None and not self.paused:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        if exc is not None:
            self.error = exc
        for timer in (self.held, self.deadline_timer):
            if timer is not None:
                timer.cancel()
        self.held = self.deadline_timer = None
        self._wake()
        self._wake_writer()

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        self._wake_writer()

    def hold(self, seconds: float) -> None:
        if self.held is not None or self.eof or self.transport is None:
            return
        self.transport.pause_reading()
        self.held = self.loop.call_later(seconds, self._release)

    def _release(self) -> None:
        self.held = None
        self._resume()

    def _resume(self) -> None:
        if not self.paused and self.held is None and self.transport is not None and not self.transport.is_closing():
            self.transport.resume_reading()

    def after_read(self) -> None:
        if self.paused and len(self.buffer) <= HIGH_WATER // 2:
            self.paused = False
            self._resume()

    async def wait(self, timeout: float | None) -> bool:
        """Wait for data or EOF; False if ``timeout`` seconds passed first."""
        future: asyncio.Future[None] = self.loop.create_future()
        self.waiter = future
        try:
            if timeout is None:
                await future
                return True
            self.deadline = deadline = self.loop.time() + timeout
            timer = self.deadline_timer
            if timer is None or timer.when() > deadline:  # none armed, or armed for a later time
                if timer is not None:
                    timer.cancel()
                self.deadline_timer = self.loop.call_at(deadline, self._check_deadline)
            await future
            expired, self.timed_out = self.timed_out, False
            return not expired
        finally:
            if self.waiter is future:
                self.waiter = None

    def _check_deadline(self) -> None:
        self.deadline_timer = None
        waiter = self.waiter
        if waiter is None or waiter.done():
            return  # nobody waits: the next wait arms a new timer
        if self.loop.time() < self.deadline:  # the deadline moved on since the timer was set
            self.deadline_timer = self.loop.call_at(self.deadline, self._check_deadline)
            return
        self.timed_out = True
        self._wake()

    def _wake(self) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _wake_writer(self) -> None:
        waiter, self.write_waiter = self.write_waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


async def _wait(loop: asyncio.AbstractEventLoop, future: asyncio.Future[None], timeout: float | None) -> bool:
    """Await ``future``; False if ``timeout`` seconds passed first. A cancelled task stays cancelled."""
    if timeout is None:
        await future
        return True
    expired = False

    def expire() -> None:
        nonlocal expired
        if not future.done():
            expired = True
            future.set_result(None)

    timer = loop.call_later(timeout, expire)
    try:
        await future
    finally:
        timer.cancel()
    return not expired


class Connection:
    """One TCP (or TLS) connection: an asyncio transport, its buffering protocol and a pool key.

    ``buffer`` holds what arrived and was not taken yet (take bytes by deleting them from it, then
    call :meth:`after_read`). ``closed`` is true once the server closed its side or the connection
    failed (``error``). ``reusable`` is for the pool that owns the connection.
    """

    __slots__ = ("origin", "protocol", "reusable", "transport")

    def __init__(self, transport: asyncio.Transport, protocol: _Protocol, origin: Any = None) -> None:
        self.transport = transport
        self.protocol = protocol
        self.origin = origin
        self.reusable = True

    @property
    def buffer(self) -> bytearray:
        return self.protocol.buffer

    @property
    def closed(self) -> bool:
        return self.protocol.eof or self.transport.is_closing()

    @property
    def error(self) -> BaseException | None:
        return self.protocol.error

    async def wait_data(self, timeout: float | None) -> bool:
        """Wait until data is buffered or the connection closed; False if ``timeout`` passed first."""
        protocol = self.protocol
        if protocol.buffer or self.closed:
            return True
        return await protocol.wait(timeout)

    async def wait_more(self, timeout: float | None) -> bool:
        """Wait until more data arrives (what is buffered does not count) or the connection closed;
        False if ``timeout`` passed first. For a reader that needs more than ``buffer`` holds."""
        if self.closed:
            return True
        return await self.protocol.wait(timeout)

    def after_read(self) -> None:
        """Call after taking bytes from ``buffer``: resumes a socket paused for flow control."""
        self.protocol.after_read()

    def hold(self, seconds: float) -> None:
        """Stop reading the socket for up to ``seconds`` (the kernel keeps what arrives), so a
        trickling stream is taken in one read instead of a wake-up per event."""
        self.protocol.hold(seconds)

    async def write(self, data: bytes, timeout: float | None) -> bool:
        """Send ``data``; False if the peer did not take it within ``timeout``. Raises
        ``ConnectionError`` when the connection is already closed."""
        protocol = self.protocol
        if self.transport.is_closing():
            raise ConnectionError(str(protocol.error) if protocol.error else "connection closed")
        self.transport.write(data)
        if not protocol.write_paused:
            return True
        future: asyncio.Future[None] = protocol.loop.create_future()
        protocol.write_waiter = future
        return await _wait(protocol.loop, future, timeout)

    def close(self) -> None:
        self.transport.close()


async def connect(
    origin: Any,
    host: str,
    port: int,
    tls: ssl.SSLContext | None,
    server_hostname: str | None,
    timeout: float | None,
) -> Connection:
    """Open a :class:`Connection` (TLS when ``tls`` is given). Raises ``TimeoutError`` or ``OSError``
    (``ssl.SSLError`` for a failed handshake)."""
    loop = asyncio.get_running_loop()
    opened = loop.create_connection(
        lambda: _Protocol(loop), host, port, ssl=tls, server_hostname=server_hostname if tls else None
    )
    transport, protocol = await asyncio.wait_for(opened, timeout)
    return Connection(transport, protocol, origin)


class AsyncioStream(httpcore.AsyncNetworkStream):
    """httpcore's view of one :class:`Connection`."""

    def __init__(self, transport: asyncio.Transport, protocol: _Protocol) -> None:
        self._conn = Connection(transport, protocol)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        conn = self._conn
        if not await conn.wait_data(timeout):
            raise httpcore.ReadTimeout("timed out waiting for the server")
        buffer = conn.buffer
        if buffer:
            data = bytes(buffer[:max_bytes])
            del buffer[:max_bytes]
            conn.after_read()
            return data
        if conn.error is not None:
            raise httpcore.ReadError(str(conn.error) or type(conn.error).__name__)
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        try:
            sent = await self._conn.write(buffer, timeout)
        except ConnectionError as exc:
            raise httpcore.WriteError(str(exc)) from None
        if not sent:
            raise httpcore.WriteTimeout("timed out sending the request")

    async def aclose(self) -> None:
        self._conn.close()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        conn = self._conn
        loop = conn.protocol.loop
        try:
            transport = await asyncio.wait_for(
                loop.start_tls(conn.transport, conn.protocol, ssl_context, server_hostname=server_hostname),
                timeout,
            )
        except TimeoutError as exc:
            conn.close()
            raise httpcore.ConnectTimeout("timed out during the TLS handshake") from exc
        except (OSError, ssl.SSLError, ConnectionError) as exc:
            conn.close()
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        if transport is None:  # the connection closed during the handshake
            raise httpcore.ConnectError("connection closed during the TLS handshake")
        return AsyncioStream(transport, conn.protocol)

    def get_extra_info(self, info: str) -> Any:
        conn = self._conn
        if info == "is_readable":
            return bool(conn.buffer) or conn.protocol.eof
        if info == "ssl_object":
            return conn.transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return conn.transport.get_extra_info("sockname")
        if info == "server_addr":
            return conn.transport.get_extra_info("peername")
        if info == "socket":
            return conn.transport.get_extra_info("socket")
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Opens :class:`AsyncioStream` connections on the running loop."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = (local_address, 0) if local_address else None
        opened = loop.create_connection(lambda: _Protocol(loop), host, port, local_addr=local)
        transport, protocol = await self._connect(opened, timeout)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            for option in socket_options or ():
                sock.setsockopt(*option)
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return AsyncioStream(transport, protocol)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[SocketOption] | None = None
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        transport, protocol = await self._connect(loop.create_unix_connection(lambda: _Protocol(loop), path), timeout)
        return AsyncioStream(transport, protocol)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    @staticmethod
    async def _connect(opened: Any, timeout: float | None) -> tuple[asyncio.Transport, _Protocol]:
        try:
            transport, protocol = await asyncio.wait_for(opened, timeout)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout("timed out connecting") from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        return transport, protocol


def use_asyncio_backend(client: httpx.AsyncClient) -> bool:
    """Route ``client``'s direct connections through :class:`AsyncioBackend`; True if it took.

    Only the default transport changes (proxy transports from the environment keep httpcore's
    own backend). ``PI_HTTP_BACKEND=anyio`` keeps the default everywhere, a way out should a
    network setup misbehave with this one. The pool's backend attribute is private to httpcore,
    so an httpcore that lays it out differently just keeps its default.
    """
    if os.environ.get("PI_HTTP_BACKEND", "").lower() == "anyio":
        return False
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if not isinstance(pool, httpcore.AsyncConnectionPool) or not hasattr(pool, "_network_backend"):
        return False
    pool._network_backend = AsyncioBackend()
    return True
