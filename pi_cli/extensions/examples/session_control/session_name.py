"""Friendly session names (pi's ``session-name`` example).

``pi -e example:session_name``. ``/session-name Refactor auth`` names the session (the session
pickers show the name instead of the first prompt); ``/session-name`` alone shows the current one.
Works wherever commands run: TUI, inline, print (``pi -p "/session-name x"``) and RPC.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI


def register(pi: ExtensionAPI) -> None:
    def session_name(args: str, ctx: Any) -> None:
        name = args.strip()
        if name:
            pi.set_session_name(name)
            ctx.ui.notify(f"Session named: {name}", "info")
            return
        current = pi.get_session_name()
        ctx.ui.notify(f"Session: {current}" if current else "No session name set", "info")

    pi.register_command("session-name", session_name, "Set or show the session name (/session-name [name])")
