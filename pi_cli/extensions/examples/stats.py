"""Session statistics: a ``/stats`` command and a running token count in the footer.

``pi -e example:stats``. The figures come from the session's messages (so a resumed session
counts its earlier turns too): turns are assistant responses, tokens and cost are the sums of
their ``usage``. The footer status (key ``stats``) is refreshed at ``session_start``, on every
``turn_end`` and at ``agent_end``; print and json modes have no footer and simply drop it.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI


def totals(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """``turns, prompts, input, output, cacheRead, cacheWrite, tokens, cost`` over ``messages``."""
    out: dict[str, Any] = dict.fromkeys(("turns", "prompts", "input", "output", "cacheRead", "cacheWrite"), 0)
    out["cost"] = 0.0
    for message in messages:
        role = message.get("role")
        if role == "user":
            out["prompts"] += 1
        if role != "assistant":
            continue
        out["turns"] += 1
        usage = message.get("usage") or {}
        for key in ("input", "output", "cacheRead", "cacheWrite"):
            out[key] += int(usage.get(key) or 0)
        out["cost"] += float((usage.get("cost") or {}).get("total") or 0.0)
    out["tokens"] = out["input"] + out["output"] + out["cacheRead"] + out["cacheWrite"]
    return out


def compact(count: int) -> str:
    """pi's footer style: 950, 12.3k, 4.5M."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k".replace(".0k", "k")
    return f"{count / 1_000_000:.1f}M".replace(".0M", "M")


def status_text(figures: dict[str, Any]) -> str:
    return f"Σ {compact(figures['tokens'])} tok · ${figures['cost']:.3f}"


def report(figures: dict[str, Any]) -> str:
    return (
        f"Session stats: {figures['turns']} turns, {figures['prompts']} prompts · "
        f"tokens ↑{compact(figures['input'])} ↓{compact(figures['output'])} "
        f"(cache read {compact(figures['cacheRead'])}, write {compact(figures['cacheWrite'])}; "
        f"total {compact(figures['tokens'])}) · cost ${figures['cost']:.4f}"
    )


def register(pi: ExtensionAPI) -> None:
    def refresh(event: dict[str, Any], ctx: Any) -> None:
        ctx.ui.set_status("stats", status_text(totals(ctx.session.messages)))

    for event in ("session_start", "turn_end", "agent_end"):
        pi.on(event, refresh)

    def stats(args: str, ctx: Any) -> None:
        figures = totals(ctx.session.messages)
        ctx.ui.set_status("stats", status_text(figures))
        ctx.ui.notify(report(figures), "info")

    pi.register_command("stats", stats, "Show this session's turns, tokens and cost")
