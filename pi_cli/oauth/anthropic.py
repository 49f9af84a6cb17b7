"""Claude Pro/Max login: authorization code + PKCE against Anthropic's console.

The state sent is the PKCE verifier and the code page may hand back ``code#state`` (pi's flow, as
Anthropic's console expects). Access tokens are stored five minutes short of their real expiry so
a refresh happens before a request can fail.
"""

from __future__ import annotations

import base64
from urllib.parse import urlencode

from pi_cli.oauth.callback import code_from_browser, start_callback_server
from pi_cli.oauth.endpoints import endpoint
from pi_cli.oauth.flow import Credential, LoginUI, code_grant, post, token_credential
from pi_cli.oauth.pkce import pkce_pair

CLIENT_ID = base64.b64decode("OWQxYzI1MGEtZTYxYi00NGQ5LTg4ZWQtNTk0NGQxOTYyZjVl").decode()
AUTHORIZE_URL = "https://claude.ai/oauth/authorize"
TOKEN_URL = "https://platform.claude.com/v1/oauth/token"
MANUAL_REDIRECT_URI = "https://platform.claude.com/oauth/code/callback"
CALLBACK_PORT = 53692
CALLBACK_PATH = "/callback"
SCOPES = "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"
EXPIRY_MARGIN_MS = 5 * 60 * 1000


def _credential(data: dict[str, object], what: str) -> Credential:
    return token_credential(data, what, EXPIRY_MARGIN_MS)


class AnthropicFlow:
    provider = "anthropic"
    name = "Anthropic (Claude Pro/Max)"

    async def login(self, ui: LoginUI, *, manual: bool = False) -> Credential:
        verifier, challenge = pkce_pair()
        callback = None if manual else await start_callback_server(CALLBACK_PORT, CALLBACK_PATH, verifier)
        redirect_uri = callback.redirect_uri if callback is not None else MANUAL_REDIRECT_URI
        query = {
            "code": "true",
            "client_id": CLIENT_ID,
            "response_type": "code",
            "redirect_uri": redirect_uri,
            "scope": SCOPES,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": verifier,
        }
        code = await code_from_browser(
            ui,
            callback,
            f"{endpoint(AUTHORIZE_URL)}?{urlencode(query)}",
            "Sign in with your Claude account in the browser. If the browser runs on another machine, "
            "paste the code it shows (or the final redirect URL) here.",
            verifier,
            "code#state",
        )
        body = code_grant(CLIENT_ID, code, verifier, redirect_uri, state=verifier)
        return _credential(await post(endpoint(TOKEN_URL), "Token exchange", json_body=body), "Token exchange")

    async def refresh(self, credential: Credential) -> Credential:
        body = {"grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": str(credential["refresh"])}
        return _credential(await post(endpoint(TOKEN_URL), "Token refresh", json_body=body), "Token refresh")
