"""The style table: every style the Markdown renderer draws with, in one swappable object.

A :class:`Palette` is plain data (Rich styles by role and a pygments style name for code). The
renderer reads nothing else, so a theme is a palette: swap it and re-render (layout never depends
on the palette, only styles do, so a swap keeps every row where it was). The roles follow pi's
theme keys (``mdHeading``, ``mdLink``, ``mdLinkUrl``, ``mdCode``, ``mdCodeBlock``, ``mdQuote``,
``mdQuoteBorder``, ``mdHr``, ``mdListBullet``) so a pi theme file can fill one.

:data:`DARK` keeps the colours the TUI drew with Rich's Markdown defaults; :data:`LIGHT` is the
same with the inline-code and link colours that stay legible on a light background.
:func:`palette_for` picks one for a Textual theme.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rich.style import Style

if TYPE_CHECKING:
    from textual.theme import Theme


@dataclass(frozen=True, slots=True)
class Palette:
    """Styles by role. ``headings`` holds h1..h6; ``code_theme`` names a pygments style whose
    background and token colours fenced code is drawn in."""

    name: str
    text: Style
    strong: Style
    em: Style
    strike: Style
    code: Style
    link: Style
    link_url: Style
    headings: tuple[Style, Style, Style, Style, Style, Style]
    list_bullet: Style
    list_number: Style
    quote: Style
    quote_border: Style
    hr: Style
    table_border: Style
    table_header: Style
    code_theme: str


DARK = Palette(
    name="dark",
    text=Style(),
    strong=Style(bold=True),
    em=Style(italic=True),
    strike=Style(strike=True),
    code=Style(bold=True, color="cyan", bgcolor="black"),
    link=Style(color="bright_blue"),
    link_url=Style(color="blue", underline=True),
    headings=(
        Style(bold=True, underline=True),
        Style(color="magenta", underline=True),
        Style(color="magenta", bold=True),
        Style(color="magenta", italic=True),
        Style(italic=True),
        Style(dim=True),
    ),
    list_bullet=Style(bold=True),
    list_number=Style(color="cyan"),
    quote=Style(color="magenta"),
    quote_border=Style(color="magenta"),
    hr=Style(dim=True),
    table_border=Style(color="cyan"),
    table_header=Style(bold=True),
    code_theme="monokai",
)

LIGHT = replace(DARK, name="light", code=Style(bold=True, color="dark_cyan"))


_REGISTERED: dict[str, Palette] = {}  # palettes of Textual themes built from theme files


def register_palette(theme_name: str, palette: Palette) -> None:
    """Use ``palette`` for the Textual theme called ``theme_name``."""
    _REGISTERED[theme_name] = palette


def palette_for(theme: Theme) -> Palette:
    """The palette for a Textual theme: the one registered for it, else light or dark by its
    ``dark`` flag."""
    return _REGISTERED.get(theme.name) or (DARK if theme.dark else LIGHT)
