"""Custom messages and entries drawn by the extension (a port of pi's ``message-renderer`` and
``entry-renderer`` examples, in one file).

``pi -e example:status_messages``:

* ``/status [warn|error] text`` sends a ``status-update`` custom message (it joins the model's
  context); its renderer colours it by level and, expanded (Ctrl-O), adds the time.
* ``/status-card [text]`` appends a ``status-card`` entry: shown in the transcript by its
  renderer, kept in the session file, never sent to the model.
"""

from __future__ import annotations

import time
from typing import Any

LEVEL_COLOURS = {"error": "error", "warn": "warning"}


def draw_status(message: dict[str, Any], options: Any, theme: Any) -> str:
    details = message.get("details") or {}
    level = str(details.get("level", "info"))
    text = f"{theme.fg(LEVEL_COLOURS.get(level, 'success'), f'[{level.upper()}]')} {message.get('content', '')}"
    if options.expanded and details.get("timestamp"):
        text += "\n" + theme.fg("dim", "  at " + time.strftime("%H:%M:%S", time.localtime(details["timestamp"] / 1000)))
    return text


def draw_card(entry: dict[str, Any], options: Any, theme: Any) -> list[str]:
    data = entry.get("data") or {}
    lines = [f"{theme.fg('accent', '[status]')} {data.get('message', 'No data')}"]
    if options.expanded and data.get("timestamp"):
        lines.append(theme.fg("dim", time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(data["timestamp"] / 1000))))
    return lines


def register(pi: Any) -> None:
    pi.register_message_renderer("status-update", draw_status)
    pi.register_entry_renderer("status-card", draw_card)

    def status(args: str, ctx: Any) -> None:
        words = args.split()
        level = words[0] if words and words[0] in LEVEL_COLOURS else "info"
        text = " ".join(words[1:] if level != "info" else words) or "Status update"
        details = {"level": level, "timestamp": int(time.time() * 1000)}
        pi.send_message({"customType": "status-update", "content": text, "display": True, "details": details})

    def card(args: str, ctx: Any) -> None:
        pi.append_entry("status-card", {"message": args.strip() or "Status card", "timestamp": int(time.time() * 1000)})

    pi.register_command("status", status, "Send a status message (/status [warn|error] message)")
    pi.register_command("status-card", card, "Show a status card that is not sent to the model")
