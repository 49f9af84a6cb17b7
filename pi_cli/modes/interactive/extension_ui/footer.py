"""``ctx.ui.set_footer`` in the TUI: an extension's component drawn in place of the built-in footer.

The built-in footer is hidden (not removed: ``set_footer(None)`` brings it back as it was) and the
component's lines are drawn where it was, at the footer's width, redrawn on ``tui.request_render()``
and whenever a status changes (pi's footers show ``get_extension_statuses()``). A factory or a
``render`` that raises is reported once and the built-in footer comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_cli.extensions.rendering.component import ComponentTui, FooterData
from pi_cli.modes.display import git_branch
from pi_cli.modes.interactive.extension_ui.custom import ComponentLines, ComponentSlot


class FooterSlot(ComponentSlot):
    """Shows ``runner.ui.footer`` (a factory or None) in place of ``app.footer_bar``."""

    what = "footer"

    def refresh(self) -> None:
        """A status changed: a custom footer may show statuses, so it is redrawn."""
        if self.view is not None:
            self.view.refresh(layout=True)

    def show(self, factory: Callable[..., Any] | None) -> None:
        self.clear()
        if factory is None:
            return
        tui = ComponentTui()
        data = FooterData(lambda: git_branch(self.app.cwd), lambda: dict(self.runner.ui.statuses))
        try:
            component = factory(tui, self.runner.theme(), data)
        except Exception as exc:  # the extension's bug: keep the built-in footer
            self.report(f"Extension footer failed: {exc}")
            return
        view = self.host(component, tui, ComponentLines, "extension-footer")
        tui.connect(self.refresh, lambda: (self.app.size.width, self.app.size.height))
        self.app.footer_bar.display = False
        self.app.mount(view, after=self.app.footer_bar)

    def restore(self) -> None:
        self.app.footer_bar.display = True
