"""``"network": {"allow": [...]}``: only the proxy is reachable, and it lets listed hosts through."""

from __future__ import annotations

import asyncio
import asyncio.base_events
import http.server
import socket
import sys
import threading
from collections.abc import Iterator

import pytest

from pi_cli.sandbox.controller import Sandbox
from pi_cli.sandbox.policy import SandboxPolicy
from pi_cli.sandbox.proxy import AllowListProxy, host_allowed
from pi_cli.tools.shell.bash import BashTool, BashToolError

from .conftest import Places, needs_landlock


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"hello from upstream"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def upstream() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()


async def run(tool: BashTool, code: str) -> str:
    try:
        result = await tool.execute("call", {"command": f"{sys.executable} -c '{code}'"})
    except BashToolError as exc:
        return str(exc)
    return str(result.content[0]["text"])  # type: ignore[typeddict-item]


@needs_landlock
async def test_listed_host_through_the_proxy_others_refused(places: Places, upstream: int) -> None:
    box = Sandbox(
        SandboxPolicy(mode="workspace", network="allow", allow_hosts=("127.0.0.1",)),
        str(places.project),
        temp_dir=str(places.temp),
    )
    try:
        tool = BashTool(str(places.project), sandbox=box)
        url = f"http://{{host}}:{upstream}/"
        fetch = f'import urllib.request as u; print(u.urlopen("{url}", timeout=5).read().decode())'
        assert "hello from upstream" in await run(tool, fetch.format(host="127.0.0.1"))
        refused = await run(tool, fetch.format(host="localhost"))
        assert "403" in refused and f"connecting to localhost:{upstream}" in refused
        direct = f'import socket; socket.create_connection(("127.0.0.1", {upstream}), 3)'
        assert "Permission denied" in await run(tool, direct)
        tunnel = "\n".join(
            [
                "import os, socket",
                'p = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])',
                's = socket.create_connection(("127.0.0.1", p), 5)',
                f's.sendall(b"CONNECT 127.0.0.1:{upstream} HTTP/1.1\\r\\n\\r\\n")',
                "print(s.recv(100))",
                's.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")',
                'data = b""',
                "while chunk := s.recv(1000):",
                "    data += chunk",
                "print(data)",
            ]
        )
        assert "hello from upstream" in await run(tool, tunnel)
    finally:
        box.close()


def test_allow_list_matching() -> None:
    allow = ("pypi.org", "*.github.com", "example.com:8443")
    assert host_allowed(allow, "pypi.org", 443)
    assert host_allowed(allow, "api.github.com", 443)
    assert not host_allowed(allow, "github.com", 443)  # *.x is its subdomains
    assert not host_allowed(allow, "evilgithub.com", 443)
    assert host_allowed(allow, "example.com", 8443)
    assert not host_allowed(allow, "example.com", 443)
    assert not host_allowed(allow, "pypi.org.evil.net", 443)


async def test_a_listed_name_that_resolves_locally_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    async def resolves_to_loopback(self: object, host: str, port: int, **_: object) -> list[object]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(asyncio.base_events.BaseEventLoop, "getaddrinfo", resolves_to_loopback)
    proxy = AllowListProxy(("evil.example", "127.0.0.1"))
    assert await proxy._address("evil.example", 443) is None  # a public name must not lead inside
    assert await proxy._address("127.0.0.1", 443) == "127.0.0.1"  # a listed address is meant


async def test_the_proxy_refuses_and_records_unlisted_hosts() -> None:
    proxy = AllowListProxy(("pypi.org",))
    port = proxy.start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"CONNECT evil.example:443 HTTP/1.1\r\n\r\n")
        reply = await reader.read(200)
        writer.close()
        assert reply.startswith(b"HTTP/1.1 403") and b"evil.example:443" in reply
        assert proxy.refused_since(0) == ["evil.example:443"]
    finally:
        proxy.close()
