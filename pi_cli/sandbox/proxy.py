"""A local HTTP(S) proxy that lets sandboxed processes reach an allow list of hosts.

With ``"network": {"allow": [...]}`` the Landlock domain allows TCP connect to one port only: this
proxy's, on 127.0.0.1. Tool processes get ``HTTP_PROXY``/``HTTPS_PROXY`` (both cases, and
``ALL_PROXY``) pointing at it. It serves ``CONNECT host:port`` (HTTPS and anything tunnelled) and
absolute-URI HTTP requests (``GET http://host/…``, forwarded with ``Connection: close`` so one
connection carries one checked request). A host not on the list gets ``403`` and is recorded in
:attr:`AllowListProxy.refusals`, which the tool result reports.

Entries: ``example.com`` (that host, any port), ``*.example.com`` (its subdomains),
``host:port``. A listed *name* that resolves to a loopback, private or link-local address is
refused (a public name must not become a way into local services); list the address or
``localhost`` itself to reach those.

The proxy runs on its own thread and event loop, started on first use, so it serves whichever loop
(the agent's, MCP's) started the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import threading
import time
from collections import deque
from urllib.parse import urlsplit

_HEAD_LIMIT = 64 * 1024
_TIMEOUT_S = 30.0
_DROP_HEADERS = (b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive")


def _split_host_port(value: str, default_port: int) -> tuple[str, int]:
    if value.startswith("["):  # [::1]:443
        host, _, rest = value[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        host, sep, port = value.rpartition(":")
        if not sep or not port.isdigit():
            host, port = value, ""
    return host.lower().rstrip("."), int(port) if port.isdigit() else default_port


def _is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost"
    return True


def host_allowed(allow: tuple[str, ...], host: str, port: int) -> bool:
    """Whether ``host:port`` matches an allow-list entry (module doc)."""
    for entry in allow:
        name, want_port = _split_host_port(entry, 0)
        if want_port and want_port != port:
            continue
        if name.startswith("*."):
            if host.endswith(name[1:]) and host != name[2:]:
                return True
        elif host == name:
            return True
    return False


def _local(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_unspecified or ip.is_multicast


class AllowListProxy:
    """The proxy for one allow list. :meth:`start` returns its port; :meth:`close` stops it."""

    def __init__(self, allow: tuple[str, ...]) -> None:
        self.allow = allow
        self.refusals: deque[tuple[float, str]] = deque(maxlen=200)  # (time.monotonic(), "host:port")
        self.port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> int:
        """Bind 127.0.0.1 on a free port and serve on a daemon thread (once); the port."""
        with self._lock:
            if self.port is not None:
                return self.port
            ready = threading.Event()
            failure: list[BaseException] = []

            def main() -> None:
                loop = self._loop = asyncio.new_event_loop()
                try:
                    server = loop.run_until_complete(
                        asyncio.start_server(self._serve, "127.0.0.1", 0, limit=_HEAD_LIMIT)
                    )
                    self.port = int(server.sockets[0].getsockname()[1])
                except BaseException as exc:
                    failure.append(exc)
                    ready.set()
                    return
                ready.set()
                try:
                    loop.run_forever()
                finally:
                    server.close()
                    with contextlib.suppress(Exception):
                        loop.run_until_complete(server.wait_closed())
                    loop.close()

            self._thread = threading.Thread(target=main, name="pi-sandbox-proxy", daemon=True)
            self._thread.start()
            ready.wait(10)
            if failure or self.port is None:
                raise OSError(f"the sandbox's network proxy could not start: {failure[0] if failure else 'timeout'}")
            return self.port

    def refused_since(self, since: float) -> list[str]:
        """Hosts refused since ``since`` (``time.monotonic()``), oldest first, without repeats."""
        seen: dict[str, None] = {}
        for when, target in list(self.refusals):
            if when >= since:
                seen.setdefault(target)
        return list(seen)

    def close(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            loop.call_soon_threadsafe(loop.stop)
            thread.join(2)
        self.port = None

    # -- one client connection ----------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._relay(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            pass
        finally:
            writer.close()

    async def _reply(self, writer: asyncio.StreamWriter, status: str, text: str) -> None:
        body = text.encode() + b"\n"
        head = (
            f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        writer.write(head.encode() + body)
        await writer.drain()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _TIMEOUT_S)
        line, _, rest = head.partition(b"\r\n")
        method, target, _version = line.decode("latin-1").split(" ", 2)
        if method.upper() == "CONNECT":
            host, port = _split_host_port(target, 443)
            forward = b""
        else:
            url = urlsplit(target)
            if url.scheme != "http" or not url.hostname:
                await self._reply(writer, "400 Bad Request", "pi sandbox proxy: expected CONNECT or an http:// URL")
                return
            host, port = url.hostname.lower(), url.port or 80
            path = (url.path or "/") + (f"?{url.query}" if url.query else "")
            headers = [h for h in rest.split(b"\r\n") if h and h.split(b":", 1)[0].strip().lower() not in _DROP_HEADERS]
            forward = b"\r\n".join(
                [f"{method} {path} {_version}".encode("latin-1"), *headers, b"Connection: close", b"", b""]
            )
        where = f"{host}:{port}"
        if not host_allowed(self.allow, host, port):
            self.refusals.append((time.monotonic(), where))
            await self._reply(writer, "403 Forbidden", f"pi sandbox: {where} is not in sandbox.network.allow")
            return
        address = await self._address(host, port)
        if address is None:
            self.refusals.append((time.monotonic(), where))
            await self._reply(writer, "403 Forbidden", f"pi sandbox: {host} resolves to a local address")
            return
        upstream_reader, upstream_writer = await asyncio.wait_for(asyncio.open_connection(address, port), _TIMEOUT_S)
        try:
            if forward:
                upstream_writer.write(forward)
            else:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
        finally:
            upstream_writer.close()

    async def _address(self, host: str, port: int) -> str | None:
        """The address to connect to; None when a listed name resolves to a local address."""
        if _is_literal(host):
            return "127.0.0.1" if host == "localhost" else host
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=1)  # SOCK_STREAM
        addresses = [str(info[4][0]) for info in infos]
        if not addresses or any(_local(a) for a in addresses):
            return None
        return addresses[0]


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            if sink.can_write_eof():
                sink.write_eof()
