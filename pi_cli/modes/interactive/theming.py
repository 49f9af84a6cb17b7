"""A theme file's colours as the TUI's: a Textual theme, a Markdown palette and a code style.

The built-in ``dark`` and ``light`` themes keep the Textual themes the TUI was designed on
(``textual-dark``, ``textual-light``) and the Markdown palettes made for them, so what a user
sees by default does not move. Any other theme becomes a Textual theme named ``pi-<name>``: its
``accent``/``border``/``borderAccent``/status colours drive Textual's design tokens (borders,
highlights, the footer), its export page and card colours the background and surfaces, and its
``md*`` and ``syntax*`` tokens the answers' Markdown and code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.style import Style

from pi_cli.modes.interactive.markdown.styles import DARK, LIGHT, Palette, register_palette
from pi_cli.modes.interactive.restyle import coalesced_repaints

if TYPE_CHECKING:
    from textual.app import App

    from pi_cli.resources.themes import Theme

BUILTIN = {"dark": "textual-dark", "light": "textual-light"}


def textual_name(theme: Theme) -> str:
    """The Textual theme name ``theme`` is drawn with."""
    return BUILTIN[theme.name] if theme.source == "builtin" and theme.name in BUILTIN else f"pi-{theme.name}"


def apply_theme(app: App[Any], theme: Theme) -> str:
    """Register what ``theme`` needs (once per name) and make it ``app``'s; returns the Textual
    theme's name. Widgets restyle through Textual's theme signal."""
    name = textual_name(theme)
    if name not in app.available_themes:
        from pi_cli.modes.interactive.markdown.code import register_code_style  # with the highlighter

        app.register_theme(_textual_theme(theme, name))
        register_code_style(name, _code_style(theme))
        register_palette(name, _palette(theme, name))
    with coalesced_repaints():  # the theme reactive repaints the whole screen, ahead of the restyle
        app.theme = name
    return name


def _or(value: str, fallback: str | None = None) -> str | None:
    return value or fallback


def _textual_theme(theme: Theme, name: str) -> Any:
    from textual.theme import Theme as TextualTheme

    color = theme.color
    return TextualTheme(
        name=name,
        primary=color("accent") or ("#0178d4" if theme.dark else "#0060b0"),
        secondary=_or(color("border")),
        accent=_or(color("borderAccent")),
        warning=_or(color("warning")),
        error=_or(color("error")),
        success=_or(color("success")),
        foreground=_or(color("text")),
        background=_or(theme.export.get("pageBg", "")),
        surface=_or(theme.export.get("cardBg", "")),
        panel=_or(color("selectedBg")),
        dark=theme.dark,
    )


def _palette(theme: Theme, code_style: str) -> Palette:
    """The Markdown palette: the built-in one of the theme's kind with its ``md*`` colours."""
    base = DARK if theme.dark else LIGHT

    def fg(token: str, fallback: Style, *, bold: bool | None = None, underline: bool | None = None) -> Style:
        value = theme.color(token)
        return Style(color=value, bold=bold, underline=underline) if value else fallback

    heading = theme.color("mdHeading")
    headings = base.headings
    if heading:
        headings = (
            Style(color=heading, bold=True, underline=True),
            Style(color=heading, bold=True),
            Style(color=heading, bold=True),
            Style(color=heading, italic=True),
            Style(color=heading),
            Style(color=heading, dim=True),
        )
    return Palette(
        name=theme.name,
        text=fg("text", base.text),
        strong=base.strong,
        em=base.em,
        strike=base.strike,
        code=fg("mdCode", base.code, bold=True),
        link=fg("mdLink", base.link),
        link_url=fg("mdLinkUrl", base.link_url, underline=True),
        headings=headings,
        list_bullet=fg("mdListBullet", base.list_bullet, bold=True),
        list_number=fg("mdListBullet", base.list_number),
        quote=fg("mdQuote", base.quote),
        quote_border=fg("mdQuoteBorder", base.quote_border),
        hr=fg("mdHr", base.hr),
        table_border=fg("mdCodeBlockBorder", base.table_border),
        table_header=base.table_header,
        code_theme=code_style,
    )


def _code_style(theme: Theme) -> Any:
    """A pygments style from the theme's ``syntax*`` colours, on its card background."""
    from pygments.style import Style as PygmentsStyle
    from pygments.token import (
        Comment,
        Keyword,
        Name,
        Number,
        Operator,
        Punctuation,
        String,
        Text,
    )

    color = theme.color
    pairs = {
        Text: color("mdCodeBlock") or color("text"),
        Comment: color("syntaxComment"),
        Keyword: color("syntaxKeyword"),
        Name.Function: color("syntaxFunction"),
        Name.Class: color("syntaxType"),
        Name.Builtin: color("syntaxType"),
        Keyword.Type: color("syntaxType"),
        Name: color("syntaxVariable"),
        String: color("syntaxString"),
        Number: color("syntaxNumber"),
        Operator: color("syntaxOperator"),
        Punctuation: color("syntaxPunctuation"),
    }
    styles = {token: value for token, value in pairs.items() if value}
    background = theme.export.get("cardBg") or ("#272822" if theme.dark else "#ffffff")
    return type(f"PiTheme_{theme.name}", (PygmentsStyle,), {"styles": styles, "background_color": background})
