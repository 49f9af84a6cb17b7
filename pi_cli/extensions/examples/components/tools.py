"""Turn tools on and off (pi's ``tools`` example): ``/tools`` lists every tool in a custom
component; Enter or Space toggles the selected one, Escape closes.

``pi -e example:tools``. Each change applies at once (``pi.set_active_tools``) and is saved as a
``tools-config`` session entry (pi's shape, ``{enabledTools: [...]}``), so the choice comes back
on resume and follows the branch (``session_start`` / ``session_tree`` read the branch's last
one). pi draws the list with pi-tui's ``SettingsList``; this port uses
:class:`~pi_cli.extensions.rendering.select_list.SelectList` with ``[x]``/``[ ]`` marks. Needs the
TUI or inline mode.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI
from pi_cli.extensions.rendering import ExtensionTheme, matches_key
from pi_cli.extensions.rendering.select_list import SelectList

ENTRY_TYPE = "tools-config"


class ToolToggles:
    """A title and the tool list; ``toggle(name)`` flips one and says whether it is on now."""

    def __init__(self, names: list[str], enabled: set[str], theme: ExtensionTheme, toggle: Any, done: Any) -> None:
        self.names, self.enabled, self.theme, self.toggle = names, enabled, theme, toggle
        visible = min(len(names) + 2, 15)
        self.list = SelectList(self._items(), visible, theme, on_select=self._flip, on_cancel=lambda: done(None))

    def _items(self) -> list[dict[str, Any]]:
        return [{"value": n, "label": f"[{'x' if n in self.enabled else ' '}] {n}"} for n in self.names]

    def _flip(self, item: dict[str, Any]) -> None:
        self.toggle(item["value"])
        index = self.list.selected_index
        self.list.items = self.list.filtered = self._items()
        self.list.set_selected_index(index)

    def handle_input(self, data: str) -> None:
        chosen = self.list.selected()
        if matches_key(data, "space") and chosen is not None:
            self._flip(chosen)
        else:
            self.list.handle_input(data)

    def render(self, width: int) -> list[str]:
        title = self.theme.fg("accent", self.theme.bold("Tool Configuration"))
        hint = self.theme.fg("dim", "Enter/Space toggles • Esc closes")
        return [title, "", *self.list.render(width), "", hint]

    def invalidate(self) -> None:
        return None


def register(pi: ExtensionAPI) -> None:
    enabled: set[str] = set()

    def restore(event: dict[str, Any], ctx: Any) -> None:
        """The branch's last saved choice, limited to tools that still exist; else what is active."""
        names = {tool["name"] for tool in pi.get_all_tools()}
        saved = None
        for entry in ctx.session_manager.get_branch():
            data = entry.get("data")
            if entry.get("type") == "custom" and entry.get("customType") == ENTRY_TYPE and isinstance(data, dict):
                saved = data.get("enabledTools", saved)
        enabled.clear()
        if isinstance(saved, list):
            enabled.update(name for name in saved if name in names)
            pi.set_active_tools(sorted(enabled))
        else:
            enabled.update(pi.get_active_tools())

    def toggle(name: str) -> None:
        enabled.symmetric_difference_update({name})
        pi.set_active_tools([tool["name"] for tool in pi.get_all_tools() if tool["name"] in enabled])
        pi.append_entry(ENTRY_TYPE, {"enabledTools": sorted(enabled)})

    async def tools(args: str, ctx: Any) -> None:
        if ctx.mode not in ("tui", "inline"):  # the terminal front ends
            ctx.ui.notify("/tools requires TUI mode", "error")
            return
        names = [tool["name"] for tool in pi.get_all_tools()]
        await ctx.ui.custom(lambda tui, theme, kb, done: ToolToggles(names, enabled, theme, toggle, done))

    pi.on("session_start", restore)
    pi.on("session_tree", restore)
    pi.register_command("tools", tools, "Enable/disable tools")
