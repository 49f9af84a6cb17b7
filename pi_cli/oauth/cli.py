"""``pi auth login <provider> [--no-browser | --api-key]`` and ``pi auth logout <provider>``.

``login`` runs the provider's subscription login: the authorization URL (or the device code) goes to
stderr and, unless ``--no-browser``, a browser is opened and a loopback callback waits; the user
may always paste the code or redirect URL on stdin instead. ``--api-key`` reads a key from stdin (or
asks for it on a terminal) and stores it as an ``api_key`` record instead. Exit codes: 0 done,
1 failed (one line on stderr), 2 bad usage.
"""

from __future__ import annotations

import asyncio
import sys
import threading

from pi_cli.config.auth import AuthError, AuthStore
from pi_cli.errors import PiError
from pi_cli.oauth.browser import open_url
from pi_cli.oauth.credentials import OAuthCredentials
from pi_cli.oauth.flow import LoginError
from pi_cli.oauth.registry import get_flow, list_flows

LOGIN_TIMEOUT_S = 15 * 60
USAGE = "Usage: pi auth login <provider> [--no-browser | --api-key]\n       pi auth logout <provider>"


def _err(text: str) -> None:
    sys.stderr.write(text.rstrip("\n") + "\n")
    sys.stderr.flush()


def _read_line() -> asyncio.Future[str]:
    """A line of stdin, read on a daemon thread (so a pending read never holds up the exit)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def read() -> None:
        line = sys.stdin.readline() if sys.stdin is not None else ""
        loop.call_soon_threadsafe(lambda: None if future.done() else future.set_result(line))

    threading.Thread(target=read, name="auth-stdin", daemon=True).start()
    return future


class TerminalLoginUI:
    """:class:`~pi_cli.oauth.flow.LoginUI` on stderr/stdin."""

    def __init__(self, open_browser: bool) -> None:
        self.open_browser = open_browser

    def show_url(self, url: str, instructions: str) -> None:
        _err(f"{instructions}\n\n  {url}\n")
        if self.open_browser:
            open_url(url)

    def show_device_code(self, verification_uri: str, user_code: str) -> None:
        _err(f"Open {verification_uri} and enter the code {user_code}")
        if self.open_browser:
            open_url(verification_uri)

    def progress(self, message: str) -> None:
        _err(message)

    async def prompt(self, message: str, placeholder: str) -> str | None:
        _err(f"{message} ")
        line = await _read_line()
        if line:
            return line.strip()
        if self.open_browser:  # stdin closed, but the browser callback may still come
            await asyncio.Event().wait()
        return None


def _providers_hint() -> str:
    return ", ".join(flow.provider for flow in list_flows())


async def _login(provider: str, manual: bool) -> None:
    flow = get_flow(provider)
    if flow is None:
        raise LoginError(f"Unknown login provider: {provider} (one of: {_providers_hint()})")
    ui = TerminalLoginUI(open_browser=not manual)
    try:
        credential = await asyncio.wait_for(flow.login(ui, manual=manual), LOGIN_TIMEOUT_S)
    except TimeoutError:
        raise LoginError("Login timed out") from None
    OAuthCredentials().save(provider, credential)
    _err(f"Logged in to {flow.name}. Credentials saved to {AuthStore().path}")


def _store_api_key(provider: str) -> None:
    if sys.stdin is not None and sys.stdin.isatty():
        import getpass

        key = getpass.getpass(f"API key for {provider}: ")
    else:
        key = sys.stdin.readline() if sys.stdin is not None else ""
    key = key.strip()
    if not key:
        raise LoginError("No API key given")
    AuthStore().set_api_key(provider, key)
    _err(f"API key for {provider} saved to {AuthStore().path}")


def run_auth_command(argv: list[str]) -> int:
    """``pi auth ...``; returns the exit code."""
    if not argv or argv[0] in ("-h", "--help", "help") or "--help" in argv:
        sys.stdout.write(USAGE + "\n")
        return 0 if argv else 2
    flags = {a for a in argv if a.startswith("--")}
    words = [a for a in argv if not a.startswith("--")]
    unknown = flags - {"--no-browser", "--api-key"}
    if len(words) != 2 or words[0] not in ("login", "logout") or unknown or len(flags) > 1:
        _err(f"Error: unknown option {sorted(unknown)[0]}\n{USAGE}" if unknown else USAGE)
        return 2
    action, provider = words
    try:
        if action == "logout":
            removed = OAuthCredentials().remove(provider)
            _err(f"Logged out of {provider}." if removed else f"No stored credentials for {provider}.")
            return 0
        if "--api-key" in flags:
            _store_api_key(provider)
            return 0
        asyncio.run(_login(provider, manual="--no-browser" in flags))
        return 0
    except (PiError, AuthError) as exc:
        _err(f"Error: {exc}")
        return 1
    except KeyboardInterrupt:
        _err("Login cancelled")
        return 130
