"""Login endpoints of the fake LLM server: the OAuth flows pi_cli's /login drives.

Served on the same port as the model endpoints; point the flows at it with
``PI_OAUTH_BASE_URL=http://127.0.0.1:PORT`` (pi_cli re-bases every login URL on it).

* ``GET /oauth/authorize`` (Anthropic and Codex): remembers the PKCE challenge, then answers
  ``302`` to ``redirect_uri?code=…&state=…`` — a test plays the browser by following it.
* ``POST /v1/oauth/token`` (Anthropic, JSON body) and ``POST /oauth/token`` (Codex, form body):
  ``authorization_code`` (the verifier must match the challenge) and ``refresh_token`` grants.
  Codex access tokens are JWTs carrying ``chatgpt_account_id`` = ``acct_fake``.
* ``POST /login/device/code``, ``POST /login/oauth/access_token`` (GitHub device flow: the first
  ``pending_polls`` polls answer ``authorization_pending``), ``GET /copilot_internal/v2/token``.

``expires_in`` is configurable (``expires_in``; ``0`` makes every token expire at once) and every
grant is counted in ``grants`` so tests can see how many refreshes really happened.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import time
from collections import Counter
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

Response = tuple[int, str, dict[str, str]]  # status, body, headers
DEVICE_CODE = {
    "device_code": "dev-1",
    "user_code": "ABCD-1234",
    "verification_uri": "https://github.com/login/device",
    "interval": 0,
    "expires_in": 60,
}

OAUTH_PATHS = (
    "/oauth/authorize",
    "/v1/oauth/token",
    "/oauth/token",
    "/login/device/code",
    "/login/oauth/access_token",
    "/copilot_internal/v2/token",
)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def fake_jwt(claims: dict[str, Any]) -> str:
    header = _b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{header}.{_b64url(json.dumps(claims).encode())}.c2ln"


class FakeOAuth:
    """State of the fake login endpoints (see the module docstring)."""

    def __init__(self) -> None:
        self.expires_in = 3600
        self.pending_polls = 1
        self.fail_refresh = False
        self.grants: Counter[str] = Counter()
        self._challenges: dict[str, str] = {}
        self._refresh_tokens: set[str] = set()
        self._polls = 0
        self._serial = itertools.count(1)

    @staticmethod
    def handles(path: str) -> bool:
        return urlsplit(path).path in OAUTH_PATHS

    def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Response:
        parts = urlsplit(path)
        route = parts.path
        if route == "/oauth/authorize" and method == "GET":
            return self._authorize(parse_qs(parts.query))
        if route == "/copilot_internal/v2/token" and method == "GET":
            return self._copilot_token(headers)
        if method != "POST":
            return 405, json.dumps({"error": "method_not_allowed"}), {}
        text = body.decode("utf-8", "replace")
        if headers.get("content-type", "").startswith("application/json"):
            params = {k: str(v) for k, v in (json.loads(text or "{}") or {}).items()}
        else:
            params = {k: v[0] for k, v in parse_qs(text).items()}
        if route in ("/v1/oauth/token", "/oauth/token"):
            return self._token(params, codex=route == "/oauth/token")
        if route == "/login/device/code":
            return self._json(DEVICE_CODE)
        return self._device_poll(params)

    def _json(self, data: dict[str, Any], status: int = 200) -> Response:
        return status, json.dumps(data), {}

    def _authorize(self, query: dict[str, list[str]]) -> Response:
        redirect, state = query.get("redirect_uri", [""])[0], query.get("state", [""])[0]
        code = f"code-{next(self._serial)}"
        self._challenges[code] = query.get("code_challenge", [""])[0]
        return 302, "", {"location": f"{redirect}?{urlencode({'code': code, 'state': state})}"}

    def issue_tokens(self, codex: bool = False) -> dict[str, Any]:
        """A token answer as a login would get it (tests seed auth.json with it)."""
        return self._issue(codex)

    def _issue(self, codex: bool) -> dict[str, Any]:
        n = next(self._serial)
        access = (
            fake_jwt({"https://api.openai.com/auth": {"chatgpt_account_id": "acct_fake"}, "n": n})
            if codex
            else (f"sk-ant-oat01-fake-{n}")
        )
        refresh = f"refresh-{n}"
        self._refresh_tokens.add(refresh)
        return {"access_token": access, "refresh_token": refresh, "expires_in": self.expires_in, "token_type": "Bearer"}

    def _token(self, params: dict[str, str], codex: bool) -> Response:
        grant = params.get("grant_type")
        self.grants[grant or "?"] += 1
        if grant == "authorization_code":
            challenge = self._challenges.pop(params.get("code", ""), None)
            verifier = params.get("code_verifier", "")
            if challenge is None or _b64url(hashlib.sha256(verifier.encode()).digest()) != challenge:
                return self._json({"error": "invalid_grant", "error_description": "bad code or verifier"}, 400)
            return self._json(self._issue(codex))
        if grant == "refresh_token":
            token = params.get("refresh_token", "")
            if self.fail_refresh or token not in self._refresh_tokens:
                return self._json({"error": "invalid_grant", "error_description": "refresh token not valid"}, 400)
            self._refresh_tokens.discard(token)  # single use, as real providers rotate them
            return self._json(self._issue(codex))
        return self._json({"error": "unsupported_grant_type"}, 400)

    def _device_poll(self, params: dict[str, str]) -> Response:
        if params.get("device_code") != "dev-1":
            return self._json({"error": "expired_token"})
        self._polls += 1
        if self._polls <= self.pending_polls:
            return self._json({"error": "authorization_pending"})
        self.grants["device_code"] += 1
        return self._json({"access_token": "gho_fake_github_token", "token_type": "bearer"})

    def _copilot_token(self, headers: dict[str, str]) -> Response:
        if headers.get("authorization") != "Bearer gho_fake_github_token":
            return self._json({"message": "Bad credentials"}, 401)
        self.grants["copilot_token"] += 1
        expires_at = int(time.time()) + self.expires_in
        return self._json({"token": f"tid=fake;exp={expires_at};sku=free", "expires_at": expires_at})
