"""ChatGPT Plus/Pro login for the ``openai-codex`` provider: authorization code + PKCE.

OpenAI's Codex client id, its loopback port 1455, form-encoded token requests; the ChatGPT account
id is read from the access token's claims and stored as ``accountId`` (requests carry it).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any
from urllib.parse import urlencode

from pi_cli.oauth.callback import code_from_browser, start_callback_server
from pi_cli.oauth.endpoints import endpoint
from pi_cli.oauth.flow import Credential, LoginError, LoginUI, code_grant, post, token_credential
from pi_cli.oauth.pkce import pkce_pair, random_state

CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
AUTHORIZE_URL = "https://auth.openai.com/oauth/authorize"
TOKEN_URL = "https://auth.openai.com/oauth/token"
CALLBACK_PORT = 1455
CALLBACK_PATH = "/auth/callback"
SCOPE = "openid profile email offline_access"
CLAIM = "https://api.openai.com/auth"


def account_id(access_token: str) -> str | None:
    """``chatgpt_account_id`` from the JWT's claims (no signature check: we only read our own token)."""
    parts = access_token.split(".")
    if len(parts) != 3:
        return None
    try:
        payload: Any = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, binascii.Error):
        return None
    claims = payload.get(CLAIM) if isinstance(payload, dict) else None
    value = claims.get("chatgpt_account_id") if isinstance(claims, dict) else None
    return value if isinstance(value, str) and value else None


def _credential(data: dict[str, Any], what: str) -> Credential:
    record = token_credential(data, what)
    account = account_id(str(record["access"]))
    if account is None:
        raise LoginError(f"{what} failed: the access token names no ChatGPT account")
    record["accountId"] = account
    return record


class CodexFlow:
    provider = "openai-codex"
    name = "ChatGPT Plus/Pro (Codex)"

    async def login(self, ui: LoginUI, *, manual: bool = False) -> Credential:
        verifier, challenge = pkce_pair()
        state = random_state()
        callback = None if manual else await start_callback_server(CALLBACK_PORT, CALLBACK_PATH, state)
        redirect_uri = (
            callback.redirect_uri if callback is not None else f"http://localhost:{CALLBACK_PORT}{CALLBACK_PATH}"
        )
        query = {
            "response_type": "code",
            "client_id": CLIENT_ID,
            "redirect_uri": redirect_uri,
            "scope": SCOPE,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": state,
            "id_token_add_organizations": "true",
            "codex_cli_simplified_flow": "true",
            "originator": "pi",
        }
        code = await code_from_browser(
            ui,
            callback,
            f"{endpoint(AUTHORIZE_URL)}?{urlencode(query)}",
            "Sign in with your ChatGPT account in the browser. If the browser runs on another machine, "
            "paste the final redirect URL here.",
            state,
            redirect_uri,
        )
        form = code_grant(CLIENT_ID, code, verifier, redirect_uri)
        return _credential(await post(endpoint(TOKEN_URL), "Token exchange", form=form), "Token exchange")

    async def refresh(self, credential: Credential) -> Credential:
        form = {"grant_type": "refresh_token", "refresh_token": str(credential["refresh"]), "client_id": CLIENT_ID}
        return _credential(await post(endpoint(TOKEN_URL), "Token refresh", form=form), "Token refresh")
