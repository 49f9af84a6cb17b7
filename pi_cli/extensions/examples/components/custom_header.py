"""A header of the extension's own at the top of the transcript (a port of pi's ``custom-header``).

``pi -e example:custom_header``: in the TUI the start header (version, keys, resources) is
replaced by a small block-letter "pi" and a subtitle, drawn in the theme's colours;
``/builtin-header`` brings pi_cli's header back.
"""

from __future__ import annotations

from typing import Any

from pi_cli import __version__


def letters(theme: Any) -> list[str]:
    """A block-letter "pi": two eyes over a roof on two legs."""
    eye = "█" + theme.fg("dim", "▌")
    roof, legs = theme.fg("accent", "█" * 14), theme.fg("accent", "██") + "    " + theme.fg("accent", "██")
    return ["", f"     {eye}  {eye}", f"  {roof}", *([f"     {legs}"] * 4), ""]


def register(pi: Any) -> None:
    def header(tui: Any, theme: Any) -> dict[str, Any]:
        subtitle = theme.fg("muted", "   a coding agent in your terminal") + theme.fg("dim", f" v{__version__}")
        return {"render": lambda width: [*letters(theme), subtitle]}

    def started(event: dict[str, Any], ctx: Any) -> None:
        if ctx.mode == "tui":
            ctx.ui.set_header(header)

    def builtin(args: str, ctx: Any) -> None:
        ctx.ui.set_header(None)
        ctx.ui.notify("Built-in header restored", "info")

    pi.on("session_start", started)
    pi.register_command("builtin-header", builtin, "Restore the built-in header with its key hints")
