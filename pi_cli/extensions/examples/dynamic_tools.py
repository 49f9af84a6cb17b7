"""Tools registered while the session runs (pi's ``dynamic-tools`` example).

``pi -e example:dynamic_tools``. At session start it registers ``echo_session``;
``/add-echo-tool NAME`` registers another echo tool (lowercase letters, digits, ``_``). Each has a
``prompt_snippet`` and ``prompt_guidelines``, so it joins the system prompt's "Available tools"
and "Guidelines" at once, and the model can call it from the next request on.
"""

from __future__ import annotations

import re
from typing import Any

from pi_cli.extensions import ExtensionAPI

NAME = re.compile(r"^[a-z0-9_]+$")
PARAMETERS = {
    "type": "object",
    "properties": {"message": {"type": "string", "description": "Message to echo"}},
    "required": ["message"],
}


def register(pi: ExtensionAPI) -> None:
    registered: set[str] = set()

    def add_echo_tool(name: str, label: str, prefix: str) -> bool:
        if name in registered:
            return False
        registered.add(name)

        def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> dict[str, Any]:
            return {"content": f"{prefix}{params['message']}", "details": {"tool": name, "prefix": prefix}}

        pi.register_tool({
            "name": name, "label": label, "description": f"Echo a message with prefix: {prefix}",
            "prompt_snippet": f"Echo back user-provided text with {prefix.strip()} prefix",
            "prompt_guidelines": ["Use this tool when the user asks for exact echo output."],
            "parameters": PARAMETERS, "execute": execute,
        })  # fmt: skip
        return True

    def on_start(event: dict[str, Any], ctx: Any) -> None:
        add_echo_tool("echo_session", "Echo Session", "[session] ")
        ctx.ui.notify("Registered dynamic tool: echo_session", "info")

    def add(args: str, ctx: Any) -> None:
        name = args.strip().lower()
        if not NAME.match(name):
            ctx.ui.notify("Usage: /add-echo-tool <tool_name> (lowercase, numbers, underscores)", "warning")
        elif not add_echo_tool(name, f"Echo {name}", f"[{name}] "):
            ctx.ui.notify(f"Tool already registered: {name}", "warning")
        else:
            ctx.ui.notify(f"Registered dynamic tool: {name}", "info")

    pi.on("session_start", on_start)
    pi.register_command("add-echo-tool", add, "Register a new echo tool: /add-echo-tool <tool_name>")
