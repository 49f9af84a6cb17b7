"""The loopback server a browser is redirected to after an authorization-code login.

It listens on 127.0.0.1 (``PI_OAUTH_CALLBACK_HOST``), on the provider's registered port when free
and on any free port otherwise, answers one ``GET <path>?code=…&state=…`` with a small page, and
hands the code over when the state matches. :func:`wait_for_code` races it against the user pasting
the redirect URL or the code (a browser on another machine cannot reach the loopback).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from pi_cli.oauth.endpoints import callback_host
from pi_cli.oauth.flow import LoginError, LoginUI

_PAGE = (
    "<!doctype html><meta charset=utf-8><title>pi</title>"
    "<body style='font-family:sans-serif;margin:3em'><h2>{title}</h2><p>{text}</p></body>"
)


@dataclass
class CallbackServer:
    """A running loopback listener; use :func:`start_callback_server`."""

    path: str
    state: str
    redirect_host: str
    server: asyncio.Server | None = None
    port: int = 0
    code: asyncio.Future[str] = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    @property
    def redirect_uri(self) -> str:
        return f"http://{self.redirect_host}:{self.port}{self.path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            target = head.split(b" ", 2)[1].decode("latin-1") if head.count(b" ") >= 2 else "/"
            status, title, text = self._answer(target)
            page = _PAGE.format(title=title, text=text).encode()
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                f"Content-Length: {len(page)}\r\nConnection: close\r\n\r\n".encode()
                + page
            )
            await writer.drain()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass
        finally:
            writer.close()

    def _answer(self, target: str) -> tuple[str, str, str]:
        parts = urlsplit(target)
        if parts.path != self.path:
            return "404 Not Found", "Not found", "This is pi's login callback; nothing lives here."
        query = parse_qs(parts.query)
        error = query.get("error", [""])[0]
        code, state = query.get("code", [""])[0], query.get("state", [""])[0]
        if error:
            self._fail(LoginError(f"Login was not completed: {error}"))
            return "400 Bad Request", "Login failed", "The provider reported an error. You can close this window."
        if not code or state != self.state:
            return "400 Bad Request", "Login failed", "The callback had no code or a state that does not match."
        if not self.code.done():
            self.code.set_result(code)
        return "200 OK", "Logged in", "pi received the authorization. You can close this window."

    def _fail(self, exc: Exception) -> None:
        if not self.code.done():
            self.code.set_exception(exc)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        if not self.code.done():
            self.code.cancel()


async def start_callback_server(port: int, path: str, state: str, redirect_host: str = "localhost") -> CallbackServer:
    """Listen on ``port`` (or a free one if it is taken)."""
    callback = CallbackServer(path=path, state=state, redirect_host=redirect_host)
    host = callback_host()
    for candidate in (port, 0):
        try:
            callback.server = await asyncio.start_server(callback._serve, host, candidate)
            break
        except OSError:
            continue
    if callback.server is None:
        raise LoginError(f"Could not listen on {host} for the login callback")
    callback.port = int(callback.server.sockets[0].getsockname()[1])
    return callback


def parse_pasted(text: str) -> tuple[str | None, str | None]:
    """``(code, state)`` from a pasted redirect URL, ``code#state``, a query string, or a bare code."""
    value = text.strip()
    if not value:
        return None, None
    parts = urlsplit(value)
    if parts.scheme and parts.netloc:
        query = parse_qs(parts.query)
        return query.get("code", [None])[0], query.get("state", [None])[0]
    if "#" in value:
        code, state = value.split("#", 1)
        return code or None, state or None
    if "code=" in value:
        query = parse_qs(value)
        return query.get("code", [None])[0], query.get("state", [None])[0]
    return value, None


async def wait_for_code(ui: LoginUI, callback: CallbackServer | None, expected_state: str, placeholder: str) -> str:
    """The authorization code, from the callback or pasted by the user, whichever comes first."""
    message = "Finish the login in your browser, or paste the code or the redirect URL here:"
    prompt = asyncio.ensure_future(ui.prompt(message, placeholder))
    waiters: set[asyncio.Future[str] | asyncio.Future[str | None]] = {prompt}
    if callback is not None:
        waiters.add(callback.code)
    try:
        done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        if callback is not None and callback.code in done:
            return callback.code.result()
        pasted = prompt.result()
    finally:
        prompt.cancel()
        with contextlib.suppress(BaseException):
            await prompt
    if pasted is None:
        raise LoginError("Login cancelled")
    code, state = parse_pasted(pasted)
    if state is not None and state != expected_state:
        raise LoginError("Login failed: the pasted state does not match this login (OAuth state mismatch)")
    if not code:
        raise LoginError("Login failed: no authorization code was given")
    return code


async def code_from_browser(
    ui: LoginUI, callback: CallbackServer | None, url: str, hint: str, expected_state: str, placeholder: str
) -> str:
    """Show the sign-in ``url`` with ``hint``, wait for the code (:func:`wait_for_code`), always
    close the callback server, and tell the user the code is being exchanged."""
    try:
        ui.show_url(url, hint)
        code = await wait_for_code(ui, callback, expected_state, placeholder)
    finally:
        if callback is not None:
            callback.close()
    ui.progress("Exchanging the authorization code for tokens…")
    return code
