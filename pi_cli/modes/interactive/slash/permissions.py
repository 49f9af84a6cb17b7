"""Permissions in the TUI: the approval dialogs, ``/permissions``, ``/trust`` and the mode key.

:func:`register_permission_commands` attaches ``cmd_permissions`` / ``cmd_trust`` to the app's
``CommandRunner`` and gives the session's gate (``session.permissions``) a :class:`TuiApprovalUI`,
so a call that asks opens :class:`~pi_cli.modes.interactive.screens.approval.ApprovalScreen`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pi_cli.modes.interactive.completions import add_completions
from pi_cli.permissions.policy import MODE_DETAILS

if TYPE_CHECKING:  # the dialogs themselves are imported when first shown, not with the app
    from pi_cli.modes.interactive.screens.picker import PickItem

PERMISSION_COMMANDS: list[tuple[str, str]] = [
    ("permissions", "Tool approval mode: auto, ask or read-only"),
    ("trust", "Save a project trust decision for future pi processes"),
]
ABORT_GRACE_S = 5.0
TRUST_DEFAULT_LABELS = {"ask": "Ask", "always": "Always trust", "never": "Never trust"}  # pi's labels


class TuiApprovalUI:
    """The gate's dialogs as modal screens; each call waits for its screen to close."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def _show(self, screen: Any) -> Any:
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def closed(value: Any) -> None:
            if not done.done():
                done.set_result(value)

        self.app.push_screen(screen, closed)
        try:
            return await done
        except asyncio.CancelledError:  # the run was aborted: take the dialog away
            if screen.is_attached:
                screen.dismiss(None)
            raise

    async def select(self, title: str, options: list[str]) -> str | None:
        from pi_cli.modes.interactive.screens.approval import ApprovalScreen

        aborting: list[bool] = []

        def abort() -> None:
            aborting.append(True)
            self.app.run_worker(self.app.action_clear_or_abort(), group="approval-abort")

        def steer(text: str) -> None:
            self.app.session.steer(text)
            self.app.refresh_queue()
            self.app.notify(f"Steering queued: {text}")

        result: str | None = await self._show(ApprovalScreen(title, options, abort, steer))
        if aborting:
            # Not an answer: the abort on its way cancels this wait (the gate watches the signal);
            # returning now would record a "declined" result first.
            await asyncio.sleep(ABORT_GRACE_S)
        return result

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        from pi_cli.modes.interactive.screens.approval import MessageScreen

        result: str | None = await self._show(MessageScreen(title, placeholder))
        return result


class PermissionCommands:
    """``/permissions`` and ``/trust``; ``cycle`` is the mode key's action."""

    def __init__(self, app: Any) -> None:
        self.app = app

    @property
    def gate(self) -> Any:
        return getattr(self.app.session, "permissions", None)

    def cycle(self) -> None:
        gate = self.gate
        if gate is None:
            return
        mode = gate.cycle_mode()
        self.app.notify(f"Permissions: {mode} — {MODE_DETAILS[mode]}")
        self.app.refresh_footer()

    async def cmd_permissions(self, args: str) -> None:
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        gate = self.gate
        if gate is None:
            await self.app.show_notice("Permissions are not available in this session.", "warning")
            return
        if args:
            if args not in MODE_DETAILS:
                await self.app.show_notice(f"Unknown permissions mode: {args} (use auto, ask or read-only)", "error")
                return
            self._set(args)
            return
        items = [PickItem(mode, mode, detail, mode == gate.mode) for mode, detail in MODE_DETAILS.items()]

        def chosen(mode: str | None) -> None:
            if mode:
                self._set(mode)

        self.app.push_screen(PickerScreen("Tool approval mode", items), chosen)

    def settings_items(self) -> list[PickItem]:
        """Rows for /settings: the session's approval mode and the user's ``defaultProjectTrust``."""
        from pi_cli.modes.interactive.screens.picker import PickItem
        from pi_cli.permissions.trust import default_project_trust

        rows = [PickItem("trust-default", "Default project trust", TRUST_DEFAULT_LABELS[default_project_trust()])]
        if self.gate is not None:
            rows.insert(0, PickItem("permissions", "Tool approval mode", str(self.gate.mode)))
        return rows

    def apply_setting(self, key: str) -> bool:
        """Toggle the /settings row ``key`` if it is one of ours; False otherwise."""
        if key == "permissions" and self.gate is not None:
            self.cycle()
            return True
        if key != "trust-default":
            return False
        from pi_cli.config.settings import SettingsError, save_global_setting
        from pi_cli.permissions.trust import default_project_trust

        order = list(TRUST_DEFAULT_LABELS)
        value = order[(order.index(default_project_trust()) + 1) % len(order)]
        try:
            save_global_setting("defaultProjectTrust", value)
        except SettingsError as exc:
            self.app.notify(str(exc), severity="error")
            return True
        self.app.notify(f"Default project trust: {TRUST_DEFAULT_LABELS[value]} (applies from the next start)")
        return True

    def _set(self, mode: str) -> None:
        self.gate.mode = mode
        self.app.notify(f"Permissions: {mode} — {MODE_DETAILS[mode]}")
        self.app.refresh_footer()

    async def cmd_trust(self, args: str) -> None:
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem
        from pi_cli.permissions.trust import is_project_trusted, trust_options
        from pi_cli.permissions.trust_store import TrustStore, TrustStoreError

        cwd = str(self.app.session.cwd)
        store = TrustStore(_agent_dir())
        try:
            saved = store.entry(cwd)
        except TrustStoreError as exc:
            await self.app.show_notice(str(exc), "error")
            return
        options = trust_options(cwd)
        saved_text = "none" if saved is None else f"{'trusted' if saved.decision else 'untrusted'} ({saved.path})"
        current = "trusted" if is_project_trusted(cwd) else "untrusted"
        title = f"Project trust · {cwd}\nSaved decision: {saved_text} · Current session: {current}"
        saved_update = [] if saved is None else [(saved.path, saved.decision)]
        items = [
            PickItem(str(n), option.label, "", bool(saved_update) and option.updates[:1] == saved_update)
            for n, option in enumerate(options)
        ]

        def chosen(key: str | None) -> None:
            if key is None:
                return
            option = options[int(key)]
            try:
                store.set_many(option.updates)
            except TrustStoreError as exc:
                self.app.notify(str(exc), severity="error")
                return
            verdict = "trusted" if option.trusted else "untrusted"
            self.app.notify(f"Saved trust decision: {verdict}. Restart pi for this to take effect.")

        self.app.push_screen(PickerScreen(title, items), chosen)


def _agent_dir() -> Any:
    from pi_cli.config.paths import agent_dir

    return agent_dir()


def register_permission_commands(runner: Any) -> PermissionCommands:
    """Attach the commands to ``runner``, list them for completion, and give the gate its dialogs."""
    commands = PermissionCommands(runner.app)
    runner.cmd_permissions = commands.cmd_permissions
    runner.cmd_trust = commands.cmd_trust
    add_completions(runner, PERMISSION_COMMANDS)
    gate = commands.gate
    if gate is not None:
        gate.ui = TuiApprovalUI(runner.app)
    return commands
