"""What a login flow is, what it asks of the UI, and the HTTP helpers flows share.

A flow's :meth:`OAuthFlow.login` drives one login through a :class:`LoginUI` (the TUI, inline mode
and ``pi auth login`` each implement it) and returns the record to store; :meth:`OAuthFlow.refresh`
turns a stored record into a fresh one. Both raise :class:`LoginError` with a one-line message that
never contains a token.
"""

from __future__ import annotations

import json
import time
from typing import Any, Protocol

import httpx

from pi_cli.errors import PiError

Credential = dict[str, Any]
HTTP_TIMEOUT_S = 30.0


class LoginError(PiError):
    """A login or refresh failed; the message is safe to show (no tokens in it)."""


class LoginUI(Protocol):
    """What a flow needs from whoever runs it."""

    def show_url(self, url: str, instructions: str) -> None:
        """Show (and, where possible, open) the authorization URL."""

    def show_device_code(self, verification_uri: str, user_code: str) -> None:
        """Show the device-code page and the code to type there."""

    def progress(self, message: str) -> None:
        """A status line ("Exchanging authorization code…")."""

    async def prompt(self, message: str, placeholder: str) -> str | None:
        """Ask for pasted text (a code or redirect URL); None when the user gives up."""


class OAuthFlow(Protocol):
    """One provider's subscription login."""

    provider: str  # the provider id in models and auth.json
    name: str  # what the user picks from

    async def login(self, ui: LoginUI, *, manual: bool = False) -> Credential:
        """Run the login; ``manual`` skips the loopback callback (``--no-browser``)."""

    async def refresh(self, credential: Credential) -> Credential:
        """A fresh record for ``credential`` (same shape)."""


def http_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=HTTP_TIMEOUT_S)


def token_credential(data: dict[str, Any], what: str, margin_ms: int = 0) -> Credential:
    """The stored record of a token answer (``access_token``, ``refresh_token``, ``expires_in``
    seconds, one hour when absent), expiring ``margin_ms`` early; raises :class:`LoginError`
    naming ``what`` when the answer is an error or has no tokens."""
    access, refresh, expires_in = data.get("access_token"), data.get("refresh_token"), data.get("expires_in")
    if "error" in data or not isinstance(access, str) or not isinstance(refresh, str):
        raise LoginError(f"{what} failed: {error_text(data) if 'error' in data else 'the answer had no tokens'}")
    seconds = expires_in if isinstance(expires_in, (int, float)) else 3600
    return {
        "type": "oauth",
        "access": access,
        "refresh": refresh,
        "expires": int(time.time() * 1000 + seconds * 1000 - margin_ms),
    }


def code_grant(client_id: str, code: str, verifier: str, redirect_uri: str, **extra: str) -> dict[str, str]:
    """The token request of an authorization-code + PKCE login (``extra``: a provider's own
    fields, e.g. Anthropic's ``state``)."""
    return {
        "grant_type": "authorization_code",
        "client_id": client_id,
        "code": code,
        **extra,
        "redirect_uri": redirect_uri,
        "code_verifier": verifier,
    }


async def post(url: str, what: str, *, json_body: Any = None, form: dict[str, str] | None = None,
               headers: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """POST and parse a JSON object; failures raise :class:`LoginError` naming ``what`` and the status."""
    return await _request("POST", url, what, json_body=json_body, form=form, headers=headers)


async def get(url: str, what: str, *, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return await _request("GET", url, what, headers=headers)


async def _request(method: str, url: str, what: str, *, json_body: Any = None, form: dict[str, str] | None = None,
                   headers: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    try:
        async with http_client() as client:
            response = await client.request(
                method, url, json=json_body, data=form, headers={"Accept": "application/json", **(headers or {})}
            )
    except httpx.HTTPError as exc:
        raise LoginError(f"{what} failed: cannot reach {httpx.URL(url).host} ({exc.__class__.__name__})") from None
    try:
        data = json.loads(response.text) if response.text.strip() else {}
    except ValueError:
        data = None
    if response.status_code >= 400 and not (isinstance(data, dict) and "error" in data):
        raise LoginError(f"{what} failed: HTTP {response.status_code} from {httpx.URL(url).host}")
    if not isinstance(data, dict):
        raise LoginError(f"{what} failed: {httpx.URL(url).host} answered with something that is not a JSON object")
    return data


def error_text(data: dict[str, Any]) -> str:
    """An OAuth error response's ``error`` (and description), for messages."""
    error = data.get("error") or data.get("message")
    if isinstance(error, dict):
        error = error.get("message") or error.get("type")
    description = data.get("error_description")
    return f"{error}: {description}" if description else str(error)
