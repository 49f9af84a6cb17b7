"""A custom tool: ``word_count`` counts lines, words and characters of a text or a file.

``pi -e example:word_count``. Shows a dict tool with a JSON-schema, an async ``execute`` that
returns ``{"content", "details"}``, and a ``/wc`` command that reports through ``ctx.ui.notify``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_cli.extensions import ExtensionAPI


def count(text: str) -> dict[str, int]:
    return {"lines": len(text.splitlines()), "words": len(text.split()), "chars": len(text)}


def register(pi: ExtensionAPI) -> None:
    async def execute(tool_call_id: str, args: dict[str, Any], signal: Any, on_update: Any) -> dict[str, Any]:
        if "path" in args:
            # An OSError becomes the tool's error result (the agent loop turns raises into results).
            text = await asyncio.to_thread(Path(args["path"]).read_text, encoding="utf-8", errors="replace")
        else:
            text = str(args.get("text", ""))
        figures = count(text)
        summary = f"{figures['lines']} lines, {figures['words']} words, {figures['chars']} characters"
        return {"content": [{"type": "text", "text": summary}], "details": figures}

    text = {"type": "string", "description": "Text to count"}
    path = {"type": "string", "description": "File to count instead"}
    pi.register_tool(
        {
            "name": "word_count",
            "label": "Word count",
            "description": "Count lines, words and characters of a text or of a file (give text or path).",
            "parameters": {"type": "object", "properties": {"text": text, "path": path}},
            "execute": execute,
        }
    )

    def wc(args: str, ctx: Any) -> None:
        figures = count(args)
        ctx.ui.notify(f"{figures['words']} words, {figures['chars']} characters", "info")

    pi.register_command("wc", wc, "Count the words of the text after /wc")
