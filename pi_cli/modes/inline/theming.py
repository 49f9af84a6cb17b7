"""The active theme's Markdown colours as a Rich theme for inline mode's scrollback.

Inline mode prints answers with Rich's Markdown, whose styles are named ``markdown.*``; a theme
file's ``md*`` tokens fill them (a token left at the terminal default keeps Rich's style).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from rich.theme import Theme as RichTheme

if TYPE_CHECKING:
    from pi_cli.resources.themes import Theme

_STYLES: dict[str, tuple[str, Style]] = {  # Rich style name → (theme token, what to add to its colour)
    "markdown.h1": ("mdHeading", Style(bold=True, underline=True)),
    "markdown.h2": ("mdHeading", Style(bold=True)),
    "markdown.h3": ("mdHeading", Style(bold=True)),
    "markdown.h4": ("mdHeading", Style(italic=True)),
    "markdown.h5": ("mdHeading", Style()),
    "markdown.h6": ("mdHeading", Style(dim=True)),
    "markdown.code": ("mdCode", Style(bold=True)),
    "markdown.link": ("mdLink", Style()),
    "markdown.link_url": ("mdLinkUrl", Style(underline=True)),
    "markdown.block_quote": ("mdQuote", Style()),
    "markdown.item.bullet": ("mdListBullet", Style(bold=True)),
    "markdown.item.number": ("mdListBullet", Style()),
    "markdown.hr": ("mdHr", Style()),
}


def rich_theme(theme: Theme) -> RichTheme:
    """Rich's Markdown styles in ``theme``'s colours (inheriting Rich's defaults for the rest)."""
    styles = {
        name: Style(color=theme.color(token)) + extra for name, (token, extra) in _STYLES.items() if theme.color(token)
    }
    return RichTheme(styles)
