"""pi_cli's own Markdown renderer for the TUI: markdown-it tokens straight to Textual strips.

It owns how assistant text looks on screen: paragraphs, emphasis, strong, strike-through, code
spans, links, headings, bullet and ordered lists, block quotes, tables, rules, HTML and fenced or
indented code (highlighted by pygments, the lexer's state carried from one streamed piece to the
next). Rows are word-wrapped to the width in terminal cells (wide CJK characters and emoji
included) and are exactly that wide. Every style comes from one :class:`Palette` (``styles``),
swapped whole for light and dark terminals (and, later, themes).

The streaming widget (``widgets.markdown_stream``) cuts text into pieces (``markdown_pieces``)
and asks a :class:`PieceRenderer` for each piece's strips; the layout rules make a text cut into
pieces render exactly like the whole text. Modules: ``parse`` (source → ``blocks``, through
markdown-it or, for plain prose, ``prose``), ``inline`` (inline tokens → styled spans), ``cells``
(widths, wrapping), ``layout`` (blocks → rows), ``code``, ``table``, ``pieces`` (pieces →
strips), ``styles``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_cli.modes.interactive.markdown.styles import DARK, LIGHT, Palette, palette_for

if TYPE_CHECKING:
    from pi_cli.modes.interactive.markdown.pieces import PieceRenderer, plain_rows, render_rows

_FROM_PIECES = frozenset({"PieceRenderer", "plain_rows", "render_rows"})


def __getattr__(name: str) -> Any:
    """The renderer loads on first use (PEP 562): the TUI's first frame needs only the palettes,
    and the parser, the layout and the code highlighting behind it are ~10 modules."""
    if name in _FROM_PIECES:
        from pi_cli.modes.interactive.markdown import pieces

        return getattr(pieces, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DARK", "LIGHT", "Palette", "PieceRenderer", "palette_for", "plain_rows", "render_rows"]
