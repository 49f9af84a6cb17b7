"""A footer of the extension's own (pi's ``custom-footer`` example): ``/footer`` toggles it.

``pi -e example:custom_footer``. The footer shows the branch's tokens in and out and its cost on
the left, the model and the git branch (``footer_data.get_git_branch()``) on the right, in one
line; it is redrawn when the branch changes. ``/footer`` again restores the built-in footer.
TUI only (other modes have no footer: the call does nothing there).
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI
from pi_cli.extensions.rendering import truncate_to_width, visible_width


def _count(n: float) -> str:
    return f"{int(n)}" if n < 1000 else f"{n / 1000:.1f}k"


class UsageFooter:
    """One line: ``↑in ↓out $cost`` … ``model (branch)``."""

    def __init__(self, ctx: Any, tui: Any, theme: Any, footer_data: Any) -> None:
        self.ctx, self.theme, self.data = ctx, theme, footer_data
        self._unsubscribe = footer_data.on_branch_change(tui.request_render)

    def dispose(self) -> None:
        self._unsubscribe()

    def render(self, width: int) -> list[str]:
        tokens_in = tokens_out = 0
        cost = 0.0
        for entry in self.ctx.session_manager.get_branch():
            message = entry.get("message") or {}
            if entry.get("type") == "message" and message.get("role") == "assistant":
                usage = message.get("usage") or {}
                tokens_in += usage.get("input", 0)
                tokens_out += usage.get("output", 0)
                cost += (usage.get("cost") or {}).get("total", 0.0)
        branch = self.data.get_git_branch()
        model = (self.ctx.model or {}).get("id") or "no-model"  # models are dicts (pi's JSON shape)
        left = self.theme.fg("dim", f"↑{_count(tokens_in)} ↓{_count(tokens_out)} ${cost:.3f}")
        right = self.theme.fg("dim", model + (f" ({branch})" if branch else ""))
        pad = " " * max(1, width - visible_width(left) - visible_width(right))
        return [truncate_to_width(left + pad + right, width)]

    def invalidate(self) -> None:
        return None


def register(pi: ExtensionAPI) -> None:
    state = {"enabled": False}

    def toggle(args: str, ctx: Any) -> None:
        state["enabled"] = not state["enabled"]
        if state["enabled"]:
            ctx.ui.set_footer(lambda tui, theme, footer_data: UsageFooter(ctx, tui, theme, footer_data))
            ctx.ui.notify("Custom footer enabled", "info")
        else:
            ctx.ui.set_footer(None)
            ctx.ui.notify("Default footer restored", "info")

    pi.register_command("footer", toggle, "Toggle custom footer")
