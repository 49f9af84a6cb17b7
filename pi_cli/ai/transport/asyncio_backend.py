"""An httpcore network backend on asyncio's transports and protocols.

httpx reaches the network through httpcore, whose default backend under asyncio is anyio's: every
read opens a cancel scope for its timeout and goes through anyio's stream wrappers. A streamed
answer is thousands of small reads (one per SSE event), so that wrapping was the largest single
cost of a token on its way to the screen (~45 % of the CPU of ``pi -p`` while streaming). Here a
read takes bytes the protocol has already buffered, or waits on one future with one timer.

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
        self.paused = False
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
        self._wake()
        self._wake_writer()

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        self._wake_writer()

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


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One connection: an asyncio transport and its buffering protocol."""

    def __init__(self, transport: asyncio.Transport, protocol: _Protocol) -> None:
        self._transport = transport
        self._protocol = protocol

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        if not protocol.buffer and not protocol.eof:
            future: asyncio.Future[None] = protocol.loop.create_future()
            protocol.waiter = future
            try:
                arrived = await _wait(protocol.loop, future, timeout)
            finally:
                if protocol.waiter is future:
                    protocol.waiter = None
            if not arrived:
                raise httpcore.ReadTimeout("timed out waiting for the server")
        if protocol.buffer:
            data = bytes(protocol.buffer[:max_bytes])
            del protocol.buffer[:max_bytes]
            if protocol.paused and len(protocol.buffer) <= HIGH_WATER // 2:
                protocol.paused = False
                self._transport.resume_reading()
            return data
        if protocol.error is not None:
            raise httpcore.ReadError(str(protocol.error) or type(protocol.error).__name__)
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        protocol = self._protocol
        if self._transport.is_closing():
            raise httpcore.WriteError(str(protocol.error) if protocol.error else "connection closed")
        self._transport.write(buffer)
        if protocol.write_paused:
            future: asyncio.Future[None] = protocol.loop.create_future()
            protocol.write_waiter = future
            if not await _wait(protocol.loop, future, timeout):
                raise httpcore.WriteTimeout("timed out sending the request")

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        loop = self._protocol.loop
        try:
            transport = await asyncio.wait_for(
                loop.start_tls(self._transport, self._protocol, ssl_context, server_hostname=server_hostname),
                timeout,
            )
        except TimeoutError as exc:
            self._transport.close()
            raise httpcore.ConnectTimeout("timed out during the TLS handshake") from exc
        except (OSError, ssl.SSLError, ConnectionError) as exc:
            self._transport.close()
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        if transport is None:  # the connection closed during the handshake
            raise httpcore.ConnectError("connection closed during the TLS handshake")
        return AsyncioStream(transport, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            protocol = self._protocol
            return bool(protocol.buffer) or protocol.eof
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
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
