"""``ctx.ui.set_footer`` in the TUI: an extension's component drawn in place of the built-in footer.

The built-in footer is hidden (not removed: ``set_footer(None)`` brings it back as it was) and the
component's lines are drawn where it was, at the footer's width, redrawn on ``tui.request_render()``
and whenever a status changes (pi's footers show ``get_extension_statuses()``). A factory or a
``render`` that raises is reported once and the built-in footer comes back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pi_cli.extensions.rendering.component import ComponentTui, FooterData, HostedComponent
from pi_cli.modes.display import git_branch
from pi_cli.modes.interactive.extension_ui.custom import ComponentLines


class FooterSlot:
    """Shows ``runner.ui.footer`` (a factory or None) in place of ``app.footer_bar``."""

    def __init__(self, app: Any, runner: Any, report: Callable[[str], None]) -> None:
        self.app = app
        self.runner = runner
        self.report = report
        self.view: ComponentLines | None = None
        self._failed: asyncio.Future[Any] | None = None  # where the component's errors land

    def refresh(self) -> None:
        """A status changed: a custom footer may show statuses, so it is redrawn."""
        if self.view is not None:
            self.view.refresh(layout=True)

    def show(self, factory: Callable[..., Any] | None) -> None:
        self._clear()
        if factory is None:
            return
        tui = ComponentTui()
        data = FooterData(lambda: git_branch(self.app.cwd), lambda: dict(self.runner.ui.statuses))
        try:
            component = factory(tui, self.runner.theme(), data)
        except Exception as exc:  # the extension's bug: keep the built-in footer
            self.report(f"Extension footer failed: {exc}")
            return
        failed: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        failed.add_done_callback(self._on_failure)
        self._failed = failed
        self.view = ComponentLines(HostedComponent(component, tui, failed), id="extension-footer")
        tui.connect(self.refresh, lambda: (self.app.size.width, self.app.size.height))
        self.app.footer_bar.display = False
        self.app.mount(self.view, after=self.app.footer_bar)

    def _on_failure(self, failed: asyncio.Future[Any]) -> None:
        if failed.cancelled() or failed is not self._failed:
            return
        self.report(f"Extension footer failed: {failed.exception()}")
        self._clear()

    def _clear(self) -> None:
        view, failed = self.view, self._failed
        self.view, self._failed = None, None
        if failed is not None and not failed.done():
            failed.cancel()
        if view is not None:
            view.hosted.dispose()
            view.remove()
        self.app.footer_bar.display = True
