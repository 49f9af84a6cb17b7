"""pi_cli's HTTP/1.1 transport for provider streams: framing, keep-alive, errors, TLS, gathering."""

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

from pi_cli.ai.transport.http1 import Body, StreamTransport

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head + (await reader.readexactly(length) if length else b"")


@asynccontextmanager
async def _server(handler: Handler, tls: ssl.SSLContext | None = None) -> AsyncIterator[tuple[str, list[int]]]:
    """The server's URL and a list that grows by one per accepted connection."""
    connections: list[int] = []

    async def counted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        await handler(reader, writer)

    server = await asyncio.start_server(counted, "127.0.0.1", 0, ssl=tls)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}/path?q=1", connections
    finally:
        server.close()


def _client(tls: ssl.SSLContext | None = None, **kwargs: object) -> httpx.AsyncClient:
    context = tls or ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return httpx.AsyncClient(transport=StreamTransport(lambda: context), **kwargs)  # type: ignore[arg-type]


async def _serve_forever(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, answer: bytes) -> None:
    """Answer every request on the connection with ``answer`` (keep-alive)."""
    try:
        while True:
            await _read_request(reader)
            writer.write(answer)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def test_a_chunked_body_split_at_every_byte_arrives_whole() -> None:
    pieces = [f"data: {n}\n\n".encode() for n in range(30)]
    wire = HEAD + b"".join(_chunk(p) for p in pieces[:10])
    wire += b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in pieces[10:])  # chunk extensions
    wire += b"0\r\nX-Trailer: yes\r\n\r\n"

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        for index in range(len(wire)):
            writer.write(wire[index : index + 1])
            await writer.drain()
        await _serve_forever(reader, writer, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    async with _server(handler) as (url, connections), _client() as client:
        async with client.stream("GET", url) as response:
            got = b"".join([raw async for raw in response.aiter_raw()])
        assert got == b"".join(pieces)
        assert (await client.get(url)).text == "ok"  # the trailers were read: the connection is reused
    assert len(connections) == 1


async def test_length_and_eof_bodies_and_bodiless_answers() -> None:
    answers = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nyes",
        b"HTTP/1.0 200 OK\r\n\r\nuntil the end",
    ]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for answer in answers:
            await _read_request(reader)
            writer.write(answer)
            await writer.drain()
        writer.close()

    async with _server(handler) as (url, connections), _client() as client:
        first = await client.get(url)
        assert (first.status_code, first.text, first.reason_phrase) == (200, "hello", "OK")
        assert (await client.get(url)).status_code == 204
        assert (await client.get(url)).text == "yes"
        last = await client.get(url)
        assert (last.text, last.http_version) == ("until the end", "HTTP/1.0")
    assert len(connections) == 1


async def test_the_request_goes_out_as_httpx_built_it() -> None:
    seen: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await _read_request(reader))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    async def body() -> AsyncIterator[bytes]:
        yield b'{"a":'
        yield b"1}"

    async with _server(handler) as (url, _), _client() as client:
        await client.post(url, content=body(), headers={"X-Key": "v"})
    head, _, sent = seen[0].partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"POST /path?q=1 HTTP/1.1"
    assert b"X-Key: v" in lines and b"Content-Length: 7" in lines
    assert not any(line.lower().startswith(b"transfer-encoding") for line in lines)
    assert sent == b'{"a":1}'


async def test_connections_not_read_to_the_end_or_closed_by_either_side_are_not_reused() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await _read_request(reader)
        if b"/close" in request:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        elif b"/long" in request:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + b"x" * 10)
        else:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()
            await asyncio.sleep(0.05)  # keep-alive promised, then the server hangs up while the client idles
        await writer.drain()
        writer.close()

    base = ""
    async with _server(handler) as (url, connections), _client() as client:
        base = url.split("/path")[0]
        assert (await client.get(base + "/close")).text == "ok"
        async with client.stream("GET", base + "/long") as response:
            async for _ in response.aiter_raw():
                break
        assert (await client.get(base + "/idle")).text == "ok"
        await asyncio.sleep(0.2)
        assert (await client.get(base + "/idle")).text == "ok"
    assert len(connections) == 4


@pytest.mark.parametrize(
    ("wire", "error", "text"),
    [
        (HEAD + _chunk(b"data: 1\n\n"), httpx.RemoteProtocolError, "incomplete chunked read"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", httpx.RemoteProtocolError, "short of Content-Length"),
        (HEAD + b"zz\r\n", httpx.RemoteProtocolError, "bad chunk size"),
        (HEAD + b"-5\r\n", httpx.RemoteProtocolError, "bad chunk size"),
        (b"SMTP ready\r\n\r\n", httpx.RemoteProtocolError, "bad response status line"),
        (b"", httpx.RemoteProtocolError, "without sending a response"),
    ],
)
async def test_broken_answers_raise_httpx_errors(wire: bytes, error: type[Exception], text: str) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(wire)
        await writer.drain()
        writer.close()

    async with _server(handler) as (url, _), _client() as client:
        with pytest.raises(error, match=text):
            async with client.stream("GET", url) as response:
                async for _ in response.aiter_raw():
                    pass


async def test_a_silent_server_is_a_read_timeout_and_nobody_listening_a_connect_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(HEAD + _chunk(b"data: 1\n\n"))
        await writer.drain()
        await asyncio.sleep(5)

    async with _server(handler) as (url, _), _client(timeout=httpx.Timeout(5.0, read=0.2)) as client:
        with pytest.raises(httpx.ReadTimeout):
            async with client.stream("GET", url) as response:
                async for _ in response.aiter_raw():
                    pass
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    async with _client() as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://127.0.0.1:{port}/")


async def test_a_held_body_takes_what_arrived_meanwhile_in_one_read() -> None:
    go = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(HEAD + _chunk(b"first\n"))
        await writer.drain()
        await go.wait()
        for n in range(3):  # three separate writes while the client does not read
            writer.write(_chunk(b"more %d\n" % n))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async with _server(handler) as (url, _), _client() as client, client.stream("GET", url) as response:
        body = response.extensions["pi_body"]
        assert isinstance(body, Body)
        assert await body.read_some() == b"first\n"
        body.hold(0.5)
        go.set()
        assert await body.read_some() == b"more 0\nmore 1\nmore 2\n"
        assert await body.read_some() == b""
        assert body.done


async def test_cancelling_a_waiting_read_closes_the_connection() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await _read_request(reader)
        if b"/stall" in request:
            writer.write(HEAD)
            await writer.drain()
            await asyncio.sleep(5)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await _serve_forever(reader, writer, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    async with _server(handler) as (url, connections), _client() as client:

        async def read_all() -> None:
            async with client.stream("GET", url.split("/path")[0] + "/stall") as response:
                async for _ in response.aiter_raw():
                    pass

        task = asyncio.create_task(read_all())
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert (await client.get(url)).text == "ok"
    assert len(connections) == 2


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
    return server, ssl.create_default_context(cafile=str(cert))


async def test_tls_streams_and_verifies(tls_pair: tuple[ssl.SSLContext, ssl.SSLContext]) -> None:
    server_ctx, client_ctx = tls_pair
    pieces = [b"data: %d\n\n" % n for n in range(50)]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(HEAD)
        for piece in pieces:
            writer.write(_chunk(piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        writer.close()

    async with _server(handler, tls=server_ctx) as (url, _):
        async with _client(client_ctx) as client, client.stream("GET", url) as response:
            assert b"".join([raw async for raw in response.aiter_raw()]) == b"".join(pieces)
        async with _client() as untrusting:  # trusts no certificate at all
            with pytest.raises(httpx.ConnectError):
                await untrusting.get(url)
