"""``ctx.ui.theme``: the active theme's colours, and pi's ``fg``/``bg``/``bold`` helpers.

pi's ``Theme`` styles text for its TUI; here the same calls give ANSI truecolor SGR sequences
(``\\x1b[38;2;r;g;bm`` … ``\\x1b[39m``), which the TUI's tool cards, inline mode and any terminal
read. A token whose colour is ``""`` (the terminal's default) or unknown leaves the text unstyled.
The object is the same in every mode (print/json/rpc too), its colours from the session's theme.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.resources.themes import Theme

_RESET_FG = "\x1b[39m"
_RESET_BG = "\x1b[49m"


def _sgr(color: str, layer: int) -> str:
    """``38``/``48`` truecolor SGR for ``#rrggbb``; ``""`` for anything else."""
    value = color.lstrip("#")
    if len(value) != 6 or not color.startswith("#"):
        return ""
    try:
        r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    except ValueError:
        return ""
    return f"\x1b[{layer};2;{r};{g};{b}m"


class ExtensionTheme:
    """The colours of one theme, by pi's token names (``accent``, ``muted``, ``toolTitle``…).

    ``fg(token, text)`` / ``bg(token, text)`` wrap ``text`` in the token's colour (unstyled when
    the token has none); ``bold``/``italic``/``underline``/``dim`` add those attributes;
    ``color(token)`` and ``colors`` give the ``#rrggbb`` values (``""``: terminal default);
    ``theme.accent`` reads a token as an attribute. ``name`` and ``dark`` describe the theme."""

    def __init__(self, colors: Mapping[str, str], name: str = "", dark: bool = True) -> None:
        self.colors: dict[str, str] = dict(colors)
        self.name = name
        self.dark = dark

    def color(self, token: str) -> str:
        return self.colors.get(token, "")

    def fg(self, token: str, text: str) -> str:
        start = _sgr(self.color(token), 38)
        return f"{start}{text}{_RESET_FG}" if start else str(text)

    def bg(self, token: str, text: str) -> str:
        start = _sgr(self.color(token), 48)
        return f"{start}{text}{_RESET_BG}" if start else str(text)

    def bold(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[22m"

    def dim(self, text: str) -> str:
        return f"\x1b[2m{text}\x1b[22m"

    def italic(self, text: str) -> str:
        return f"\x1b[3m{text}\x1b[23m"

    def underline(self, text: str) -> str:
        return f"\x1b[4m{text}\x1b[24m"

    def __getattr__(self, name: str) -> str:  # theme.accent, theme.toolTitle: the colour by name
        colors = self.__dict__.get("colors", {})
        if name in colors:
            return str(colors[name])
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"ExtensionTheme({self.name!r}, {len(self.colors)} colours)"


def theme_of(theme: Theme | None) -> ExtensionTheme:
    """``theme`` (the session's active one) for extensions; an empty theme (every call leaves text
    unstyled) before there is a session."""
    return ExtensionTheme({}) if theme is None else ExtensionTheme(theme.colors, theme.name, theme.dark)
