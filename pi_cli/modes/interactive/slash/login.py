"""``/login`` and ``/logout`` in the TUI: pick a subscription, then run or forget its login."""

from __future__ import annotations

from typing import Any


class LoginCommands:
    """Handlers attached to the app's ``CommandRunner`` by :func:`register_login_commands`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def cmd_login(self, args: str) -> None:
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem
        from pi_cli.oauth.registry import get_flow, list_flows

        flow = get_flow(args) if args else None
        if flow is not None:
            self._start(flow)
            return
        flows = {f.provider: f for f in list_flows()}
        items = [PickItem(key, f.name, key) for key, f in flows.items()]

        def chosen(key: str | None) -> None:
            if key in flows:
                self._start(flows[key])

        self.app.push_screen(PickerScreen("Log in with", items, args), chosen)

    def _start(self, flow: Any) -> None:
        from pi_cli.modes.interactive.screens.login import LoginScreen

        def done(provider: str | None) -> None:
            if provider:
                self._reload_models()
                self.app.notify(f"Logged in to {flow.name}. Pick one of its models with /model.")

        self.app.push_screen(LoginScreen(flow), done)

    async def cmd_logout(self, args: str) -> None:
        from pi_cli.config.auth import AuthStore
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem
        from pi_cli.oauth.credentials import OAuthCredentials

        store = AuthStore()
        stored = [p for p in store.providers() if (store.get(p) or {}).get("type") == "oauth"]
        if not stored:
            await self.app.show_notice("No subscription logins are stored.", "warning")
            return

        def chosen(provider: str | None) -> None:
            if provider and OAuthCredentials(store).remove(provider):
                self._reload_models()
                self.app.notify(f"Logged out of {provider}.")

        if args in stored:
            chosen(args)
            return
        self.app.push_screen(PickerScreen("Log out of", [PickItem(p, p) for p in stored]), chosen)

    def _reload_models(self) -> None:
        registry = self.app.session.model_registry
        refresh = registry.refresh if registry is not None else None
        if callable(refresh):
            refresh()
