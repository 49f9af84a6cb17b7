"""A LoginUI that plays the user's browser against the fake server's authorize endpoint."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx


class BrowserUI:
    """``show_url`` "signs in": it asks the authorize URL for its redirect and, unless ``paste`` is set,
    follows it to pi's loopback callback; with ``paste`` it keeps the redirect URL for :meth:`prompt`."""

    def __init__(self, paste: bool = False, tamper_state: bool = False) -> None:
        self.paste = paste
        self.tamper_state = tamper_state
        self.redirect: str | None = None
        self.device: tuple[str, str] | None = None
        self.messages: list[str] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    def show_url(self, url: str, instructions: str) -> None:
        self.messages.append(instructions)
        task = asyncio.ensure_future(self._browse(url))
        self._tasks.add(task)

    async def _browse(self, url: str) -> None:
        async with httpx.AsyncClient() as client:
            answer = await client.get(url)
            assert answer.status_code == 302, answer.text
            self.redirect = answer.headers["location"]
            if self.tamper_state:
                self.redirect = self.redirect.replace("state=", "state=evil")
            if not self.paste:
                await client.get(self.redirect)

    def show_device_code(self, verification_uri: str, user_code: str) -> None:
        self.device = (verification_uri, user_code)

    def progress(self, message: str) -> None:
        self.messages.append(message)

    async def prompt(self, message: str, placeholder: str) -> str | None:
        if not self.paste:
            await asyncio.Event().wait()
        while self.redirect is None:
            await asyncio.sleep(0.01)
        return self.redirect
