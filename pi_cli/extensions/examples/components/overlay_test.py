"""A floating dialog to check overlay drawing (pi's ``overlay-test`` example).

``pi -e example:overlay_test``. ``/overlay-test`` opens a 70-column overlay (``{"overlay": True}``
and the component's own ``width``) with lines that are easy to draw wrong — wide CJK text, colour
runs, emoji — between borders that must stay aligned, and four actions: Up/Down choose, the
"Search" and "Run" rows take typed text, Enter picks (a notice says what), Escape closes.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI
from pi_cli.extensions.rendering import ExtensionTheme, matches_key, visible_width
from pi_cli.extensions.rendering.line_editor import LineEditor

ACTIONS = (("Search", True), ("Run", True), ("Settings", False), ("Cancel", False))


class OverlayTest:
    """The dialog; ``done({"action", "query"?})`` or ``done(None)``."""

    width = 70

    def __init__(self, theme: ExtensionTheme, done: Any) -> None:
        self.theme, self.done = theme, done
        self.selected = 0
        self.inputs = {label: LineEditor() for label, has_input in ACTIONS if has_input}

    def handle_input(self, data: str) -> None:
        label = ACTIONS[self.selected][0]
        field = self.inputs.get(label)
        if matches_key(data, "escape"):
            self.done(None)
        elif matches_key(data, "enter"):
            self.done({"action": label, **({"query": field.get_text()} if field is not None else {})})
        elif matches_key(data, "up"):
            self.selected = max(0, self.selected - 1)
        elif matches_key(data, "down"):
            self.selected = min(len(ACTIONS) - 1, self.selected + 1)
        elif field is not None:
            field.handle_input(data)

    def render(self, width: int) -> list[str]:
        th, inner = self.theme, self.width - 2

        def row(content: str) -> str:
            return th.fg("border", "│") + content + " " * max(0, inner - visible_width(content)) + th.fg("border", "│")

        colours = " ".join(th.fg(t, w) for t, w in (("error", "RED"), ("success", "GREEN"), ("warning", "YELLOW"),
                                                    ("accent", "ACCENT"), ("dim", "DIM")))  # fmt: skip
        lines = [
            th.fg("border", f"╭{'─' * inner}╮"),
            row(f" {th.fg('accent', '🧪 Overlay Test')}"),
            row(""),
            row(f" {th.fg('dim', '─── Edge Cases (borders should align) ───')}"),
            row(f" Wide: {th.fg('warning', '中文日本語한글テスト漢字繁體简体ひらがな')}"),
            row(f" Styled: {colours}"),
            row(" Emoji: 🚀 💻 🎉 🔥 😀 🎯 🌟 💡 🎨 🔧 📦 🏆"),
            row(""),
            row(f" {th.fg('dim', '─── Actions ───')}"),
        ]
        for index, (label, _) in enumerate(ACTIONS):
            chosen = index == self.selected
            name = th.fg("accent" if chosen else "text", f"{label}:" if label in self.inputs else label)
            content = (" ▶ " if chosen else "   ") + name
            field = self.inputs.get(label)
            if field is not None:
                content += " " + (field.render(30)[0] if chosen else field.get_text())
            lines.append(row(content))
        lines += [row(""), row(f" {th.fg('dim', '↑↓ navigate • type to input • Enter select • Esc cancel')}")]
        lines.append(th.fg("border", f"╰{'─' * inner}╯"))
        return lines

    def invalidate(self) -> None:
        return None


def register(pi: ExtensionAPI) -> None:
    async def overlay_test(args: str, ctx: Any) -> None:
        result = await ctx.ui.custom(lambda tui, theme, kb, done: OverlayTest(theme, done), {"overlay": True})
        if result:
            query = result.get("query")
            ctx.ui.notify(f'{result["action"]}: "{query}"' if query is not None else result["action"], "info")

    pi.register_command("overlay-test", overlay_test, "Test overlay rendering with edge cases")
