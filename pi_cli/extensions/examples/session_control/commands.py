"""The slash commands a prompt can run (pi's ``commands`` example).

``pi -e example:commands``. ``/commands [extension|prompt|skill]`` lists them with
``pi.get_commands()`` — extension commands, prompt templates and skills, grouped — in a picker;
picking one offers to show the file it comes from. Without a UI the list is a notice.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI

GROUPS = (("extension", "Extensions"), ("prompt", "Prompts"), ("skill", "Skills"))


def register(pi: ExtensionAPI) -> None:
    async def commands(args: str, ctx: Any) -> None:
        wanted = args.strip()
        found = [c for c in pi.get_commands() if not wanted or c.get("source") == wanted]
        if not found:
            ctx.ui.notify(f"No {wanted} commands found" if wanted else "No commands found", "info")
            return
        items: list[str] = []
        for key, label in GROUPS:
            group = [c for c in found if c.get("source") == key]
            if group:
                items.append(f"--- {label} ---")
                items += [f"/{c['name']}" + (f" - {c['description']}" if c.get("description") else "") for c in group]
        if not ctx.has_ui:
            ctx.ui.notify("\n".join(items), "info")
            return
        picked = await ctx.ui.select("Available Commands", items)
        if not picked or picked.startswith("---"):
            return
        name = picked.split(" - ")[0][1:]
        command = next((c for c in found if c["name"] == name), None)
        path = (command or {}).get("sourceInfo", {}).get("path")
        if path and await ctx.ui.confirm(name, f"View source path?\n{path}"):
            ctx.ui.notify(path, "info")

    pi.register_command("commands", commands, "List available slash commands (/commands [source])")
