"""A confirm gate for dangerous shell commands (``rm -rf``, ``sudo``, ``chmod 777``, ``mkfs``, ``dd``).

``pi -e example:dangerous_bash``. Every ``bash`` call whose command matches asks
``ctx.ui.confirm``; without a UI (print/json) the call is blocked, since nobody can say yes.
"""

from __future__ import annotations

import re
from typing import Any

from pi_cli.extensions import ExtensionAPI

DANGEROUS = re.compile(r"\brm\s+(-[a-zA-Z]*[rf][a-zA-Z]*\s+)+|\bsudo\b|\bchmod\s+(-R\s+)?777\b|\bmkfs\b|\bdd\s+if=")


def register(pi: ExtensionAPI) -> None:
    async def on_tool_call(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        if event["toolName"] != "bash":
            return None
        command = str(event["input"].get("command", ""))
        if not DANGEROUS.search(command):
            return None
        if not ctx.has_ui:
            return {"block": True, "reason": f"Dangerous command blocked (no UI to confirm): {command}"}
        if await ctx.ui.confirm("Dangerous command", f"Allow this command?\n\n  {command}"):
            return None
        return {"block": True, "reason": "Blocked by user"}

    pi.on("tool_call", on_tool_call)
