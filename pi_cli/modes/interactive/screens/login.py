"""``/login``: a subscription login in a modal, and the LoginUI the flows talk to.

The screen shows the authorization URL (and opens a graphical browser when there is one) or the
device code, then waits: for the loopback callback, or for the user to paste the code or the
redirect URL into its input. Escape or Ctrl-C cancels the login. On success the record is saved
to ``auth.json`` and the screen dismisses with the provider id.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from pi_cli.modes.interactive.screens.sheet import BottomSheet
from pi_cli.oauth.browser import open_url
from pi_cli.oauth.credentials import OAuthCredentials
from pi_cli.oauth.flow import LoginError, OAuthFlow


class LoginScreen(BottomSheet[str | None]):
    """Runs ``flow.login`` with this screen as its :class:`~pi_cli.oauth.flow.LoginUI`."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,ctrl+c", "cancel", "Cancel", priority=True)]

    DEFAULT_CSS = """
    LoginScreen #login-title { text-style: bold; height: 1; }
    LoginScreen #login-body { height: auto; }
    LoginScreen #login-status { color: $text-muted; height: auto; }
    """

    def __init__(self, flow: OAuthFlow) -> None:
        super().__init__()
        self.flow = flow
        self.url: str | None = None
        self._answer: asyncio.Future[str | None] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Log in: {self.flow.name}", id="login-title")
            yield Static("Starting…", id="login-body")
            yield Input(id="login-paste")
            yield Static("Esc cancels", id="login-status")

    def on_mount(self) -> None:
        self.query_one("#login-paste", Input).display = False
        self.run_worker(self._login(), exclusive=True, group="login")

    async def _login(self) -> None:
        try:
            credential = await self.flow.login(self)
            await asyncio.to_thread(OAuthCredentials().save, self.flow.provider, credential)
        except LoginError as exc:
            self.progress(f"{exc} (Esc closes)")
            return
        self.dismiss(self.flow.provider)

    # -- LoginUI --------------------------------------------------------------------------------

    def show_url(self, url: str, instructions: str) -> None:
        self.url = url
        opened = open_url(url)
        # The screen wraps a long URL onto several rows, and a terminal selection copies them
        # with line breaks: put the whole URL on the clipboard too (OSC 52, as /copy does).
        self.app.copy_to_clipboard(url)
        body = Text(instructions + "\n\n")
        body.append(url, style=f"link {url}")
        body.append("\n\n(The URL is on the clipboard.)", style="dim")
        if not opened:
            body.append(" Open it in a browser: none could be started here.", style="dim")
        self.query_one("#login-body", Static).update(body)

    def show_device_code(self, verification_uri: str, user_code: str) -> None:
        self.url = verification_uri
        open_url(verification_uri)
        body = Text("Open ")
        body.append(verification_uri, style=f"link {verification_uri}")
        body.append(" and enter the code ")
        body.append(user_code, style="bold")
        self.query_one("#login-body", Static).update(body)
        self.progress("Waiting for you to authorize the device… (Esc cancels)")

    def progress(self, message: str) -> None:
        self.query_one("#login-status", Static).update(message)

    async def prompt(self, message: str, placeholder: str) -> str | None:
        field = self.query_one("#login-paste", Input)
        field.placeholder = placeholder
        field.display = True
        field.focus()
        self.progress(message)
        self._answer = asyncio.get_running_loop().create_future()
        try:
            return await self._answer
        finally:
            field.display = False
            self._answer = None

    @on(Input.Submitted, "#login-paste")
    def _pasted(self, event: Input.Submitted) -> None:
        if self._answer is not None and not self._answer.done() and event.value.strip():
            self._answer.set_result(event.value.strip())

    def action_cancel(self) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(None)
        self.workers.cancel_group(self, "login")
        self.dismiss(None)
