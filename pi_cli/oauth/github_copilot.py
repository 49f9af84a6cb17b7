"""GitHub Copilot login: GitHub's device-code flow, then a Copilot API token.

The GitHub token is the long-lived ``refresh``; ``access`` is the short-lived Copilot token that
``/copilot_internal/v2/token`` trades it for (about 30 minutes), refreshed the same way. Requests
go to the API host the token names (``proxy-ep``), see :mod:`pi_cli.ai.requests.copilot`.
"""

from __future__ import annotations

import asyncio
import base64
import time
from typing import Any

from pi_cli.oauth.endpoints import endpoint
from pi_cli.oauth.flow import Credential, LoginError, LoginUI, error_text, get, post

CLIENT_ID = base64.b64decode("SXYxLmI1MDdhMDhjODdlY2ZlOTg=").decode()
DEVICE_CODE_URL = "https://github.com/login/device/code"
ACCESS_TOKEN_URL = "https://github.com/login/oauth/access_token"
COPILOT_TOKEN_URL = "https://api.github.com/copilot_internal/v2/token"
GITHUB_HEADERS = {"User-Agent": "GitHubCopilotChat/0.35.0"}
COPILOT_HEADERS = {
    "User-Agent": "GitHubCopilotChat/0.35.0",
    "Editor-Version": "vscode/1.107.0",
    "Editor-Plugin-Version": "copilot-chat/0.35.0",
    "Copilot-Integration-Id": "vscode-chat",
}
EXPIRY_MARGIN_MS = 5 * 60 * 1000
MIN_POLL_S = 0.05


class CopilotFlow:
    provider = "github-copilot"
    name = "GitHub Copilot"

    async def login(self, ui: LoginUI, *, manual: bool = False) -> Credential:
        form = {"client_id": CLIENT_ID, "scope": "read:user"}
        device = await post(endpoint(DEVICE_CODE_URL), "Device code request", form=form, headers=GITHUB_HEADERS)
        code, user_code, uri = device.get("device_code"), device.get("user_code"), device.get("verification_uri")
        if not (isinstance(code, str) and isinstance(user_code, str) and isinstance(uri, str)):
            raise LoginError("Device code request failed: the answer lacked device_code, user_code or verification_uri")
        if not uri.startswith(("https://", "http://127.0.0.1", "http://localhost")):
            raise LoginError("Device code request failed: untrusted verification_uri")
        ui.show_device_code(uri, user_code)
        github_token = await self._poll(code, device)
        ui.progress("Getting a Copilot token…")
        return await self.refresh({"refresh": github_token})

    async def _poll(self, device_code: str, device: dict[str, Any]) -> str:
        interval = float(device.get("interval") or 5)
        deadline = time.monotonic() + float(device.get("expires_in") or 900)
        form = {
            "client_id": CLIENT_ID,
            "device_code": device_code,
            "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
        }
        while time.monotonic() < deadline:
            await asyncio.sleep(max(interval, MIN_POLL_S))
            data = await post(endpoint(ACCESS_TOKEN_URL), "Device login", form=form, headers=GITHUB_HEADERS)
            token = data.get("access_token")
            if isinstance(token, str) and token:
                return token
            error = data.get("error")
            if error == "authorization_pending":
                continue
            if error == "slow_down":
                interval = float(data.get("interval") or interval + 5)
                continue
            raise LoginError(f"Device login failed: {error_text(data) if error else 'unexpected answer'}")
        raise LoginError("Device login failed: the code expired before it was entered")

    async def refresh(self, credential: Credential) -> Credential:
        github_token = str(credential["refresh"])
        headers = {**COPILOT_HEADERS, "Authorization": f"Bearer {github_token}"}
        data = await get(endpoint(COPILOT_TOKEN_URL), "Copilot token request", headers=headers)
        token, expires_at = data.get("token"), data.get("expires_at")
        if not isinstance(token, str) or not isinstance(expires_at, (int, float)):
            detail = error_text(data) if "error" in data or "message" in data else "the answer had no token"
            raise LoginError(f"Copilot token request failed: {detail}")
        return {
            "type": "oauth",
            "refresh": github_token,
            "access": token,
            "expires": int(expires_at * 1000) - EXPIRY_MARGIN_MS,
        }
