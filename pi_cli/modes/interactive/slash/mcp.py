"""``/mcp`` in the TUI: servers with state, tools and exposure; reconnect, enable/disable, exposure.

``/mcp`` opens a picker of servers (those needing attention first); choosing one opens its
actions. ``/mcp reconnect|enable|disable <server>`` and ``/mcp exposure <server> <mode>`` act
directly. The session exposes its MCP runtime as ``session.mcp`` (None when no server is configured).
"""

from __future__ import annotations

from typing import Any


class McpCommands:
    """Handlers attached to the app's ``CommandRunner`` by :func:`register_mcp_commands`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def _manager(self) -> Any:
        runtime = self.app.session.mcp
        return runtime.manager if runtime is not None else None

    async def cmd_mcp(self, args: str) -> None:
        from pi_cli.mcp import status
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        manager = self._manager()
        if manager is None:
            await self.app.show_notice("No MCP servers configured (~/.pi/agent/mcp.json, see `pi mcp add`).", "warning")
            return
        if args:
            try:
                text = await status.run_action(manager, args)
            except ValueError as exc:
                await self.app.show_notice(f"/mcp: {exc}", "error")
                return
            await self.app.show_notice(text, "info")
            return
        items = [PickItem(s.config.name, s.config.name, status.summary(s)) for s in status.ordered(manager)]
        if not items:
            await self.app.show_notice(status.status_text(manager), "warning")
            return
        self.app.push_screen(PickerScreen("MCP servers", items), self._server_chosen)

    def _server_chosen(self, name: str | None) -> None:
        from pi_cli.mcp import status
        from pi_cli.modes.interactive.screens.picker import PickerScreen, PickItem

        manager = self._manager()
        if name is None or manager is None or name not in manager.servers:
            return
        state = manager.servers[name]
        enabled = state.config.enabled
        items = [PickItem("tools", "Show tools and status", status.summary(state))]
        if enabled:
            items.append(PickItem("reconnect", "Reconnect"))
        items.append(PickItem("disable" if enabled else "enable", "Disable" if enabled else "Enable"))
        items.extend(
            PickItem(f"exposure {mode}", f"Exposure: {mode}", current=state.config.exposure == mode)
            for mode in status.EXPOSURES
        )

        def chosen(action: str | None) -> None:
            if action is not None:
                self.app.run_worker(self._act(name, action), exclusive=False)

        self.app.push_screen(PickerScreen(f"MCP server {name}", items, highlight="tools"), chosen)

    async def _act(self, name: str, action: str) -> None:
        from pi_cli.mcp import status

        manager = self._manager()
        if action == "tools":
            lines = (await status.status_text_of(manager)).split("\n")
            mine = [line for i, line in enumerate(lines) if line.startswith(f"{name}:") or _belongs(lines, i, name)]
            await self.app.show_notice("\n".join(mine), "info")
            return
        verb, _, mode = action.partition(" ")
        try:
            text = await status.run_action(manager, f"{verb} {name} {mode}".strip())
        except ValueError as exc:
            await self.app.show_notice(f"/mcp: {exc}", "error")
            return
        await self.app.show_notice(text, "info")


def _belongs(lines: list[str], index: int, name: str) -> bool:
    """Whether indented line ``index`` follows the header line of server ``name``."""
    if not lines[index].startswith("  "):
        return False
    for j in range(index - 1, -1, -1):
        if not lines[j].startswith("  "):
            return lines[j].startswith(f"{name}:")
    return False
