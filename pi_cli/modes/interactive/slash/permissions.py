"""Permissions in the TUI: the approval dialogs, ``/permissions``, ``/trust``, ``/sandbox`` and the
mode key. The app gives the session's gate (``session.permissions``) a :class:`TuiApprovalUI`, so
a call that asks opens :class:`~pi_cli.modes.interactive.screens.approval.ApprovalScreen`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pi_cli.modes.command_actions import permission_mode_text, sandbox_status, set_permission_mode, set_sandbox_mode
from pi_cli.permissions.policy import MODE_DETAILS

if TYPE_CHECKING:
    from pi_cli.permissions.gate import PermissionGate

ABORT_GRACE_S = 5.0


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
    """``/permissions``, ``/trust`` and ``/sandbox``; ``cycle`` is the mode key's action."""

    def __init__(self, app: Any) -> None:
        self.app = app

    @property
    def gate(self) -> PermissionGate | None:
        gate: PermissionGate | None = self.app.session.permissions
        return gate

    def cycle(self) -> None:
        gate = self.gate
        if gate is None:
            return
        self.app.notify(permission_mode_text(gate.cycle_mode()))
        self.app.refresh_footer()

    async def cmd_permissions(self, args: str) -> None:
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        gate = self.gate
        if gate is None or args:
            self._set(args)
            return
        items = [PickItem(mode, mode, detail, mode == gate.mode) for mode, detail in MODE_DETAILS.items()]

        def chosen(mode: str | None) -> None:
            if mode:
                self._set(mode)

        self.app.push_screen(PickerScreen("Tool approval mode", items), chosen)

    def _set(self, mode: str) -> None:
        try:
            self.app.notify(set_permission_mode(self.app.session, mode))
        except ValueError as exc:
            self.app.notify(str(exc), severity="error")
        self.app.refresh_footer()

    async def cmd_sandbox(self, args: str) -> None:
        """``/sandbox``: the sandbox of this session; ``/sandbox MODE`` (or the picker) changes it."""
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem
        from pi_cli.sandbox.policy import MODE_DETAILS as SANDBOX_MODES

        sandbox = self.app.session.sandbox
        if sandbox is None or args:
            self._set_sandbox(args)
            return
        current = sandbox.policy.mode
        items = [PickItem(mode, mode, detail, mode == current) for mode, detail in SANDBOX_MODES.items()]

        def chosen(mode: str | None) -> None:
            if mode:
                self._set_sandbox(mode)

        self.app.push_screen(PickerScreen(f"Sandbox · now: {sandbox_status(self.app.session)}", items), chosen)

    def _set_sandbox(self, mode: str) -> None:
        try:
            self.app.notify(set_sandbox_mode(self.app.session, mode))
        except Exception as exc:  # an unknown mode, or one this system cannot enforce
            self.app.notify(str(exc), severity="error")
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
