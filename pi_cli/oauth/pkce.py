"""PKCE (RFC 7636) verifier/challenge pairs and random ``state`` values."""

from __future__ import annotations

import base64
import hashlib
import secrets


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def pkce_pair() -> tuple[str, str]:
    """``(verifier, S256 challenge)``."""
    verifier = _b64url(secrets.token_bytes(32))
    return verifier, challenge_for(verifier)


def challenge_for(verifier: str) -> str:
    return _b64url(hashlib.sha256(verifier.encode("ascii")).digest())


def random_state() -> str:
    return secrets.token_hex(16)
