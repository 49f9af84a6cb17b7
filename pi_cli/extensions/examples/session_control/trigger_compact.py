"""Compaction on the extension's terms (pi's ``trigger-compact`` example).

``pi -e example:trigger_compact``. After a turn that takes the context past 100,000 tokens
(``ctx.get_context_usage()``) it compacts in the background with ``ctx.compact``; ``/trigger-compact
[instructions]`` compacts now. Notices say when it starts and how it ended (TUI, inline, RPC).
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI

THRESHOLD_TOKENS = 100_000


def register(pi: ExtensionAPI) -> None:
    previous: list[int | None] = [None]  # tokens after the last turn (None: not known yet)

    def trigger(ctx: Any, instructions: str | None = None) -> None:
        def notify(text: str, level: str = "info") -> None:
            if ctx.has_ui:
                ctx.ui.notify(text, level)

        notify("Compaction started")
        ctx.compact(
            instructions,
            on_complete=lambda result: notify("Compaction completed"),
            on_error=lambda exc: notify(f"Compaction failed: {exc}", "error"),
        )

    def on_turn_end(event: dict[str, Any], ctx: Any) -> None:
        usage = ctx.get_context_usage()
        tokens = usage.get("tokens") if usage else None
        if tokens is None:
            return
        crossed = previous[0] is not None and previous[0] <= THRESHOLD_TOKENS < tokens
        previous[0] = tokens
        if crossed:
            trigger(ctx)

    pi.on("turn_end", on_turn_end)
    pi.register_command("trigger-compact", lambda args, ctx: trigger(ctx, args.strip() or None), "Compact now")
