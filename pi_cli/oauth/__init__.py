"""Subscription logins (OAuth): Claude Pro/Max, ChatGPT via Codex, GitHub Copilot.

Owns the login flows (authorization code + PKCE with a loopback callback, or device code), the
OAuth records in ``auth.json`` (pi's shape: ``{"type": "oauth", "access", "refresh", "expires", …}``)
and their refresh under a file lock, so two pi processes never race on a refresh token.
"""

from __future__ import annotations

from pi_cli.oauth.flow import LoginUI, OAuthFlow
from pi_cli.oauth.registry import get_flow, list_flows

__all__ = ["LoginUI", "OAuthFlow", "get_flow", "list_flows"]
