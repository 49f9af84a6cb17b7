"""OAuth records in ``auth.json``: saving, removing, and a valid access token on demand.

A record is pi's ``{"type": "oauth", "access", "refresh", "expires" (ms since the epoch), …}``
(Codex adds ``accountId``). Reading a key never refreshes unless the access token has expired;
then the refresh runs under an exclusive lock on ``auth.json.lock`` and re-reads the file first, so
when two pi processes find the same expired token only one of them spends the refresh token and the
other picks up the result. Writes go through :class:`~pi_cli.config.auth.AuthStore` (atomic, 0600).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pi_cli.config.auth import AuthStore
from pi_cli.oauth.flow import Credential, LoginError
from pi_cli.oauth.registry import get_flow

LOCK_TIMEOUT_S = 30.0
REFRESH_TIMEOUT_S = 40.0


def is_oauth(record: dict[str, Any] | None) -> bool:
    return bool(record and record.get("type") == "oauth" and isinstance(record.get("refresh"), str))


def is_expired(record: dict[str, Any], now_ms: float | None = None) -> bool:
    expires = record.get("expires")
    now = time.time() * 1000 if now_ms is None else now_ms
    return not isinstance(expires, (int, float)) or now >= expires or not isinstance(record.get("access"), str)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``<auth.json>.lock`` (polling, up to :data:`LOCK_TIMEOUT_S`)."""
    lock_path = path.with_name(path.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LoginError(f"Timed out waiting for the lock on {lock_path}") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the lock


class OAuthCredentials:
    """OAuth records of one ``auth.json`` (the agent dir's by default)."""

    def __init__(self, store: AuthStore | None = None) -> None:
        self.store = store if store is not None else AuthStore()

    def save(self, provider: str, credential: Credential) -> None:
        with locked(self.store.path):
            self.store.set_record(provider, credential)

    def remove(self, provider: str) -> bool:
        with locked(self.store.path):
            return self.store.remove(provider)

    def access_token(self, provider: str) -> str | None:
        """A valid access token for ``provider``'s OAuth record, refreshed if it has expired;
        None without a record. Raises :class:`LoginError` when a needed refresh fails."""
        record = self.store.get(provider)
        if not is_oauth(record):
            return None
        assert record is not None
        if not is_expired(record):
            return str(record["access"])
        return self._refresh(provider)

    def _refresh(self, provider: str) -> str:
        flow = get_flow(provider)
        if flow is None:
            raise LoginError(f"No login flow for {provider}; run /login again")
        with locked(self.store.path):
            self.store.reload()
            record = self.store.get(provider)
            if not is_oauth(record):
                raise LoginError(f"{provider}: the login was removed; run /login again")
            assert record is not None
            if not is_expired(record):
                return str(record["access"])  # another process refreshed it meanwhile
            fresh = _run_coroutine(flow.refresh(record))
            merged = {**record, **fresh}
            self.store.set_record(provider, merged)
            return str(merged["access"])


def _run_coroutine(coro: Any) -> Credential:
    """Run a refresh to completion from synchronous code, even inside a running event loop
    (on a worker thread with its own loop: a refresh is rare, and key lookups are synchronous)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        try:
            result: Credential = pool.submit(asyncio.run, coro).result(timeout=REFRESH_TIMEOUT_S)
        except concurrent.futures.TimeoutError:
            raise LoginError("Token refresh timed out") from None
    return result
