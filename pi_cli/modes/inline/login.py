"""``/login`` and ``/logout`` in inline mode.

The login's URL or device code is printed to scrollback; when the flow asks for pasted text, the
next line the user submits answers it (instead of going to the model) and Ctrl-C gives up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.console import RenderableType

from pi_cli.modes.inline import render
from pi_cli.oauth.browser import open_url

Show = Callable[[RenderableType], None]


class InlineLogin:
    """The login commands and the :class:`~pi_cli.oauth.flow.LoginUI` inline mode offers."""

    def __init__(self, show: Show, invalidate: Callable[[], None]) -> None:
        self._show = show
        self._invalidate = invalidate
        self._answer: asyncio.Future[str | None] | None = None
        self.task: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> bool:
        """True while a login waits for pasted text (the next submitted line answers it)."""
        return self._answer is not None and not self._answer.done()

    def answer(self, text: str | None) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(text)

    def cancel(self) -> None:
        """Ctrl-C while a login waits: give it up."""
        self.answer(None)
        if self.task is not None:
            self.task.cancel()

    def run(self, name: str, args: str) -> bool:
        """Handle ``/login [provider]`` or ``/logout <provider>``; False for any other command."""
        if name == "login":
            self.task = asyncio.ensure_future(self._login(args))
            return True
        if name == "logout":
            self._logout(args)
            return True
        return False

    async def _login(self, provider: str) -> None:
        from pi_cli.oauth.credentials import OAuthCredentials
        from pi_cli.oauth.flow import LoginError
        from pi_cli.oauth.registry import get_flow, list_flows

        flow = get_flow(provider)
        if flow is None:
            choices = "\n".join(f"  /login {f.provider}   {f.name}" for f in list_flows())
            self._show(render.notice(f"Log in with a subscription:\n{choices}", "default"))
            return
        try:
            credential = await flow.login(self)
            await asyncio.to_thread(OAuthCredentials().save, flow.provider, credential)
        except LoginError as exc:
            self._show(render.error_block(str(exc)))
            return
        except asyncio.CancelledError:
            self._show(render.notice("Login cancelled", "dim"))
            return
        self._show(render.notice(f"Logged in to {flow.name}. Pick one of its models with /model.", "green"))

    def _logout(self, provider: str) -> None:
        from pi_cli.oauth.credentials import OAuthCredentials

        if not provider:
            self._show(render.notice("Usage: /logout <provider>", "dim"))
        elif OAuthCredentials().remove(provider):
            self._show(render.notice(f"Logged out of {provider}.", "green"))
        else:
            self._show(render.notice(f"No stored credentials for {provider}.", "dim"))

    # -- LoginUI --------------------------------------------------------------------------------

    def show_url(self, url: str, instructions: str) -> None:
        opened = open_url(url)
        hint = "" if opened else "(open it in a browser: none could be started here)"
        self._show(render.notice(instructions, "default"))
        self._show(render.unbroken(url))  # one line however long: the terminal wraps it, copy keeps it whole
        if hint:
            self._show(render.notice(hint, "dim"))

    def show_device_code(self, verification_uri: str, user_code: str) -> None:
        open_url(verification_uri)
        self._show(render.notice(f"Open {verification_uri} and enter the code {user_code}", "default"))

    def progress(self, message: str) -> None:
        self._show(render.notice(message, "dim"))

    async def prompt(self, message: str, placeholder: str) -> str | None:
        self._show(render.notice(f"{message} (Enter sends it, Ctrl-C cancels)", "dim"))
        self._answer = asyncio.get_running_loop().create_future()
        self._invalidate()
        try:
            return await self._answer
        finally:
            self._answer = None
