"""httpx over pi_cli's asyncio network backend: bodies, timeouts, broken connections, TLS, aborts."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from pi_cli.ai.transport.asyncio_backend import AsyncioBackend, use_asyncio_backend
from pi_cli.ai.transport.http_client import get_client

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


async def _read_request(reader: asyncio.StreamReader) -> None:
    await reader.readuntil(b"\r\n\r\n")


@asynccontextmanager
async def _server(handler: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[str]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=tls)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}/"
    finally:
        server.close()


def _client(**kwargs: object) -> httpx.AsyncClient:
    client = httpx.AsyncClient(**kwargs)  # type: ignore[arg-type]
    assert use_asyncio_backend(client)
    return client


async def test_a_streamed_body_arrives_whole_in_order() -> None:
    pieces = [f"data: {n}\n\n".encode() for n in range(200)]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(HEAD)
        for piece in pieces:
            writer.write(_chunk(piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        writer.close()

    async with _server(handler) as url, _client() as client, client.stream("GET", url) as response:
        got = b"".join([raw async for raw in response.aiter_raw()])
    assert got == b"".join(pieces)


async def test_a_large_body_survives_flow_control() -> None:
    body = bytes(range(256)) * 12_000  # ~3 MB: more than the backend buffers before pausing

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
        writer.close()

    async with _server(handler) as url, _client() as client, client.stream("GET", url) as response:
        got = bytearray()
        async for raw in response.aiter_raw():
            got += raw
            await asyncio.sleep(0)  # a slow reader lets the buffer fill
    assert bytes(got) == body


async def test_a_silent_server_times_out_as_a_read_timeout() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(HEAD + _chunk(b"data: 1\n\n"))
        await writer.drain()
        await asyncio.sleep(5)

    timeout = httpx.Timeout(5.0, read=0.2)
    async with _server(handler) as url, _client(timeout=timeout) as client, client.stream("GET", url) as response:
        with pytest.raises(httpx.ReadTimeout):
            async for _ in response.aiter_raw():
                pass


async def test_a_connection_cut_mid_body_is_a_transport_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(HEAD + _chunk(b"data: 1\n\n"))
        await writer.drain()
        writer.transport.abort()

    async with _server(handler) as url, _client() as client, client.stream("GET", url) as response:
        with pytest.raises(httpx.TransportError):
            async for _ in response.aiter_raw():
                pass


async def test_nobody_listening_is_a_connect_error() -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    async with _client() as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://127.0.0.1:{port}/")


async def test_a_keep_alive_connection_closed_by_the_server_is_not_reused() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.close()  # keep-alive promised, then the server hangs up while the client idles

    async with _server(handler) as url, _client() as client:
        assert (await client.get(url)).text == "ok"
        await asyncio.sleep(0.2)
        assert (await client.get(url)).text == "ok"


async def test_cancelling_a_waiting_read_cancels_cleanly() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(HEAD)
        await writer.drain()
        await asyncio.sleep(5)

    async with _server(handler) as url, _client() as client:

        async def read_all() -> None:
            async with client.stream("GET", url) as response:
                async for _ in response.aiter_raw():
                    pass

        task = asyncio.create_task(read_all())
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


@pytest.fixture
def tls_pair(tmp_path: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A server context with a fresh self-signed certificate for 127.0.0.1, and a client that trusts it."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(cert, key)
    client = ssl.create_default_context(cafile=str(cert))
    return server, client


async def test_tls_streams_and_verifies(tls_pair: tuple[ssl.SSLContext, ssl.SSLContext]) -> None:
    server_ctx, client_ctx = tls_pair

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(HEAD)
        for n in range(50):
            writer.write(_chunk(b"data: %d\n\n" % n))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        writer.close()

    async with _server(handler, tls=server_ctx) as url:
        async with _client(verify=client_ctx) as client, client.stream("GET", url) as response:
            got = b"".join([raw async for raw in response.aiter_raw()])
        assert got == b"".join(b"data: %d\n\n" % n for n in range(50))
        async with _client() as untrusting:  # the system CAs do not know this certificate
            with pytest.raises(httpx.ConnectError):
                await untrusting.get(url)


async def test_the_shared_clients_use_it_unless_told_not_to(monkeypatch: pytest.MonkeyPatch) -> None:
    client = get_client("http://127.0.0.1:1/")
    assert isinstance(client._transport._pool._network_backend, AsyncioBackend)  # type: ignore[attr-defined]
    monkeypatch.setenv("PI_HTTP_BACKEND", "anyio")
    plain = httpx.AsyncClient()
    assert not use_asyncio_backend(plain)
    await plain.aclose()
