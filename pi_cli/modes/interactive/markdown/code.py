"""Code blocks: pygments highlighting line by line, with the lexer's state carried across pieces.

A streamed fence is cut into pieces between its lines; the piece after a cut must go on lexing
where the one before stopped (inside a string, a comment, a nested state), or the colours change
at every cut. For lexers built on pygments' ``RegexLexer`` (most: Python, JavaScript, TypeScript,
Rust, Go, shell, JSON, YAML, …) this module runs the lexer's own state table with a state stack it
can hand over: :func:`lex` takes the stack at the start of the text and returns the one at its end.
Other lexers start again from their root state in each piece, as before. A token that a lexer
matches with one regular expression across several lines (Python's docstrings, C-style comments
in some lexers) is still split by a cut inside it; states carry everything else.

Blocks look as they did under Rich: the code theme's background, one blank padding row above and
below (a piece cut inside the fence leaves out the padding at the cut), one column of padding on
each side, long lines wrapped at white space.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from rich.style import Style

from pi_cli.modes.interactive.markdown.cells import Row, Span, blank, row, wrap

if TYPE_CHECKING:
    from pygments.lexer import Lexer

    from pi_cli.modes.interactive.markdown.styles import Palette

LexState = tuple[str, ...]
"""A RegexLexer's state stack at a line boundary."""

ROOT: LexState = ("root",)
TAB_SIZE = 4


@lru_cache(maxsize=128)
def lexer_for(name: str) -> Lexer | None:
    """The pygments lexer for a fence's language name (None when pygments has none): looked up
    once per name, since a look-up walks pygments' lexer tables (milliseconds)."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(name or "text")
    except ClassNotFound:
        return None


@lru_cache(maxsize=8)
def _resumable(lexer_class: type) -> bool:
    from pygments.lexer import RegexLexer

    return (
        issubclass(lexer_class, RegexLexer) and lexer_class.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
    )


def lex(lexer: Lexer | None, text: str, state: LexState = ROOT) -> tuple[list[tuple[Any, str]], LexState]:
    """``(token type, text)`` pairs of ``text`` lexed from ``state``, and the state at its end."""
    from pygments.token import Token

    if lexer is None:
        return [(Token.Text, text)], ROOT
    if not _resumable(type(lexer)):
        return [(kind, value) for _, kind, value in lexer.get_tokens_unprocessed(text)], ROOT
    return _run_states(lexer, text, state)


def _run_states(lexer: Any, text: str, state: LexState) -> tuple[list[tuple[Any, str]], LexState]:
    """pygments' RegexLexer loop with the state stack in and out: at each position the current
    state's rules are tried in order; the first match emits its token(s) and applies its state
    transition; with no match a newline resets to root and anything else is an error token."""
    from pygments.token import Error, Whitespace, _TokenType

    table = lexer._tokens
    stack = [name for name in state if name in table] or ["root"]
    rules = table[stack[-1]]
    out: list[tuple[Any, str]] = []
    pos, size = 0, len(text)
    while pos < size:
        for match, action, new_state in rules:
            found = match(text, pos)
            if found is None:
                continue
            if action is not None:
                if type(action) is _TokenType:
                    out.append((action, found.group()))
                else:
                    out.extend((kind, value) for _, kind, value in action(lexer, found))
            pos = found.end()
            if new_state is not None:
                _transition(stack, new_state)
                rules = table[stack[-1]]
            break
        else:
            if text[pos] == "\n":
                stack = ["root"]
                rules = table["root"]
                out.append((Whitespace, "\n"))
            else:
                out.append((Error, text[pos]))
            pos += 1
    return out, tuple(stack)


def _transition(stack: list[str], new_state: Any) -> None:
    if isinstance(new_state, tuple):
        for name in new_state:
            if name == "#pop":
                if len(stack) > 1:
                    stack.pop()
            elif name == "#push":
                stack.append(stack[-1])
            else:
                stack.append(name)
    elif isinstance(new_state, int):  # pop that many, keeping the root
        if abs(new_state) >= len(stack):
            del stack[1:]
        else:
            del stack[new_state:]
    elif new_state == "#push":
        stack.append(stack[-1])


@dataclass(slots=True)
class LexMemo:
    """What a growing code block (the open tail of a stream) was last lexed to: its complete
    lines, so the next frame lexes only the lines added since and the line still growing. The
    frozen piece is lexed afresh later, so a token a regex would match across the seam only
    looks different while it streams."""

    lexer: Any = None
    state: LexState = ROOT
    text: str = ""
    tokens: list[tuple[Any, str]] = field(default_factory=list)
    end: LexState = ROOT

    def lex(self, lexer: Lexer | None, text: str, state: LexState) -> tuple[list[tuple[Any, str]], LexState]:
        """What :func:`lex` returns, reusing the lines lexed for the previous frame."""
        split = text.rfind("\n") + 1
        head, rest = text[:split], text[split:]
        if self.lexer is lexer and lexer is not None and self.state == state and head.startswith(self.text):
            more, end = lex(lexer, head[len(self.text) :], self.end)
            tokens = self.tokens + more
        else:
            tokens, end = lex(lexer, head, state) if head else ([], state)
        self.lexer, self.state, self.text, self.tokens, self.end = lexer, state, head, tokens, end
        if not rest:
            return tokens, end
        last, final = lex(lexer, rest, end)
        return tokens + last, final


_CODE_STYLES: dict[str, Any] = {}  # pygments style classes built from theme files, by name


def register_code_style(name: str, style_class: Any) -> None:
    """Make ``style_class`` (a pygments ``Style`` subclass) the code style called ``name``; a
    theme file's syntax colours arrive this way. Registering a name again replaces it."""
    _CODE_STYLES[name] = style_class
    _theme.cache_clear()
    token_style.cache_clear()


@lru_cache(maxsize=8)
def _theme(name: str) -> tuple[Any, Style]:
    """The pygments style class for ``name`` (a registered one first) and its background as a
    Rich style."""
    from pygments.styles import get_style_by_name
    from pygments.util import ClassNotFound

    style_class = _CODE_STYLES.get(name)
    if style_class is None:
        try:
            style_class = get_style_by_name(name)
        except ClassNotFound:
            style_class = get_style_by_name("monokai")
    return style_class, Style(bgcolor=style_class.background_color)


@lru_cache(maxsize=1024)
def token_style(theme: str, kind: Any) -> Style:
    """The Rich style of a pygments token type in ``theme`` (on the theme's background)."""
    style_class, background = _theme(theme)
    try:
        found = style_class.style_for_token(kind)
    except KeyError:
        return background
    color, bgcolor = found["color"], found["bgcolor"]
    return background + Style(
        color=f"#{color}" if color else None,
        bgcolor=f"#{bgcolor}" if bgcolor else None,
        bold=found["bold"] or None,
        italic=found["italic"] or None,
        underline=found["underline"] or None,
    )


def _prepared(content: str, info: str) -> tuple[Lexer | None, str]:
    language = info.split(maxsplit=1)[0] if info.strip() else "text"
    return lexer_for(language), content.expandtabs(TAB_SIZE) if "\t" in content else content


def end_state(content: str, info: str, state: LexState = ROOT) -> LexState:
    """The lexer state at the end of a fence's ``content`` lexed from ``state`` (what
    :func:`code_rows` returns, without laying anything out)."""
    lexer, text = _prepared(content, info)
    return lex(lexer, text, state)[1]


def code_rows(
    content: str, info: str, width: int, palette: Palette, *, state: LexState = ROOT, top: bool = True,
    bottom: bool = True, memo: LexMemo | None = None,
) -> tuple[list[Row], LexState]:  # fmt: skip
    """Rows of a code block (``info``: the fence's info string; its first word names the language)
    lexed from ``state``, and the lexer state at the end of ``content``. ``top``/``bottom``: draw
    the padding row there (left out at a cut); ``memo``: the block is still growing."""
    lexer, text = _prepared(content, info)
    tokens, end = memo.lex(lexer, text, state) if memo is not None else lex(lexer, text, state)
    theme = palette.code_theme
    background = _theme(theme)[1]
    lines: list[list[Span]] = [[]]
    for kind, value in tokens:
        style = token_style(theme, kind)
        while True:
            newline = value.find("\n")
            if newline < 0:
                if value:
                    lines[-1].append((value, style))
                break
            if newline:
                lines[-1].append((value[:newline], style))
            lines.append([])
            value = value[newline + 1 :]
    while lines and not "".join(text for text, _ in lines[-1]).strip():
        lines.pop()  # trailing blank lines (and the empty one after the last newline) are not shown
    side = 1 if width > 2 else 0
    inner = width - 2 * side
    pad = [Segment(" ", background)] if side else []
    rows: list[Row] = [blank(width, background)] if top else []
    for spans in lines:
        for wrapped, cells in wrap(spans, inner):
            rows.append([*pad, *row(wrapped, cells, inner, background), *pad])
    if bottom:
        rows.append(blank(width, background))
    return rows, end
