"""Where the login flows send their requests.

Every URL is the provider's real one unless ``PI_OAUTH_BASE_URL`` is set: then scheme and host of
each endpoint are replaced by it (paths kept), which points all flows at one local server — the
tests' fake server, or a corporate proxy.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit


def endpoint(url: str) -> str:
    """``url``, re-based on ``PI_OAUTH_BASE_URL`` when that is set."""
    base = os.environ.get("PI_OAUTH_BASE_URL", "").strip()
    if not base:
        return url
    target = urlsplit(base)
    parts = urlsplit(url)
    return urlunsplit((target.scheme, target.netloc, target.path.rstrip("/") + parts.path, parts.query, ""))


def callback_host() -> str:
    """The interface the loopback callback server listens on (``PI_OAUTH_CALLBACK_HOST``)."""
    return os.environ.get("PI_OAUTH_CALLBACK_HOST", "").strip() or "127.0.0.1"
