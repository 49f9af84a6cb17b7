"""Extensions talking over ``pi.events`` (pi's ``event-bus`` example).

``pi -e example:event_bus``. It listens on the ``my:notification`` channel and shows what arrives
as a notice; ``/emit [message]`` sends one, and so does every session start. Another extension
can emit on (or listen to) the same channel: the bus is shared by all loaded extensions.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI

CHANNEL = "my:notification"


def register(pi: ExtensionAPI) -> None:
    # The bus hands listeners only the data: keep the latest ctx to reach the UI with.
    current: dict[str, Any] = {}

    def on_notification(data: Any) -> None:
        ctx = current.get("ctx")
        if ctx is not None and isinstance(data, dict):
            ctx.ui.notify(f"Event from {data.get('from')}: {data.get('message')}", "info")

    def on_session_start(event: dict[str, Any], ctx: Any) -> None:
        current["ctx"] = ctx
        pi.events.emit(CHANNEL, {"message": "Session started", "from": "event_bus example"})

    def emit(args: str, ctx: Any) -> None:
        current["ctx"] = ctx
        pi.events.emit(CHANNEL, {"message": args.strip() or "hello", "from": "/emit command"})

    pi.events.on(CHANNEL, on_notification)
    pi.on("session_start", on_session_start)
    pi.register_command("emit", emit, f"Emit {CHANNEL} (/emit message)")
